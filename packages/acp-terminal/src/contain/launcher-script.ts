/**
 * The launcher's program: Perl 5 with core modules only (POSIX), which every common Linux has
 * (Debian and Ubuntu mark perl-base essential). Perl is here for one system call Node cannot make,
 * prctl(PR_SET_CHILD_SUBREAPER): a process that sets it receives the orphans of its descendants
 * instead of init, so nothing it started can leave its tree, whatever `setsid`, double forks or
 * `nohup` do. Pids are the machine's: no namespace is involved.
 *
 * One launcher per host, in its own session, ignoring INT, TERM, HUP, QUIT and PIPE. For each
 * command it forks a relay (a subreaper, ~450 KB of memory of its own) that forks the command: the
 * command's whole tree stays under its relay, so it is told apart from other terminals' trees
 * even after `env -i setsid` and a double fork. The relay reports the command's exit and ends
 * once its tree is empty.
 *
 * Requests (the host writes them to stdin):
 *   S <id> <bytes>\n<fields>  start a command; fields separated by NUL: stdin ("1" a pipe, "0"
 *                             /dev/null), tty (a PTY slave's path, or empty: pipes), cwd, file,
 *                             argc, the args, then KEY=VALUE per variable
 *   O <id>\n                  the host has opened the command's pipes: the launcher closes its ends
 *                             (it holds them till then; sent with the next request, or at once
 *                             for a stdin pipe, whose end it holds keeps the command from EOF)
 *   K <id> <signo> <pgid>\n   send signo to every process in the tree but the command's group
 *                             (which the host signals itself); signo 9: to all of them
 * Reports (relays and launcher write them to stdout, one line each, at most ~60 bytes: atomic):
 *   R <subreaper 0|1>         the launcher runs
 *   P <id> <pid> <relay> <out fd> <in fd|->   the command runs (after its exec): open
 *                             /proc/<launcher>/fd/<fd> for its output and input
 *   E <id> <errno>            it could not be started
 *   X <id> c <code> | X <id> s <signo>        it exited or was killed by a signal
 *   G <id>                    its tree is empty; the relay is gone
 *   L <id>                    its relay was killed from outside: what it held is no longer watched
 * At end-of-file on stdin (the host went away, however it went) the launcher SIGKILLs every
 * process under it until none is left, then exits.
 */
export const LAUNCHER_SCRIPT = String.raw`
use strict; use warnings; use POSIX ();
my ($prctl) = @ARGV;
$0 = 'acp-terminal launcher';
$SIG{$_} = 'IGNORE' for qw(INT TERM HUP QUIT PIPE);
$| = 1;
sub subreaper { syscall($prctl, 36, 1, 0, 0, 0) == 0 ? 1 : 0 }
print 'R ', subreaper(), "\n";
my $childrenFiles = -e "/proc/$$/task/$$/children";
my (%relay, %idOf, %held);

sub stat_of {
  open(my $f, '<', "/proc/$_[0]/stat") or return;
  my $s = <$f> // return;
  return split ' ', substr($s, rindex($s, ')') + 2);
}
sub children_of {
  my ($pid, $byParent) = @_;
  return @{ $byParent->{$pid} // [] } if $byParent;
  my @found;
  opendir(my $d, "/proc/$pid/task") or return;
  for my $task (grep { /^\d+$/ } readdir $d) {
    open(my $f, '<', "/proc/$pid/task/$task/children") or next;
    push @found, split ' ', (<$f> // '');
  }
  return @found;
}
sub tree_of {
  my ($root) = @_;
  my $byParent;
  if (!$childrenFiles) {
    opendir(my $d, '/proc') or return;
    for my $pid (grep { /^\d+$/ } readdir $d) {
      my @s = stat_of($pid);
      push @{ $byParent->{$s[1]} }, $pid if @s;
    }
  }
  my @todo = children_of($root, $byParent);
  my @all;
  while (defined(my $pid = shift @todo)) {
    push @all, $pid;
    push @todo, children_of($pid, $byParent);
  }
  return @all;
}
sub reap {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $id = delete $idOf{$pid} // next;
    delete $relay{$id};
    print "L $id\n" if $? != 0;
  }
}

sub command {
  my ($tty, $cwd, $file, $args, $out, $in, $status) = @_;
  my $fail = sub { syswrite($status, 0 + $!); POSIX::_exit(127) };
  $SIG{$_} = 'DEFAULT' for qw(INT TERM HUP QUIT PIPE CHLD);
  POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new);
  POSIX::setsid();
  if ($tty ne '') {
    open(my $t, '+<', $tty) or $fail->();
    defined POSIX::dup2(fileno($t), $_) or $fail->() for 0 .. 2;
    my $termios = POSIX::Termios->new;
    if (defined $termios->getattr(0)) {
      # BRKINT IXANY IMAXBEL IUTF8, as node-pty sets them
      $termios->setiflag($termios->getiflag | 0x2 | 0x800 | 0x2000 | 0x4000);
      $termios->setattr(0, POSIX::TCSANOW());
    }
  } else {
    my $null;
    $in //= open($null, '<', '/dev/null') ? $null : $fail->();
    defined POSIX::dup2(fileno($in), 0) or $fail->();
    defined POSIX::dup2(fileno($out), $_) or $fail->() for 1, 2;
  }
  chdir($cwd) or $fail->();
  { no warnings 'exec'; exec { $file } $file, @$args; }
  $fail->();
}

sub relay {
  my ($id, $tty, $cwd, $file, $args, $out, $in, $hostEnds) = @_;
  $0 = "acp-terminal relay $id";
  subreaper();
  %held = ();
  my ($outFd, $inFd) = map { $_ ? fileno($_) : '-' } @$hostEnds;
  open(STDIN, '<', '/dev/null');
  pipe(my $statusRead, my $status) or do { print "E $id ", 0 + $!, "\n"; POSIX::_exit(0) };
  my $command = fork;
  if (!defined $command) { print "E $id ", 0 + $!, "\n"; POSIX::_exit(0) }
  command($tty, $cwd, $file, $args, $out, $in, $status) if $command == 0;
  close $status; close $_ for grep { $_ } $out, $in, @$hostEnds;
  my $errno;
  1 while !defined sysread($statusRead, $errno, 16) && $!{EINTR};
  if (defined $errno && $errno ne '') {
    waitpid($command, 0);
    print "E $id $errno\n";
    POSIX::_exit(0);
  }
  print "P $id $command $$ $outFd $inFd\n";
  for (;;) {
    my $pid = waitpid(-1, 0);
    if ($pid == $command) {
      my $exit = $? & 127 ? "X $id s " . ($? & 127) . "\n" : "X $id c " . ($? >> 8) . "\n";
      # Nothing else left (the usual case): one report, one wake-up of the host.
      1 while ($pid = waitpid(-1, POSIX::WNOHANG())) > 0;
      if ($pid < 0) { print $exit, "G $id\n"; POSIX::_exit(0) }
      print $exit;
    } elsif ($pid < 0) {
      last unless $!{EINTR};
    }
  }
  print "G $id\n";
  POSIX::_exit(0);
}

# The environment of the last command: most commands of a host share one, set here once, not
# in each child (rebuilding %ENV costs a child ~0.2 ms).
my $environment = '';
sub launch {
  my ($id, $stdin, $tty, $cwd, $file, $argc, @rest) = @_;
  my @args = splice(@rest, 0, $argc // 0);
  my $wanted = join("\0", @rest);
  if ($wanted ne $environment) {
    %ENV = map { /\A([^=]*)=(.*)\z/s ? ($1, $2) : () } @rest;
    $environment = $wanted;
  }
  my ($outRead, $out, $in, $inWrite);
  if ($tty eq '') {
    pipe($outRead, $out) or return print "E $id ", 0 + $!, "\n";
    if ($stdin) { pipe($in, $inWrite) or return print "E $id ", 0 + $!, "\n" }
  }
  my $pid = fork;
  return print "E $id ", 0 + $!, "\n" if !defined $pid;
  if ($pid == 0) {
    relay($id, $tty, $cwd, $file, \@args, $out, $in, [$outRead, $inWrite]);
  }
  close $out if $out; close $in if $in;
  $relay{$id} = $pid; $idOf{$pid} = $id;
  $held{$id} = [grep { defined } $outRead, $inWrite];
}

sub signal_tree {
  my ($id, $signo, $pgid) = @_;
  my $root = $relay{$id} // return;
  for my $pid (tree_of($root)) {
    next if $signo != 9 && ((stat_of($pid))[2] // -1) == $pgid;
    kill $signo, $pid;
  }
}

my $in = '';
READ: for (;;) {
  my $ready = select(my $readable = "\1", undef, undef, 1);
  reap();
  next if $ready <= 0;
  my $got = sysread(STDIN, $in, 65536, length $in);
  next if !defined $got && $!{EINTR};
  last if !$got;
  for (;;) {
    if ($in =~ /\AS (\d+) (\d+)\n/) {
      my ($id, $start, $end) = ($1, $+[0], $+[0] + $2);
      last if length($in) < $end;
      my $fields = substr($in, $start, $2);
      substr($in, 0, $end) = '';
      launch($id, split(/\0/, $fields, -1));
    } elsif ($in =~ s/\AO (\d+)\n//) {
      delete $held{$1};
    } elsif ($in =~ s/\AK (\d+) (\d+) (\d+)\n//) {
      signal_tree($1, $2, $3);
    } elsif ($in =~ s/\A[^\n]*\n//) {
      # not a request: skipped
    } else {
      last;
    }
  }
}
%held = ();
for (;;) {
  kill 9, tree_of($$);
  1 while waitpid(-1, POSIX::WNOHANG()) > 0;
  last if waitpid(-1, POSIX::WNOHANG()) < 0;
  select(undef, undef, undef, 0.005);
}
`;
