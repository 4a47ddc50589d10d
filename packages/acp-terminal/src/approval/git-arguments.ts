/**
 * Which git command lines an allow pattern may approve: `status`, `diff`, `log` and `show` with
 * options that only read and print. Everything else goes on to the person (or is refused):
 * options that write files (`--output`), run programs (`--ext-diff`, `-c core.pager=…`,
 * `--exec-path`, `--upload-pack`) or move git elsewhere (`-C`, `--git-dir`, `--work-tree`), and every
 * other subcommand (`commit` runs hooks, `checkout` smudge filters, `fetch` ssh). It is an allowlist
 * of exact words because git takes any unambiguous prefix of a long option (`--out=x` is
 * `--output=x`): a list of forbidden options could never be complete.
 */

/** Words separated by blanks (a list too long to write one string a line). */
const words = (list: string): string[] => list.trim().split(/\s+/);

/** Before the subcommand: options that change nothing but paging and locking. */
const GLOBAL_OPTIONS = new Set(["--no-pager", "-P", "--no-optional-locks", "--no-replace-objects"]);

const DIFF_OUTPUT = words(`
  -p -u --patch -s --no-patch --raw --patch-with-raw --patch-with-stat --stat
  --compact-summary --numstat --shortstat --dirstat --cumulative --summary --name-only
  --name-status --color --no-color --word-diff --color-words --color-moved
  --no-color-moved --no-renames --rename-empty --no-rename-empty -M --find-renames -C
  --find-copies --find-copies-harder -D --irreversible-delete --pickaxe-all
  --pickaxe-regex -R --relative --no-relative -a --text -w --ignore-all-space -b
  --ignore-space-change --ignore-space-at-eol --ignore-blank-lines --ignore-cr-at-eol -W
  --function-context --no-ext-diff --no-textconv --textconv --abbrev --no-abbrev
  --full-index --binary --minimal --patience --histogram --indent-heuristic
  --no-indent-heuristic --exit-code --quiet --check --no-prefix --default-prefix
  --ita-invisible-in-index --ita-visible-in-index -z -c --cc -m --merge-base --cached
  --staged --no-index -1 -2 -3 --base --ours --theirs -S -G -O
`);
const LOG_OPTIONS = words(`
  -n --oneline --graph --decorate --no-decorate --all --branches --tags --remotes
  --first-parent --merges --no-merges --reverse --follow --no-follow --abbrev-commit
  --no-abbrev-commit --pretty --left-right --cherry-pick --cherry-mark --boundary
  --simplify-by-decoration --date-order --author-date-order --topo-order --all-match
  --invert-grep -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings --no-walk
  --notes --no-notes --use-mailmap --no-use-mailmap --mailmap --no-mailmap --parents
  --children --full-history --dense --sparse --source --log-size --relative-date
  --no-expand-tabs --expand-tabs --author --committer --grep -L
`);
const STATUS_OPTIONS = words(`
  -s --short -b --branch --show-stash --porcelain --long -v --verbose -u --untracked-files
  --ignored -z --column --no-column --ahead-behind --no-ahead-behind
  --renames --no-renames --find-renames -uno -unormal -uall
`);

/** Options whose value may follow as the next word (`-n 5`, `--author x`): that word is not a path. */
const TAKES_NEXT_WORD = new Set([
  "-n",
  "--author",
  "--committer",
  "--grep",
  "-S",
  "-G",
  "-L",
  "-O",
]);

/** `--name=value` options whose value is only read: a format, a date, a count, a filter. */
const VALUED = new Set(
  words(`
    --format --pretty --date --since --after --until --before --author --committer --grep
    --max-count --skip --decorate --abbrev --stat --dirstat --diff-filter --unified
    --word-diff --word-diff-regex --color --color-moved --color-words --find-renames
    --find-copies --diff-algorithm --relative --untracked-files --ignored --porcelain --column --src-prefix --dst-prefix --max-parents
    --min-parents --notes --stat-width --stat-count --stat-name-width --stat-graph-width
    --inter-hunk-context --anchored --expand-tabs --encoding --show-linear-break
  `),
);

/**
 * The only submodule options approved: those that keep every submodule shut. Any other value of
 * `--ignore-submodules` (`=none`, which beats the neutral `diff.ignoreSubmodules=all`) and any
 * `--submodule=…` make git open the submodule, whose own config (`diff.external`,
 * `filter.<x>.clean`) then runs.
 */
const SUBMODULES_CLOSED = new Set(["--ignore-submodules", "--ignore-submodules=all"]);

/** Short options with their value attached: `-n5`, `-U3`, `-M50%`, `-Sword`, `-Gregex`, `-5`. */
const ATTACHED = /^-[nUMCBlSGO].+$|^-\d+$/;

const SUBCOMMANDS: Readonly<Record<string, ReadonlySet<string>>> = {
  status: new Set(STATUS_OPTIONS),
  diff: new Set(DIFF_OUTPUT),
  log: new Set([...LOG_OPTIONS, ...DIFF_OUTPUT]),
  show: new Set([...LOG_OPTIONS, ...DIFF_OUTPUT]),
};

/** Why `args` (what follows `git`) cannot be approved by a pattern, or undefined when it can. */
export function gitArgumentsProblem(args: readonly string[]): string | undefined {
  if (args.length === 0 || (args.length === 1 && args[0] === "--version")) {
    return undefined; // `git` alone prints its usage; `git --version` its version
  }
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) {
    if (!GLOBAL_OPTIONS.has(args[i]!)) {
      return `git ${JSON.stringify(args[i]!.slice(0, 100))} before the subcommand (only ${[...GLOBAL_OPTIONS].join(", ")} are approved by a pattern)`;
    }
    i++;
  }
  const subcommand = args[i];
  const allowed = subcommand === undefined ? undefined : SUBCOMMANDS[subcommand];
  if (allowed === undefined) {
    return `git ${subcommand === undefined ? "without a subcommand" : JSON.stringify(subcommand.slice(0, 100))}: a pattern approves only git ${Object.keys(SUBCOMMANDS).join(", ")}`;
  }
  for (i++; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--") {
      return undefined; // paths follow
    }
    if (!word.startsWith("-") || word === "-" || SUBMODULES_CLOSED.has(word)) {
      continue; // a revision or a path; or submodules kept shut
    }
    const name = word.includes("=") ? word.slice(0, word.indexOf("=")) : word;
    const ok =
      (word === name && allowed.has(word)) ||
      (word !== name && VALUED.has(name)) ||
      (subcommand !== "status" && ATTACHED.test(word));
    if (!ok) {
      return `git ${subcommand} ${JSON.stringify(word.slice(0, 100))}: not an option a pattern approves (it may write a file or run a program: --output, --ext-diff, -c, ...)`;
    }
    if (TAKES_NEXT_WORD.has(word)) {
      i++;
    }
  }
  return undefined;
}
