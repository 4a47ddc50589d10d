import type { ApprovalRequest } from "../host/types.js";

/**
 * Pre-approval patterns (`--allow 'git *'`) and what they match. A pattern is words separated by
 * spaces. The first word is the command, matched literally; each later word matches one word of
 * the command, `*` inside it standing for any characters; a last word that is `*` alone matches
 * any number of further words, none included. So `git *` matches `git`, `git status` and
 * `git log -p`, and `npm run test:*` matches `npm run test:unit`.
 *
 * The first word is a program name, which matches a command of that name that PATH finds (PATH's
 * absolute entries only, as the spawn searches: see absolutePathEntries), or an absolute path,
 * which matches the program at that path however the request names it.
 *
 * A pattern only ever approves what it can see in full:
 * - a command given as `command` + `args` runs without a shell, so its words are exactly those;
 * - a command line run through a shell is split at spaces only when it holds no character a shell
 *   gives meaning to (`| & ; < > ( ) $ \` \\ " ' * ? [ ] # ~ = % { }`, newlines): `git status; rm -rf ~`
 *   or `git log $(id)` match no pattern and are asked about like any other;
 * - a request that sets environment variables matches no pattern (`PATH` or `LD_PRELOAD` can
 *   change what the words run);
 * - patterns approve starting a command only, never a write to its stdin or a signal.
 *
 * A pattern `write:PATH` approves a client file write (ACP `fs/write_text_file`) instead: PATH is
 * one word, relative to the session's cwd (a file outside it never matches) or absolute, `*`
 * standing for any characters, `/` included: `write:src/*` matches `src/a/b.ts`. A protected file
 * (inside `.git`, a dotfile at the top of the cwd or home: `AuthorizeFileWrite.protected`) matches
 * none: only a person approves writing it.
 */
export interface AllowPattern {
  readonly source: string;
  /** The first word: a program name, or an absolute path (`write:` for a file pattern). */
  readonly program: string;
  readonly words: readonly RegExp[];
  /** The pattern ended with a lone `*`: any further words match. */
  readonly anyRest: boolean;
  /** A `write:` pattern: the files it approves writing. */
  readonly file?: { readonly path: RegExp; readonly absolute: boolean };
}

const FILE_PREFIX = "write:";

/** Characters a shell interprets, besides spaces and tabs: a line holding one is not split into words. */
const SHELL_SYNTAX = /[\n\r|&;<>()$`\\"'*?[\]#~=%{}]/;
/** Characters a pattern cannot hold: quoting would suggest a shell parse that does not happen. */
const PATTERN_FORBIDDEN = /["'\\\n\r]/;
const MAX_PATTERN_CHARS = 1000;

/**
 * `*` as any characters, matched without backtracking: the agent chooses the word (1 MB is
 * easy), and `^a.*b.*c$` backtracks polynomially (a word of two stars took 1.6 s on 40,000 slashes).
 * Each middle part is found at its first place after the one before and kept there (a lookahead
 * is atomic in JS), which is all a `*`-only glob needs; the last part must end the word.
 */
function wordRegExp(word: string): RegExp {
  const parts = word.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  if (parts.length === 1) {
    return new RegExp(`^${parts[0]}$`, "s");
  }
  const middle = parts.slice(1, -1).filter((part) => part !== "");
  const firstPlaces = middle.map((part, i) => `(?=([\\s\\S]*?${part}))\\${i + 1}`).join("");
  return new RegExp(`^${parts[0]}${firstPlaces}[\\s\\S]*${parts.at(-1)}$`, "s");
}

/** Parses a pattern; throws a RangeError saying what is wrong and what a valid one looks like. */
export function parseAllowPattern(source: string): AllowPattern {
  const invalid = (why: string) =>
    new RangeError(
      `Invalid allow pattern ${JSON.stringify(source.slice(0, 200))}: ${why} (example: 'git *' or 'npm run test:*')`,
    );
  if (typeof source !== "string") {
    throw invalid("expected a string");
  }
  if (source.length > MAX_PATTERN_CHARS) {
    throw invalid(`longer than ${MAX_PATTERN_CHARS} characters`);
  }
  if (PATTERN_FORBIDDEN.test(source)) {
    throw invalid(
      "quotes, backslashes and newlines are not supported; words are separated by spaces",
    );
  }
  const words = source
    .trim()
    .split(/[ \t]+/)
    .filter((word) => word !== "");
  const [command] = words;
  if (command === undefined) {
    throw invalid("it is empty");
  }
  if (command.startsWith(FILE_PREFIX)) {
    const file = command.slice(FILE_PREFIX.length);
    if (file === "" || words.length > 1) {
      throw invalid("a file pattern is write: and one path, without spaces (write:src/*)");
    }
    return {
      source,
      program: FILE_PREFIX,
      words: [],
      anyRest: false,
      file: { path: wordRegExp(file), absolute: file.startsWith("/") },
    };
  }
  if (command.includes("*")) {
    throw invalid("the command (first word) must be written out, without *");
  }
  if (command.includes("/") && !command.startsWith("/")) {
    throw invalid(
      "a program given by path must be an absolute path (a relative one would mean another file in each cwd)",
    );
  }
  const anyRest = words.length > 1 && words.at(-1) === "*";
  const matched = anyRest ? words.slice(1, -1) : words.slice(1);
  return { source, program: command, words: matched.map(wordRegExp), anyRest };
}

/** The words a pattern is matched against, or undefined when the request cannot be matched. */
export function wordsOf(request: ApprovalRequest): readonly string[] | undefined {
  if (request.action === "write_file" || request.env.length > 0) {
    return undefined;
  }
  if (!request.shell) {
    return [request.command, ...request.args];
  }
  if (SHELL_SYNTAX.test(request.command)) {
    return undefined;
  }
  return request.command.trim().split(/[ \t]+/);
}

/**
 * Whether the request's first word is the pattern's program: the same name, found on PATH; or the
 * pattern's absolute path, which the request's program resolved to.
 */
function sameProgram(pattern: AllowPattern, word: string, program: unknown): boolean {
  if (typeof program !== "string") {
    return false; // not found, or a request made by hand without it
  }
  return pattern.program.startsWith("/")
    ? program === pattern.program
    : word === pattern.program && !word.includes("/");
}

/** Whether `pattern` approves starting the command of `request` (its words; see programRules for what else is checked). */
export function matchesAllowPattern(pattern: AllowPattern, request: ApprovalRequest): boolean {
  if (request.action === "write_file") {
    return (
      pattern.file !== undefined &&
      request.protected === undefined &&
      matchesFile(pattern.file, request.path, request.cwd)
    );
  }
  if (request.action !== "create" || pattern.file !== undefined) {
    return false;
  }
  const words = wordsOf(request);
  if (words === undefined) {
    return false;
  }
  const [first = "", ...rest] = words;
  if (!sameProgram(pattern, first, request.program)) {
    return false;
  }
  if (rest.length < pattern.words.length) {
    return false;
  }
  if (rest.length > pattern.words.length && !pattern.anyRest) {
    return false;
  }
  return pattern.words.every((regexp, i) => regexp.test(rest[i]!));
}

/** A file pattern against a path: absolute as is, relative from `cwd` (never past it). */
function matchesFile(
  file: NonNullable<AllowPattern["file"]>,
  target: string,
  cwd: string,
): boolean {
  if (file.absolute) {
    return file.path.test(target);
  }
  const prefix = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return target.startsWith(prefix) && file.path.test(target.slice(prefix.length));
}
