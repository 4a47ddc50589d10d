#!/usr/bin/perl
# The launcher's program: Perl 5 with core modules only (POSIX), which every common Linux has
# (Debian and Ubuntu mark perl-base essential). Perl is here for one system call Node cannot make,
# prctl(PR_SET_CHILD_SUBREAPER): a process that sets it receives the orphans of its descendants
# instead of init, so nothing it started can leave its tree, whatever `setsid`, double forks or
# `nohup` do. Pids are the machine's: no namespace is involved.
#
# One launcher per host, in its own session, ignoring INT, TERM, HUP, QUIT and PIPE. Each command
# runs under a relay (a subreaper, ~450 KB of memory of its own): the command's whole tree stays
# under it, so it is told apart from other terminals' trees even after `env -i setsid` and a
# double fork. The relay reports the command's exit and ends once its tree is empty.
#
# The launcher keeps two standbys ready: each a relay and, under it, a command's process (in a
# session of its own, its pipes made), waiting for a request. A start then costs the launcher a
# write, not two forks before the exec. Standbys are forked when nothing else runs (a relay just
# ended, or no request came for a second), not after a request, whose command would wait for the
# forks; with none left (many starts at once) a request forks its own.
#
# Requests (the host writes them to stdin):
#   S <id> <bytes> <env bytes>\n<fields>  start a command; fields separated by NUL: stdin ("1" a
#                             pipe, "0" /dev/null), tty (a PTY slave's path, or empty: pipes), cwd,
#                             file, argc, the args, then KEY=VALUE per variable (the last
#                             <env bytes>: the launcher sets them, once idle, for the standbys it forks next)
#   O <id>\n                  the host has opened the command's pipes: the launcher closes its ends
#                             (it holds them till then; sent with the next request, or at once
#                             for a stdin pipe, whose end it holds keeps the command from EOF)
#   K <id> <signo> <pgid>\n   send signo to every process in the tree but the command's group
#                             (which the host signals itself); signo 9: to all of them
# Reports (relays, commands and launcher write them to stdout, one line each, at most ~60 bytes:
# atomic):
#   R <subreaper 0|1>         the launcher runs
#   B <id> <pid> <relay> <out fd> <in fd|->   the command is about to exec (said by itself): if its
#                             relay is lost before it says P or E, it was started all the same
#   P <id> <pid> <relay> <out fd> <in fd|->   the command runs (after its exec): open
#                             /proc/<launcher>/fd/<fd> for its output and input
#   E <id> <errno>            it could not be started
#   X <id> c <code> | X <id> s <signo>        it exited or was killed by a signal
#   G <id>                    its tree is empty; the relay is gone
#   L <id>                    its relay was killed from outside (or its command before its
#                             request came): what it held is no longer watched
# At end-of-file on stdin (the host went away, however it went) the launcher SIGKILLs every
# process under it, the standbys included, until none is left, then exits.
use strict; use warnings; use POSIX ();
my ($prctl) = @ARGV;
$0 = 'acp-terminal launcher';
# Descriptors the host inherited and passed on (its parent's fd 240 open on a file, say) would
# reach every command: closed. Perl's own are close-on-exec.
if (opendir(my $fds, '/proc/self/fd')) {
  my @inherited = grep { /^\d+$/ && $_ > 2 && $_ != fileno($fds) } readdir $fds;
  closedir $fds;
  POSIX::close($_) for @inherited;
} else {
  POSIX::close($_) for 3 .. 1023;
}
$SIG{$_} = 'IGNORE' for qw(INT TERM HUP QUIT PIPE);
%ENV = ();
$| = 1;
sub subreaper { syscall($prctl, 36, 1, 0, 0, 0) == 0 ? 1 : 0 }
print 'R ', subreaper(), "\n";
my $childrenFiles = -e "/proc/$$/task/$$/children";
my (%relay, %idOf, %held, @standbys);
# Standbys kept ready: two, so that one is there while the other is replaced.
my $STANDBYS = 2;
# The variables %ENV holds (most commands of a host share them): a standby forked with them set has
# nothing to rebuild (rebuilding %ENV costs ~0.2 ms). %ENV takes those of the last request when
# the launcher is idle, never on a start's path: setting n variables costs O(n^2) (1024: 4 ms),
# and a start must not wait for another's.
my $environment = '';
my $wanted = '';

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
# Reaps the relays that ended; returns how many.
sub reap {
  my $ended = 0;
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    $ended++;
    @standbys = grep { $_->{relay} != $pid } @standbys;
    my $id = delete $idOf{$pid} // next;
    delete $relay{$id};
    print "L $id\n" if $? != 0;
  }
  return $ended;
}
sub read_all {
  my ($from) = @_;
  my $got = '';
  for (;;) {
    my $n = sysread($from, $got, 65536, length $got);
    return $got if defined $n && $n == 0;
    return $got if !defined $n && !$!{EINTR};
  }
}

# A standby's command process: in a session of its own, it waits for its request (written by the
# launcher, "<id> <env bytes>\n" and the S fields), says its id to the relay and execs.
sub command {
  my ($requests, $out, $in, $outFd, $inFd, $status, $relay) = @_;
  # Killed with its relay (PR_SET_PDEATHSIG): never left to run unwatched, however the relay dies.
  syscall($prctl, 1, 9, 0, 0, 0);
  POSIX::_exit(0) if getppid() != $relay;
  $SIG{$_} = 'DEFAULT' for qw(INT TERM HUP QUIT PIPE CHLD);
  POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new);
  POSIX::setsid();
  my $request = read_all($requests);
  POSIX::_exit(0) if $request !~ /\A(\d+) (\d+)\n/;
  my ($id, $envBytes, $start) = ($1, $2, $+[0]);
  my $env = substr($request, length($request) - $envBytes);
  my ($stdin, $tty, $cwd, $file, $argc, @rest) =
    split(/\0/, substr($request, $start, length($request) - $start - $envBytes), -1);
  my @args = splice(@rest, 0, $argc // 0);
  $outFd = $inFd = '-' if $tty ne '';
  $inFd = '-' if !$stdin;
  syswrite($status, "$id $outFd $inFd\n");
  # Said here, before the exec, on the reports' pipe: a command that kills its relay at once
  # (before it says P) was started all the same.
  syswrite(STDOUT, "B $id $$ $relay $outFd $inFd\n");
  my $fail = sub { syswrite($status, 0 + $!); POSIX::_exit(127) };
  if ($env ne $environment) {
    %ENV = map { /\A([^=]*)=(.*)\z/s ? ($1, $2) : () } split(/\0/, $env);
  }
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
    $in = open($null, '<', '/dev/null') ? $null : $fail->() if !$stdin;
    defined POSIX::dup2(fileno($in), 0) or $fail->();
    defined POSIX::dup2(fileno($out), $_) or $fail->() for 1, 2;
  }
  chdir($cwd) or $fail->();
  { no warnings 'exec'; exec { $file } $file, @args; }
  $fail->();
}

# A standby's relay: a subreaper holding the command's whole tree. It reports the command's exec
# (or why it failed), its exit, and ends once its tree is empty.
sub relay {
  my ($requests, $out, $in, $outFd, $inFd) = @_;
  pipe(my $statusRead, my $status) or POSIX::_exit(1);
  my $relay = $$;
  my $command = fork // POSIX::_exit(1);
  command($requests, $out, $in, $outFd, $inFd, $status, $relay) if $command == 0;
  close $_ for $requests, $status, $out, $in;
  my $said = read_all($statusRead);
  # No request came (the launcher ended, or the command was killed while it waited).
  if ($said !~ s/\A(\d+) (\S+ \S+)\n//) { waitpid($command, 0); POSIX::_exit(1) }
  my ($id, $fds) = ($1, $2);
  $0 = "acp-terminal relay $id";
  if ($said ne '') {
    waitpid($command, 0);
    print "E $id $said\n";
    POSIX::_exit(0);
  }
  print "P $id $command $$ $fds\n";
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

# Forks the next command's relay and, under it, its command process, with its pipes, ahead of its
# request: a start then costs the launcher one write instead of two forks.
sub make_standby {
  pipe(my $requests, my $request) or return;
  pipe(my $outRead, my $out) or return;
  pipe(my $in, my $inWrite) or return;
  my $pid = fork // return;
  if ($pid == 0) {
    $0 = 'acp-terminal relay';
    $SIG{CHLD} = 'DEFAULT';
    subreaper();
    %held = ();
    @standbys = ();
    open(STDIN, '<', '/dev/null');
    my ($outFd, $inFd) = (fileno($outRead), fileno($inWrite));
    close $_ for $request, $outRead, $inWrite;
    relay($requests, $out, $in, $outFd, $inFd);
  }
  close $_ for $requests, $out, $in;
  push @standbys, { relay => $pid, request => $request, ends => [$outRead, $inWrite] };
}
# Forks standbys up to $STANDBYS: when nothing else runs (a relay just ended, or no request came for
# a second), not right after a request, whose command would wait for the forks.
sub fill {
  if ($wanted ne $environment) {
    %ENV = map { /\A([^=]*)=(.*)\z/s ? ($1, $2) : () } split(/\0/, $wanted);
    $environment = $wanted;
  }
  while (@standbys < $STANDBYS) { make_standby() or last }
}

sub launch {
  my ($id, $fields, $envBytes) = @_;
  $wanted = substr($fields, length($fields) - $envBytes);
  make_standby() if !@standbys;
  my $started = shift(@standbys) // return print "E $id ", 0 + $!, "\n";
  my ($request, $at) = ("$id $envBytes\n$fields", 0);
  while ($at < length $request) {
    my $n = syswrite($started->{request}, $request, length($request) - $at, $at);
    if (!defined $n) {
      next if $!{EINTR};
      # Its command is gone (killed while it waited): its relay reports L.
      last;
    }
    $at += $n;
  }
  close $started->{request};
  my ($pid, $ends) = @$started{qw(relay ends)};
  my $stdin = substr($fields, 0, 1) eq '1';
  my $tty = substr($fields, 2, 1) ne "\0";
  $relay{$id} = $pid; $idOf{$pid} = $id;
  $held{$id} = $tty ? [] : $stdin ? $ends : [$ends->[0]];
}

sub signal_tree {
  my ($id, $signo, $pgid) = @_;
  my $root = $relay{$id} // return;
  for my $pid (tree_of($root)) {
    next if $signo != 9 && ((stat_of($pid))[2] // -1) == $pgid;
    kill $signo, $pid;
  }
}

$SIG{CHLD} = sub {}; # a relay that ends interrupts select
fill();
my $in = '';
READ: for (;;) {
  my $ready = select(my $readable = "\1", undef, undef, 1);
  my $ended = reap();
  fill() if $ready == 0 || $ended;
  next if $ready <= 0;
  my $got = sysread(STDIN, $in, 65536, length $in);
  next if !defined $got && $!{EINTR};
  last if !$got;
  my $at = 0;
  for (;;) {
    pos($in) = $at;
    if ($in =~ /\GS (\d+) (\d+) (\d+)\n/gc) {
      my ($id, $start, $end, $envBytes) = ($1, pos($in), pos($in) + $2, $3);
      last if length($in) < $end;
      launch($id, substr($in, $start, $2), $envBytes);
      $at = $end;
    } elsif ($in =~ /\GO (\d+)\n/gc) {
      delete $held{$1};
      $at = pos($in);
    } elsif ($in =~ /\GK (\d+) (\d+) (\d+)\n/gc) {
      signal_tree($1, $2, $3);
      $at = pos($in);
    } elsif ($in =~ /\G[^\n]*\n/gc) {
      $at = pos($in); # not a request: skipped
    } else {
      last;
    }
  }
  substr($in, 0, $at) = '';
}
%held = ();
@standbys = ();
for (;;) {
  kill 9, tree_of($$);
  1 while waitpid(-1, POSIX::WNOHANG()) > 0;
  last if waitpid(-1, POSIX::WNOHANG()) < 0;
  select(undef, undef, undef, 0.005);
}
