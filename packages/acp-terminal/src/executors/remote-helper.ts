/**
 * The program that runs on the other machine, in Perl 5 with no module but Config (of Debian's
 * perl-base), because a remote machine or a container has no Node to count on but nearly always
 * has perl, and the host needs the exact wait status (a shell folds "killed by SIGINT" and
 * "exit 130" into one `$?`). Socket and POSIX would cost a terminal 30 ms each to load, so the
 * few numbers they give are written out here for Linux and macOS. One script, two roles:
 *
 * - `agent`: one per connection (ssh) or container (docker), on the control session's stdin and
 *   stdout. It makes a private directory (0700) with a unix socket and this script, hands each
 *   terminal's wrapper its spec, forwards what wrappers report, signals groups, reports when a
 *   group is empty, and answers pings. Its stdin is the lifeline: at end-of-file (the host died,
 *   the connection dropped) or when no line came for `timeout` seconds (a silent partition), it
 *   SIGKILLs every group it knows and every process that carries the connection's marker in its
 *   environment (descendants that left their group with setsid), removes its directory, exits.
 * - `wrap TOKEN`: one per terminal, in that terminal's session (its pipes or PTY). It fetches its
 *   spec from the agent, forks the command into a process group of its own (the PTY's foreground
 *   group), reports `started` with its pid or `failed` with the errno, waits for it, and reports
 *   the exact exit code or signal and whether the group outlived it (zombies left in a container
 *   whose pid 1 never reaps do not count). A sentinel child watches the agent's socket: if the
 *   agent goes away, the command's group is SIGKILLed; if the wrapper dies, it exits too, so
 *   the agent sees the wrapper's socket close and kills the group itself.
 *
 * The host sends the script's length and bytes on the agent's stdin first (see BOOTSTRAP): no
 * file is copied ahead and nothing is quoted twice.
 */
export const HELPER_SCRIPT = String.raw`
use strict;
use Config;

$SIG{PIPE} = 'IGNORE';
my $MARK = 'ACP_TERMINAL_REMOTE';
my $DARWIN = $^O eq 'darwin';
my $TIOCSWINSZ = $DARWIN ? 0x80087467 : 0x5414;
my $TIOCSPGRP = $DARWIN ? 0x80047476 : 0x5410;
my ($PF_UNIX, $SOCK_STREAM, $WNOHANG, $EINTR) = (1, 1, 1, 4);
# struct sockaddr_un: Linux sa_family_t + path[108]; BSD length byte, family byte, path[104].
sub unix_address { $DARWIN ? pack('C C a104', 106, $PF_UNIX, $_[0]) : pack('S a108', $PF_UNIX, $_[0]) }
sub unix_socket { socket(my $s, $PF_UNIX, $SOCK_STREAM, 0) or die "acp-terminal: socket: $!\n"; $s }
my @SIGNAMES = split ' ', $Config{sig_name};
my $role = shift @ARGV;

sub put { my ($fh, $line) = @_; my $b = "$line\n";
  while (length $b) { my $n = syswrite($fh, $b); return 0 unless $n; substr($b, 0, $n) = '' } 1 }
sub out { put(\*STDOUT, $_[0]) }
sub spec_to { my ($fh, $spec) = @_; put($fh, length $spec);
  while (length $spec) { my $n = syswrite($fh, $spec); return unless $n; substr($spec, 0, $n) = '' } }

# Every process (but this one) whose environment holds $MARK=<value> (exact) or <value>.* (prefix).
sub sweep { my ($value, $prefix) = @_; my $needle = "\0$MARK=$value" . ($prefix ? '.' : "\0");
  for my $pass (1 .. 3) { my $found = 0;
    opendir(my $d, '/proc') or return;
    for my $p (grep { /^\d+$/ && $_ != $$ } readdir $d) {
      open(my $e, '<', "/proc/$p/environ") or next; local $/; my $env = <$e>; close $e;
      next unless defined $env && index("\0$env", $needle) >= 0;
      kill 'KILL', $p; $found++ }
    closedir $d; last unless $found } }

# Whether any process of group $pgid is left that is not a zombie: in a container whose pid 1
# never reaps, a killed group's orphans stay zombies in it, and kill(0) counts those.
sub group_alive { my ($pgid) = @_;
  return 0 unless kill(0, -$pgid);
  opendir(my $d, '/proc') or return 1;
  for my $p (grep { /^\d+$/ } readdir $d) {
    open(my $f, '<', "/proc/$p/stat") or next; my $stat = <$f>; close $f;
    next unless defined $stat && $stat =~ /\)\s+(\S)\s+\d+\s+(\d+)/;
    return 1 if $2 == $pgid && $1 ne 'Z' }
  0 }

if ($role eq 'wrap') { wrap(@ARGV) } else { agent(@ARGV) }
exit 0;

sub agent {
  my ($timeout) = @_;
  my $base = (defined $ENV{TMPDIR} && -d $ENV{TMPDIR}) ? $ENV{TMPDIR} : '/tmp';
  my $dir;
  for (1 .. 50) { my $try = sprintf('%s/acp-terminal-%08x%08x', $base, rand(2**32), rand(2**32));
    if (mkdir $try, 0700) { $dir = $try; last } }
  die "cannot create a private directory in $base: $!\n" unless $dir;
  open(my $h, '>', "$dir/h.pl") or die "cannot write $dir/h.pl: $!\n";
  print $h $main::SRC; close $h;
  my $listen = unix_socket();
  bind($listen, unix_address("$dir/s")) or die "bind $dir/s: $!\n";
  listen($listen, 128) or die "listen: $!\n";
  my $nonce = sprintf('%08x%08x', rand(2**32), rand(2**32));
  my (%spec, %waiting, %term, %conn, %watch);
  my $cleanup = sub {
    for my $t (values %term) { kill 'KILL', -$t->{pid} if $t->{pid} && !$t->{done} }
    sweep($nonce, 1);
    unlink "$dir/s", "$dir/h.pl"; rmdir $dir; exit 0 };
  $SIG{TERM} = $SIG{HUP} = $SIG{INT} = $cleanup;
  $SIG{CHLD} = sub {};
  out("ready $dir $nonce $$");
  my ($in, $need, $last) = ('', undef, time);
  while (1) {
    1 while waitpid(-1, $WNOHANG) > 0; # sweepers, and as a container's pid 1 its orphans
    my $rin = ''; vec($rin, 0, 1) = 1; vec($rin, fileno($listen), 1) = 1;
    vec($rin, fileno($_->{fh}), 1) = 1 for values %conn;
    my $n = select(my $rout = $rin, undef, undef, %watch ? 0.02 : ($timeout ? 1 : undef));
    $cleanup->() if $timeout && time - $last > $timeout;
    for my $tok (keys %watch) { my $t = $term{$tok};
      next if $t && $t->{pid} && group_alive($t->{pid});
      delete $watch{$tok}; out("empty $tok") }
    next if $n <= 0;
    if (vec($rout, fileno($listen), 1) && accept(my $c, $listen)) {
      $conn{fileno $c} = { fh => $c, buf => '' } }
    for my $c (values %conn) {
      next unless vec($rout, fileno($c->{fh}), 1);
      my $got = sysread($c->{fh}, my $buf, 4096);
      if (!$got) { delete $conn{fileno $c->{fh}}; close $c->{fh};
        my $tok = $c->{tok}; next unless defined $tok;
        delete $waiting{$tok}; my $t = $term{$tok};
        if ($t && !$t->{done}) { $t->{done} = 1;
          kill 'KILL', -$t->{pid} if $t->{pid}; sweep("$nonce.$tok", 0); out("lost $tok") }
        next }
      $c->{buf} .= $buf;
      while ($c->{buf} =~ s/^([^\n]*)\n//) { my $line = $1; my ($op, $tok, $arg) = split / /, $line;
        next unless defined $tok && ($c->{tok} // $tok) eq $tok;
        if ($op eq 'hello') { $c->{tok} = $tok; $term{$tok} = { done => 0 };
          if (defined(my $spec = delete $spec{$tok})) { spec_to($c->{fh}, $spec) }
          else { $waiting{$tok} = $c } }
        elsif ($op eq 'started') { if (my $t = $term{$tok}) { $t->{pid} = int($arg);
            my $tty = (split / /, $line)[3]; $t->{tty} = $tty if defined $tty && $tty =~ m{^/dev/} }
          out($line) }
        elsif ($op eq 'exit' || $op eq 'failed') { $term{$tok}{done} = 1 if $term{$tok}; out($line) } } }
    # After the wrappers' reports: a ping answered now follows every report already sent.
    if (vec($rout, 0, 1)) {
      my $got = sysread(STDIN, my $buf, 65536);
      $cleanup->() unless $got;
      $in .= $buf; $last = time;
      while (1) {
        if ($need) { last if length($in) < $need->[1];
          my $spec = substr($in, 0, $need->[1], ''); my $tok = $need->[0]; $need = undef;
          if (my $c = delete $waiting{$tok}) { spec_to($c->{fh}, $spec) }
          else { $spec{$tok} = $spec }
          next }
        last unless $in =~ s/^([^\n]*)\n//;
        my ($op, $tok, $arg) = split / /, $1;
        if ($op eq 'spec') { $need = [$tok, $arg] }
        elsif ($op eq 'signal') { my $t = $term{$tok}; kill($arg, -$t->{pid}) if $t && $t->{pid} }
        elsif ($op eq 'watch') { $watch{$tok} = 1 }
        elsif ($op eq 'release') { delete $term{$tok}; delete $watch{$tok}; delete $spec{$tok};
          # Reading every /proc/*/environ takes a while: a child does it, the agent goes on.
          my $sweeper = fork; if (defined $sweeper && !$sweeper) { sweep("$nonce.$tok", 0); exit 0 }
          out("released $tok") }
        elsif ($op eq 'resize') { my $t = $term{$tok}; my ($cols, $rows) = split /x/, $arg;
          # TIOCSWINSZ on the terminal's PTY: the kernel sends SIGWINCH to its foreground group.
          if ($t && $t->{tty} && open(my $tty, '<', $t->{tty})) {
            ioctl($tty, $TIOCSWINSZ, pack('S4', $rows, $cols, 0, 0)); close $tty }
          out("resized $tok") }
        elsif ($op eq 'ping') { out("pong $tok") } } } } }

sub wrap {
  my ($tok) = @_;
  (my $dir = $0) =~ s{/[^/]*$}{};
  my $s = unix_socket();
  connect($s, unix_address("$dir/s")) or die "acp-terminal: the remote helper is gone ($dir/s: $!)\n";
  put($s, "hello $tok") or die "acp-terminal: the remote helper is gone\n";
  my ($head, $spec) = ('', '');
  while ($head !~ /\n$/) { sysread($s, my $b, 1) or die "acp-terminal: no spec from the helper\n"; $head .= $b }
  while (length($spec) < int $head) { sysread($s, my $b, int($head) - length $spec) or die "acp-terminal: short spec\n"; $spec .= $b }
  my ($pty, $stdin, $shell, $cwd, $marker, $file, $nargs, @rest) = split /\0/, $spec, -1;
  my @args = splice(@rest, 0, $nargs);
  my %env = @rest;
  pipe(my $er, my $ew) or die "acp-terminal: pipe: $!\n";
  $SIG{HUP} = sub {};
  my $pid = fork;
  die "acp-terminal: fork: $!\n" unless defined $pid;
  if (!$pid) {
    my $fail = sub { syswrite($ew, "$_[0] " . ($! + 0) . " $!"); exit 127 };
    $SIG{PIPE} = 'DEFAULT'; close $er; close $s;
    setpgrp(0, 0) or $fail->('setpgid');
    if ($pty) { local $SIG{TTOU} = 'IGNORE'; ioctl(STDIN, $TIOCSPGRP, pack('i', $$));
      # Its size now, not when the client's resize arrives (docker's comes by a later API call).
      my ($cols, $rows) = split /x/, $pty; ioctl(STDIN, $TIOCSWINSZ, pack('S4', $rows, $cols, 0, 0)) }
    open(STDIN, '<', '/dev/null') unless $stdin || $pty;
    open(STDERR, '>&', \*STDOUT) unless $pty;
    chdir($cwd) or $fail->('cwd');
    $ENV{$_} = $env{$_} for keys %env;
    $ENV{$MARK} = $marker;
    if ($shell) { my ($bin) = grep { -x "$_/bash" } split /:/, ($ENV{PATH} // '');
      $file = defined $bin ? "$bin/bash" : '/bin/sh' }
    exec { $file } $file, @args;
    $fail->('exec') }
  close $ew;
  my $err = ''; 1 while sysread($er, $err, 512, length $err);
  if (length $err) { waitpid($pid, 0); put($s, "failed $tok $err"); exit 0 }
  put($s, "started $tok $pid " . (($pty && readlink('/proc/self/fd/0')) || '-'));
  open(STDIN, '<', '/dev/null'); open(STDOUT, '>', '/dev/null'); open(STDERR, '>', '/dev/null');
  my $sentinel = fork;
  if (defined $sentinel && !$sentinel) {
    # The agent's end of the socket closing, or the wrapper dying (then the agent sees this end close).
    my $wrapper = getppid();
    while (getppid() == $wrapper) { my $rin = ''; vec($rin, fileno($s), 1) = 1;
      next unless select(my $rout = $rin, undef, undef, 1) > 0;
      next if sysread($s, my $b, 512); kill 'KILL', -$pid; last }
    exit 0 }
  my $r; do { $r = waitpid($pid, 0) } while ($r == -1 && $! == $EINTR);
  my $status = $?;
  my $alive = group_alive($pid);
  my $sig = $status & 127;
  put($s, $sig ? "exit $tok - SIG" . ($SIGNAMES[$sig] // $sig) . " $alive" : "exit $tok " . ($status >> 8) . " - $alive");
  if ($sentinel) { kill 'KILL', $sentinel; waitpid($sentinel, 0) } }
`;

/**
 * The one-line program the control session runs: it reads the script's bytes (their count is its
 * first argument) from stdin and runs it with the remaining arguments. Single-quote free, so it
 * survives one level of POSIX shell quoting unchanged.
 */
export const BOOTSTRAP =
  "my($n,$b)=(shift,q());$main::SRC=q();" +
  "while(length($main::SRC)<$n){sysread(STDIN,$b,$n-length($main::SRC)) or exit 3;$main::SRC.=$b}" +
  "eval $main::SRC;die $@ if $@";
