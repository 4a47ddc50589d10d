import { readFileSync } from "node:fs";

/**
 * The program that runs on the other machine: `helper/remote-helper.sh` of this package, in POSIX
 * sh with the usual utilities (busybox, Alpine, Debian-slim: no Perl, nothing installed). Its roles
 * and the wire protocol are in docs/remote-helper.md; why sh, in the README.
 */
export const HELPER_SCRIPT = readFileSync(
  new URL("../../helper/remote-helper.sh", import.meta.url),
  "utf8",
);

/**
 * What the control session runs as `sh -c BOOTSTRAP acp-terminal SCRIPT ARGS...`: it makes a
 * private directory (0700, `mktemp -d`), writes the script there as `h.sh`, and runs its `agent`
 * role. The script travels as an argument, so nothing is read from stdin before the agent and
 * nothing is quoted twice. Single-quote free: it survives one level of POSIX shell quoting.
 */
export const BOOTSTRAP = [
  'base=${TMPDIR:-/tmp}; [ -d "$base" ] || base=/tmp',
  'd=$(mktemp -d "$base/acp-terminal-XXXXXXXXXXXX") || { echo "acp-terminal: cannot create a private directory in $base (mktemp -d)" >&2; exit 3; }',
  'printf "%s" "$1" >"$d/h.sh" || exit 3',
  "shift",
  'exec sh "$d/h.sh" agent "$@"',
].join("\n");
