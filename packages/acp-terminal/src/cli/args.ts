import { parseArgs } from "node:util";
import { EXIT_CODES_HELP } from "./exit-codes.js";

export interface RunOptions {
  agent: string;
  prompt: string;
  /** Absolute path given to `session/new` and used as the terminals' default cwd. */
  cwd: string;
  pty: boolean;
  yes: boolean;
  json: boolean;
  /** Whole-run deadline in milliseconds, or undefined for none. */
  timeoutMs?: number;
  agentLog?: string;
}

export type ParsedCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "run"; options: RunOptions }
  | { kind: "error"; message: string };

export const USAGE = `Usage:
  acp-terminal run --agent "<command line>" [options] "<prompt>"
  acp-terminal --help | --version

Runs an ACP agent, sends it one prompt, hosts the terminals it asks for, and prints what it does.

Options:
  --agent CMD        the agent's command line (run through the shell), e.g. "npx my-agent --acp"
  --cwd DIR          the session's working directory (default: the current directory)
  --pty              run the agent's terminals in a pseudo-terminal
  --yes, -y          allow every permission request (picks the first allow option)
  --json             one JSON object per line on stdout, for programs
  --timeout S        give up after S seconds for the whole run
  --agent-log FILE   write the agent's stderr to FILE instead of this stderr
  --help, -h         this help
  --version          the version

${EXIT_CODES_HELP}
`;

/** Parses argv (without node and the script). Never throws: errors come back as values. */
export function parseCommand(argv: string[], cwd: string, resolvePath: (base: string, p: string) => string): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        agent: { type: "string" },
        cwd: { type: "string" },
        pty: { type: "boolean", default: false },
        yes: { type: "boolean", short: "y", default: false },
        json: { type: "boolean", default: false },
        timeout: { type: "string" },
        "agent-log": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", default: false },
      },
    });
  } catch (error) {
    return { kind: "error", message: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const [subcommand, ...rest] = positionals;
  if (subcommand === undefined) return { kind: "help" };
  if (subcommand !== "run") {
    return { kind: "error", message: `Unknown command: ${subcommand} (expected "run")` };
  }
  if (values.agent === undefined || values.agent.trim() === "") {
    return { kind: "error", message: 'Missing --agent: give the agent\'s command line, e.g. --agent "npx my-agent"' };
  }
  if (rest.length === 0 || rest.join(" ").trim() === "") {
    return { kind: "error", message: "Missing prompt: give it as the last argument" };
  }
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      return { kind: "error", message: `Invalid --timeout: expected a positive number of seconds, received ${JSON.stringify(values.timeout)}` };
    }
    timeoutMs = Math.round(seconds * 1000);
  }
  return {
    kind: "run",
    options: {
      agent: values.agent,
      prompt: rest.join(" "),
      cwd: resolvePath(cwd, values.cwd ?? "."),
      pty: values.pty,
      yes: values.yes,
      json: values.json,
      timeoutMs,
      agentLog: values["agent-log"],
    },
  };
}
