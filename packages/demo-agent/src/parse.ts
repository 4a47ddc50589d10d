import { messageOf } from "acp-terminal/internal";
/** One prompt of the command language, parsed. */
export type Command =
  | { name: "run"; command: string; timeoutSeconds: number; idleSeconds?: number }
  | { name: "bg"; command: string; stdin: boolean; pty: boolean }
  | { name: "send"; id: string; text: string | null; eof: boolean }
  | { name: "keys"; id: string; keys: string[] }
  | { name: "poll"; id: string }
  | { name: "log"; id: string; lines: number }
  | { name: "kill"; id: string; signal?: string }
  | { name: "list" }
  | { name: "watch"; id: string; regex: string }
  | { name: "help" }
  | { name: "demo" }
  | { name: "invalid"; message: string };

export const DEFAULT_RUN_TIMEOUT_S = 30;
export const DEFAULT_LOG_LINES = 20;
export const MAX_LOG_LINES = 500;

export const COMMAND_HELP = [
  "run [--timeout S] <cmd>   run a command in the foreground (default timeout 30 s)",
  "run --idle S <cmd>        the same, also stopped after S seconds without output",
  "bg <cmd>                  start a command in the background; its exit is reported when it ends",
  "bg --stdin <cmd>          the same, with stdin open for send and keys (bg --pty <cmd>: in a PTY)",
  "send <id> <text>          write a line to a run's stdin (send --eof <id> [text]: then close it)",
  "keys <id> <key>...        type named keys into a run: keys run_1 y Enter, keys run_1 C-c",
  "poll <id>                 output of a run since the previous poll (by cursor)",
  "log <id> [n]              the last n lines of a run (default 20)",
  "kill <id>                 kill a run and everything it started",
  "kill --signal SIGINT <id> send that signal instead (forced after 2 s if it does not end)",
  "list                      every run of this session",
  "watch <id> <regex>        report each output line of a run that matches",
  "demo                      a scripted tour of acp-process (8 steps, a few seconds)",
  "help                      this list",
].join("\n");

function invalid(message: string): Command {
  return { name: "invalid", message };
}

/** Splits off the first whitespace-delimited word; `rest` keeps the remaining text as typed. */
function firstWord(text: string): { word: string; rest: string } {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(text.trim());
  return match ? { word: match[1]!, rest: match[2]!.trim() } : { word: "", rest: "" };
}

const RUN_FLAG = /^--(timeout|idle)(?:=|\s+)(\S+)\s*([\s\S]*)$/;

/** `run [--timeout S] [--idle S] <cmd>`: the flags come first; the rest is the command line as typed. */
function parseRun(rest: string): Command {
  let timeoutSeconds = DEFAULT_RUN_TIMEOUT_S;
  let idleSeconds: number | undefined;
  let command = rest;
  let flag: RegExpExecArray | null;
  while ((flag = RUN_FLAG.exec(command)) !== null) {
    const seconds = Number(flag[2]);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      return invalid(
        `run --${flag[1]} expects a number of seconds above 0, received "${flag[2]}".`,
      );
    }
    if (flag[1] === "timeout") {
      timeoutSeconds = seconds;
    } else {
      idleSeconds = seconds;
    }
    command = flag[3]!.trim();
  }
  if (command === "") {
    return invalid('run needs a command, e.g. "run ls -la".');
  }
  return {
    name: "run",
    command,
    timeoutSeconds,
    ...(idleSeconds !== undefined ? { idleSeconds } : {}),
  };
}

const BG_FLAG = /^--(stdin|pty)(?:\s+|$)([\s\S]*)$/;

/** `bg [--stdin] [--pty] <cmd>`: the flags come first; the rest is the command line as typed. */
function parseBg(rest: string): Command {
  let command = rest;
  let stdin = false;
  let pty = false;
  let flag: RegExpExecArray | null;
  while ((flag = BG_FLAG.exec(command)) !== null) {
    if (flag[1] === "stdin") {
      stdin = true;
    } else {
      pty = true;
    }
    command = flag[2]!.trim();
  }
  if (command === "") {
    return invalid('bg needs a command, e.g. "bg npm run build" or "bg --stdin python3 -i".');
  }
  return { name: "bg", command, stdin, pty };
}

/** `send [--eof] <id> <text>`: the text is the rest of the prompt as typed; with --eof it may be omitted. */
function parseSend(rest: string): Command {
  const flag = /^--eof(?:\s+|$)([\s\S]*)$/.exec(rest);
  const { word: id, rest: text } = firstWord(flag ? flag[1]! : rest);
  if (id === "" || (text === "" && !flag)) {
    return invalid(
      'send expects a run id and a line of text, e.g. "send run_1a2b3c4d5e yes", or "send --eof run_1a2b3c4d5e" to close its stdin.',
    );
  }
  return { name: "send", id, text: text === "" ? null : text, eof: flag !== null };
}

function parseKeys(rest: string): Command {
  const [id, ...keys] = rest.split(/\s+/).filter(Boolean);
  if (id === undefined || keys.length === 0) {
    return invalid(
      'keys expects a run id and key names, e.g. "keys run_1a2b3c4d5e y Enter" or "keys run_1a2b3c4d5e C-c".',
    );
  }
  return { name: "keys", id, keys };
}

function parseId(name: "poll" | "kill", rest: string): Command {
  const { word, rest: extra } = firstWord(rest);
  if (word === "" || extra !== "") {
    return invalid(
      `${name} expects one run id, e.g. "${name} run_1a2b3c4d5e" (ids are shown by bg and list).`,
    );
  }
  return { name, id: word };
}

/** `kill [--signal NAME] <id>`; acp-process checks the name (one of acp-terminal's supported signals). */
function parseKill(rest: string): Command {
  const flag = /^--signal(?:=|\s+)(\S+)\s*([\s\S]*)$/.exec(rest);
  if (!flag) {
    return parseId("kill", rest);
  }
  const command = parseId("kill", flag[2]!);
  return command.name === "kill" ? { ...command, signal: flag[1]! } : command;
}

function parseLog(rest: string): Command {
  const [id, count, ...extra] = rest.split(/\s+/).filter(Boolean);
  if (id === undefined || extra.length > 0) {
    return invalid(
      'log expects a run id and an optional line count, e.g. "log run_1a2b3c4d5e 50".',
    );
  }
  if (count === undefined) {
    return { name: "log", id, lines: DEFAULT_LOG_LINES };
  }
  const lines = Number(count);
  if (!Number.isInteger(lines) || lines < 1 || lines > MAX_LOG_LINES) {
    return invalid(`log expects a line count from 1 to ${MAX_LOG_LINES}, received "${count}".`);
  }
  return { name: "log", id, lines };
}

function parseWatch(rest: string): Command {
  const { word: id, rest: pattern } = firstWord(rest);
  if (id === "" || pattern === "") {
    return invalid(
      'watch expects a run id and a regular expression, e.g. "watch run_1a2b3c4d5e ERROR|done".',
    );
  }
  // Accept /regex/ as people often type it.
  const regex = /^\/(.+)\/$/.exec(pattern)?.[1] ?? pattern;
  try {
    new RegExp(regex);
  } catch (error) {
    return invalid(`watch: not a valid regular expression: ${regex} (${messageOf(error)}).`);
  }
  return { name: "watch", id, regex };
}

/** Parses a prompt. Never throws: mistakes come back as `invalid` with a message saying what is wrong. */
export function parseCommand(text: string): Command {
  const { word, rest } = firstWord(text);
  const name = word.toLowerCase();
  switch (name) {
    case "run":
      return parseRun(rest);
    case "bg":
      return parseBg(rest);
    case "send":
      return parseSend(rest);
    case "keys":
      return parseKeys(rest);
    case "poll":
      return parseId("poll", rest);
    case "kill":
      return parseKill(rest);
    case "log":
      return parseLog(rest);
    case "watch":
      return parseWatch(rest);
    case "list":
    case "help":
    case "demo":
      return rest === "" ? { name } : invalid(`${word} takes no arguments.`);
    case "":
      return invalid("The prompt is empty.");
    default:
      return invalid(`Unknown command: ${word}.`);
  }
}
