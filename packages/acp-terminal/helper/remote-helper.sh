# acp-terminal's remote helper: POSIX sh and the usual utilities (busybox, Alpine, Debian-slim and
# any Linux with /proc), so the other machine or the container needs nothing installed. The wire
# protocol is docs/remote-helper.md; the host's side is src/executors/remote-*.ts.
#
# Roles (the first argument):
# - agent NONCE TIMEOUT [keep-env]: one per connection (ssh) or container (docker, podman), on the control
#   session's stdin and stdout, in the private directory this file was written to. It hands each
#   terminal's spec to its launcher through a FIFO, signals groups, reports when a group is empty,
#   answers pings. Every report (its own and the wrappers') goes through one FIFO that a `cat`
#   copies to stdout, so a pong follows every report written before it. Its stdin is the
#   lifeline: at end-of-file, or when no ping came for TIMEOUT seconds, it SIGKILLs every group it
#   knows and every process whose environment carries ACP_TERMINAL_REMOTE=NONCE.*, then exits.
# - wrap TOKEN pty|pipe AGENT_PID: one per terminal, in that terminal's session (its pipes or PTY).
#   Runs `hold`, which runs the launcher in a session of its own (`setsid`) with pipes, or as the
#   PTY's foreground job (`set -m`) with a PTY. A poller (a subshell) reads the exit status; the
#   wrapper reports it with whether the group outlived the command.
# - launch TOKEN: the command's own process. Reads the spec, checks the cwd and the program (so a
#   missing one is an error, not an exit 127), reports `started`, stops the wrapper, execs.
#
# Exact exit statuses: a shell's `$?` folds "killed by SIGINT" and "exit 130" into one number. The
# kernel keeps the real wait status in a zombie's /proc/PID/stat (field 52) until its parent reaps
# it. So the launcher's parent (`hold`, between the wrapper and the launcher) must not reap before
# someone read it: the launcher SIGSTOPs it before it execs the command; the wrapper's poller
# reads the zombie's status, then SIGCONTs `hold`, which reaps the command and exits.

set -f # no globbing but where a function turns it on for /proc
MARK=ACP_TERMINAL_REMOTE
dir=${0%/*}
role=$1
shift

# `nap SECONDS`: a fraction of a second without a new process where the shell's `read -t` takes
# fractions (bash, busybox ash: a read of the agent's FIFO `n`, which nobody writes), `sleep`
# elsewhere (dash). Only in the processes that wait (fd 8 must not reach a command).
nap_init() {
  nap() { sleep "$1"; }
  { exec 8<>"$dir/n"; } 2>/dev/null || return 0
  # shellcheck disable=SC3045 # read -t where the shell has it: probed here
  (read -r -t 0.001 _ <&8) 2>/dev/null
  # shellcheck disable=SC3045
  [ $? -ne 2 ] && nap() { read -r -t "$1" _ <&8; }
}

# Report one line to the host (one write: lines under PIPE_BUF do not interleave). Opened
# read-write, so a writer never blocks when the agent's reader is gone.
say() { printf '%s\n' "$*" 1<>"$dir/e"; }

# The fields after a /proc/PID/stat's command name (which may hold spaces and parentheses).
stat_of() { { IFS= read -r _stat <"/proc/$1/stat"; } 2>/dev/null || return 1; _stat=${_stat##*) }; }

# Whether a process of group $1 is left that is not a zombie: in a container whose pid 1 never
# reaps, a killed group's orphans stay zombies in it, and kill -0 counts them.
group_alive() {
  _g=$1
  kill -0 "-$_g" 2>/dev/null || return 1
  [ -d /proc/self ] || return 0
  set +f
  set -- /proc/[0-9]*
  set -f
  for _f; do
    stat_of "${_f#/proc/}" || continue
    # shellcheck disable=SC2086 # split the fields on purpose
    set -- $_stat
    [ "$3" = "$_g" ] && [ "$1" != Z ] && return 0
  done
  return 1
}

# SIGKILL every process whose environment has ACP_TERMINAL_REMOTE=$1 (exact), or =$1.* with $2.
sweep() {
  if [ "${2-}" = prefix ]; then _re="^$MARK=$1\\."; else _re="^$MARK=$1\$"; fi
  for _pass in 1 2 3; do
    _pids=
    set +f
    _found=$(grep -lz "$_re" /proc/[0-9]*/environ 2>/dev/null)
    set -f
    for _f in $_found; do
      _p=${_f#/proc/}
      _p=${_p%/environ}
      [ "$_p" != $$ ] && _pids="$_pids $_p"
    done
    [ -n "$_pids" ] || return 0
    # shellcheck disable=SC2086 # a list of pids
    kill -9 $_pids 2>/dev/null
  done
}

# ---------------------------------------------------------------------------------------------
# agent
# ---------------------------------------------------------------------------------------------
agent_spec() { # TOKEN LINES: the next LINES lines are the spec; a writer waits for the launcher
  _spec=
  _i=0
  while [ "$_i" -lt "$2" ] && IFS= read -r _l; do
    _spec="$_spec$_l
"
    _i=$((_i + 1))
  done
  (
    [ -p "$dir/$1.s" ] || mkfifo -m 600 "$dir/$1.s"
    printf '%s' "$_spec" >"$dir/$1.s"
  ) 2>/dev/null &
}

agent_signal() { # TOKEN SIGNAL
  { read -r _pg _tty <"$dir/$1.p"; } 2>/dev/null && kill "-$2" "-$_pg" 2>/dev/null
}

agent_watch() { # TOKEN: report `empty TOKEN` once no process of its group is left (or released)
  { read -r _pg _tty <"$dir/$1.p"; } 2>/dev/null || { say "empty $1"; return; }
  nap_init
  while [ -e "$dir/$1.p" ] && group_alive "$_pg"; do nap 0.02; done
  say "empty $1"
}

agent_release() { # TOKEN: forget it, end a spec writer still waiting, kill what carries its mark
  if [ -p "$dir/$1.s" ]; then
    # A reader that comes and goes: the writer's open returns and its write fails.
    { exec 7<>"$dir/$1.s"; exec 7<&-; } 2>/dev/null
  fi
  rm -f "$dir/$1.s" "$dir/$1.p" "$dir/$1.q" "$dir/$1.x" "$dir/$1.f"
  (sweep "$nonce.$1") &
  say "released $1"
}

agent_resize() { # TOKEN COLSxROWS: set the PTY's size (the kernel sends SIGWINCH)
  if { read -r _pg _tty <"$dir/$1.p"; } 2>/dev/null && [ -n "$_tty" ] && [ "$_tty" != - ]; then
    stty cols "${2%x*}" rows "${2#*x}" <"$_tty" 2>/dev/null
  fi
  say "resized $1"
}

agent_cleanup() {
  trap '' TERM HUP INT
  set +f
  for _f in "$dir"/*.p; do
    { read -r _pg _tty <"$_f"; } 2>/dev/null && kill -9 "-$_pg" 2>/dev/null
  done
  sweep "$nonce" prefix
  kill "$watchdog" "$forward" 2>/dev/null
  # A spec no wrapper took still has its writer blocked in open(): open the FIFO so it ends.
  for _f in "$dir"/*.s; do
    { exec 7<>"$_f"; exec 7<&-; } 2>/dev/null
  done
  rm -rf "$dir"
  exit 0
}

# What this place lacks of what the helper needs besides sh (empty when nothing), as words.
lacking() {
  _lacks=
  [ -r /proc/self/stat ] || _lacks=/proc
  for _u in mkfifo cat sleep grep rm readlink; do
    command -v "$_u" >/dev/null 2>&1 || _lacks="$_lacks${_lacks:+, }$_u"
  done
  echo "$_lacks"
}

agent() { # NONCE TIMEOUT [keep-env]
  nonce=$1
  timeout=$2
  _lacks=$(lacking)
  if [ -n "$_lacks" ]; then
    # One line the host shows as it is (on stderr: stdout is the protocol).
    echo "acp-terminal: this target has sh but lacks $_lacks, which acp-terminal's remote helper needs (busybox or coreutils, grep and a mounted /proc give them all)" >&2
    rm -rf "$dir" 2>/dev/null # where rm is there
    exit 3
  fi
  mkfifo -m 600 "$dir/e" "$dir/n" || exit 3
  # A dev container's agent runs under `devcontainer exec` (remoteUser, remoteEnv, the probed
  # environment); the terminals' sessions are plain `docker exec`s, whose launchers take it from here.
  if [ "${3-}" = keep-env ]; then export -p >"$dir/env"; fi
  exec 3<>"$dir/e"
  # Without fd 3 (the FIFO's own write end), so the forwarder ends when the agent dies.
  cat "$dir/e" 3<&- &
  forward=$!
  exec 1>&3
  echo 0 >"$dir/beat"
  agent_pid=$$
  # The watchdog: no ping for TIMEOUT seconds is a silent partition.
  (
    trap - TERM
    _seen=0
    _idle=0
    while sleep 1; do
      read -r _n <"$dir/beat" || exit 0
      if [ "$_n" = "$_seen" ]; then _idle=$((_idle + 1)); else _idle=0 _seen=$_n; fi
      [ "$_idle" -ge "$timeout" ] && kill -TERM "$agent_pid" && exit 0
    done
  ) </dev/null >/dev/null 2>&1 &
  watchdog=$!
  trap agent_cleanup TERM HUP INT
  _os=$(uname -s 2>/dev/null) || _os=unknown
  _sh=$(readlink "/proc/$$/exe" 2>/dev/null) || _sh=/bin/sh
  _bash=$(command -v bash 2>/dev/null) || _bash=-
  _setsid=$(command -v setsid 2>/dev/null) || _setsid=-
  say "ready $dir $$ os=$_os sh=$_sh bash=$_bash setsid=$_setsid user=$(id -un 2>/dev/null || id -u)"
  _beats=0
  while IFS= read -r _line; do
    # shellcheck disable=SC2086 # words of the host's line
    set -- $_line
    case ${1-} in
      spec) agent_spec "$2" "$3" ;;
      signal) agent_signal "$2" "$3" ;;
      watch) agent_watch "$2" </dev/null & ;;
      release) agent_release "$2" ;;
      resize) agent_resize "$2" "$3" ;;
      ping)
        _beats=$((_beats + 1))
        echo "$_beats" >"$dir/beat"
        say "pong $2"
        ;;
    esac
  done
  agent_cleanup
}

# ---------------------------------------------------------------------------------------------
# wrap
# ---------------------------------------------------------------------------------------------
# The poller: waits for the launcher's pid, then for it to be a zombie; writes its wait status to
# TOKEN.x and lets the stopped wrapper go on. If the wrapper or the agent dies meanwhile, it
# SIGKILLs the command's group (the agent would have; the wrapper's loss is reported).
# Whether process $1 is gone or a zombie.
gone() {
  stat_of "$1" || return 0
  case $_stat in Z* | X*) return 0 ;; esac
  return 1
}

wrap_poll() { # TOKEN WRAPPER AGENT
  trap '' HUP INT TERM
  nap_init
  exec 5<>"$dir/$1.q"
  read -r _c _h <&5 || exit 0
  exec 5<&-
  [ "$_c" = - ] && exit 0
  _n=0
  while :; do
    if stat_of "$_c"; then
      case $_stat in
        Z*)
          # shellcheck disable=SC2086 # the stat fields
          set -- "$1" "$2" "$3" $_stat
          eval "_st=\${$((50 + 3))}"
          echo "$_st" >"$dir/$1.x"
          kill -CONT "$_h" 2>/dev/null
          exit 0
          ;;
      esac
    else
      exit 0 # reaped: the wrapper was continued by someone else, or is gone
    fi
    if gone "$2"; then
      kill -9 "-$_c" "$_h" 2>/dev/null # hold too: stopped, it would wait for a SIGCONT forever
      say "lost $1"
      exit 0
    elif gone "$3"; then
      kill -9 "-$_c" 2>/dev/null # the agent was killed before it could
    fi
    _n=$((_n + 1))
    if [ "$_n" -le 20 ]; then nap 0.002; elif [ "$_n" -le 120 ]; then nap 0.01; else nap 0.05; fi
  done
}

wrap() { # TOKEN pty|pipe AGENT_PID
  tok=$1
  mkfifo -m 600 "$dir/$tok.q" || exit 3
  # Held open here so that what the launcher writes stays until the poller reads it.
  exec 6<>"$dir/$tok.q"
  (wrap_poll "$tok" $$ "$3") </dev/null >/dev/null 2>&1 &
  # dash applies a command's redirections to itself while it runs and reports a signalled job
  # with them: every stderr but the launcher's is /dev/null, and the launcher's is fd 4.
  exec 4>&2 2>/dev/null
  sh "$0" hold "$tok" "$2" 6<&-
  _rc=$?
  # Ends a poller still waiting for a pid (the launcher failed, or died before it wrote one).
  echo - 1<>"$dir/$tok.q"
  if [ -e "$dir/$tok.f" ]; then
    rm -f "$dir/$tok.q" "$dir/$tok.f"
    exit 0
  fi
  if { read -r _st <"$dir/$tok.x"; } 2>/dev/null; then
    _code=$(((_st >> 8) & 255)) _sig=$((_st & 127))
  elif [ "$_rc" -gt 128 ]; then
    _code=0 _sig=$((_rc - 128)) # the status was lost: the shell's reading of it
  else
    _code=$_rc _sig=0
  fi
  { read -r pg _tty <"$dir/$tok.p"; } 2>/dev/null || pg=
  _alive=0
  [ -n "$pg" ] && group_alive "$pg" && _alive=1
  if [ "$_sig" -ne 0 ]; then
    say "exit $tok - SIG$(kill -l "$_sig") $_alive"
  else
    say "exit $tok $_code - $_alive"
  fi
  rm -f "$dir/$tok.q" "$dir/$tok.x"
}

# The launcher's parent, which it stops (the wrapper itself is never stopped: a session runner
# such as `script` stops itself when its child stops). With a PTY, job control makes the launcher
# the terminal's foreground process group; with pipes, `setsid` makes it a session of its own.
hold() { # TOKEN pty|pipe
  if [ "$2" = pty ]; then
    set -m
    sh "$0" launch "$1"
  else
    setsid sh "$0" launch "$1"
  fi
}

# ---------------------------------------------------------------------------------------------
# launch
# ---------------------------------------------------------------------------------------------
launch_fail() { # STAGE ERRNO MESSAGE
  : >"$dir/$tok.f"
  say "failed $tok $1 $2 $3"
  echo - 1<>"$dir/$tok.q"
  exit 127
}

# The path exec would run for $1 under PATH $2, or a failure (ENOENT 2, EACCES 13).
launch_resolve() {
  case $1 in
    */*)
      [ -e "$1" ] || launch_fail exec 2 "No such file or directory"
      [ -d "$1" ] && launch_fail exec 13 "Permission denied"
      [ -x "$1" ] || launch_fail exec 13 "Permission denied"
      program=$1
      return
      ;;
  esac
  _ifs=$IFS
  IFS=:
  for _d in $2; do
    [ -n "$_d" ] || _d=.
    if [ -f "$_d/$1" ] && [ -x "$_d/$1" ]; then
      IFS=$_ifs
      program=$_d/$1
      return
    fi
  done
  IFS=$_ifs
  launch_fail exec 2 "No such file or directory"
}

# shellcheck disable=SC2154 # pty stdin shell cwd marker nexport nenv come from the spec it sources
launch() { # TOKEN
  tok=$1
  exec 2>&4 4>&-
  [ -p "$dir/$tok.s" ] || mkfifo -m 600 "$dir/$tok.s" 2>/dev/null
  # The spec sets pty stdin shell cwd marker path nexport nenv, and the words (see remote-spec.ts).
  # shellcheck disable=SC1090,SC1091
  [ -f "$dir/env" ] && . "$dir/env"
  # shellcheck disable=SC1090
  . "$dir/$tok.s"
  rm -f "$dir/$tok.s"
  cd "$cwd" 2>/dev/null || {
    if [ ! -e "$cwd" ]; then launch_fail cwd 2 "No such file or directory"; fi
    if [ ! -d "$cwd" ]; then launch_fail cwd 20 "Not a directory"; fi
    launch_fail cwd 13 "Permission denied"
  }
  _path=${path-$PATH}
  # Skip the exported words to find the program.
  eval "_file=\${$((nexport + nenv + 1))}"
  if [ "$shell" = 1 ]; then
    program=/bin/sh
    _ifs=$IFS
    IFS=:
    for _d in $_path; do
      if [ -x "$_d/bash" ]; then program=$_d/bash && break; fi
    done
    IFS=$_ifs
  else
    launch_resolve "$_file" "$_path"
  fi
  _tty=-
  if [ "$pty" != 0 ]; then
    stty cols "${pty%x*}" rows "${pty#*x}" 2>/dev/null
    _tty=$(tty 2>/dev/null) || _tty=-
  fi
  echo "$$ $_tty" >"$dir/$tok.p"
  echo "$$ $PPID" 1<>"$dir/$tok.q"
  [ "$stdin" = 1 ] || [ "$pty" != 0 ] || exec </dev/null
  [ "$pty" != 0 ] || exec 2>&1
  # Stop our parent (hold) so that it cannot reap this process before the poller read its
  # status, and wait until it is stopped before the command may exit.
  kill -STOP "$PPID"
  while stat_of "$PPID"; do
    case $_stat in T* | t*) break ;; esac
  done
  _i=0
  while [ "$_i" -lt "$nexport" ]; do
    # shellcheck disable=SC2163 # the word is NAME=VALUE
    export "$1"
    shift
    _i=$((_i + 1))
  done
  export "$MARK=$marker"
  say "started $tok $$ $_tty"
  if [ "$nenv" -gt 0 ]; then
    # Names a shell cannot export come first: `env` sets them, the program in its word's place.
    _list=
    _i=1
    while [ "$_i" -le $# ]; do
      if [ "$_i" -eq $((nenv + 1)) ]; then _list="$_list \"\$program\""; else _list="$_list \"\${$_i}\""; fi
      _i=$((_i + 1))
    done
    eval "exec env $_list"
  fi
  shift
  exec "$program" "$@"
}

case $role in
  agent) agent "$@" ;;
  wrap) wrap "$@" ;;
  hold) hold "$@" ;;
  launch) launch "$@" ;;
  *)
    echo "acp-terminal remote helper: unknown role $role" >&2
    exit 2
    ;;
esac
