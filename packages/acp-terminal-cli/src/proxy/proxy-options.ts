import type { Readable, Writable } from "node:stream";
import { parseArgs, type ParseArgsConfig } from "node:util";
import {
  APPROVAL_FLAG_OPTIONS,
  approvalFlagsHelp,
  type ApprovalFlags,
} from "acp-terminal/approval";
import { messageOf } from "acp-terminal/internal";
import { KNOWN_AGENT_NAMES } from "../agent/known-agents.js";
import { containmentOption } from "../command/args.js";
import { hostFlags } from "../command/host-flags.js";
import type { TerminalLimits } from "../command/terminal-limits.js";

/** Who serves the agent's `terminal/*`: the proxy, the editor, or the proxy when the editor has none. */
export const TERMINAL_MODES = ["auto", "serve", "forward"] as const;
export type TerminalsMode = (typeof TERMINAL_MODES)[number];

/** Lines of a running command's screen shown by default (`--lines`). */
export const DEFAULT_LIVE_LINES = 40;
/** The most `--lines` takes: a tool call's text is sent again at every update. */
export const MAX_LIVE_LINES = 1000;

export interface ProxyOptions extends TerminalLimits {
  /** The agent's command line; undefined: a proxy-chain component (its successor is the conductor's). */
  agent: string | undefined;
  terminals: TerminalsMode;
  /** Newest lines of a running command's screen shown in its tool call. */
  liveLines: number;
  /** The sandbox's workspace, and the terminals' cwd when a session names none. */
  cwd: string;
  pty: boolean;
  approval: ApprovalFlags;
  containment: "auto" | "pid-namespace" | "off";
  /** `--on`: present only when not this machine. */
  on?: string;
  agentLog?: string;
  verbose: boolean;
}

/** Where the proxy runs: the editor's side is its stdio. */
export interface ProxyIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export type ParsedProxyCommand =
  { kind: "proxy"; options: ProxyOptions } | { kind: "help" } | { kind: "error"; message: string };

const PROXY_FLAGS = {
  terminals: { type: "string", default: "auto" },
  lines: { type: "string" },
  cwd: { type: "string" },
  pty: { type: "boolean", default: false },
  ...APPROVAL_FLAG_OPTIONS,
  on: { type: "string" },
  "no-contain": { type: "boolean", default: false },
  "pid-namespace": { type: "boolean", default: false },
  "max-terminals": { type: "string" },
  "max-total-terminals": { type: "string" },
  "agent-log": { type: "string" },
  verbose: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} satisfies ParseArgsConfig["options"];

export const PROXY_USAGE = `Usage:
  acp-terminal proxy [options] -- <agent command> [args...]
  acp-terminal proxy [options] <name>     (a known agent: ${KNOWN_AGENT_NAMES.join(", ")})
  acp-terminal proxy [options]            (under a conductor: a proxy-chain component)

An ACP proxy between an editor (its stdin and stdout) and an agent: every message passes through
unchanged, but the agent gets terminals (terminal/* served here, asked through the editor's
permission UI), and commands whose output the editor cannot show (its own terminals missing, the
agent's _meta terminal output, a v2 agent's terminals) come to the editor as text in their tool
calls. An agent that speaks only ACP v2 is spoken to in v2, a v1 editor in v1.

Options:
  --terminals MODE   who serves the agent's terminal/*: auto (default: this proxy when the editor
                     advertises no terminal, else the editor), serve (always this proxy), forward
                     (always the editor)
  --lines N          newest lines of a running command shown in its tool call (default ${DEFAULT_LIVE_LINES})
  --cwd DIR          the sandbox's workspace, and where commands run when a session names no cwd
                     (default: the current directory)
  --pty              run the agent's terminals in a pseudo-terminal
${approvalFlagsHelp(21)}
  --on WHERE         run the commands elsewhere: ssh://[user@]host[:port], docker://CONTAINER,
                     docker-image://IMAGE (as in acp-terminal run)
  --no-contain       kill reaches each command's process group only
  --pid-namespace    each terminal in its own PID namespace
  --max-terminals N  live terminals a session may hold (default 64)
  --max-total-terminals N
                     live terminals in all (default 1024, or --max-terminals if higher)
  --agent-log FILE   write the agent's stderr to FILE instead of this stderr
  --verbose          say on stderr how terminals are served, contained and sandboxed
  --help, -h         this help

Without --yes or an --allow pattern that matches, each command is asked about in the editor
(session/request_permission: allow once, allow for the session, deny); an editor that cannot ask
refuses it, and the agent is told why. Exits with the agent's exit status.
`;

/** Words as one shell command line: each quoted unless it is plainly safe. */
function shellLine(words: readonly string[]): string {
  return words
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`))
    .join(" ");
}

/**
 * `acp-terminal proxy`'s arguments (after the word `proxy`). The agent is what follows the options:
 * one word is a command line or a known name (resolved at launch, as `run --agent` resolves it),
 * several are the agent's argv, quoted into one line; none makes a proxy-chain component. Never
 * throws: errors come back as values naming the flag.
 */
export function parseProxyCommand(
  argv: string[],
  cwd: string,
  resolvePath: (base: string, p: string) => string,
): ParsedProxyCommand {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: PROXY_FLAGS });
  } catch (error) {
    return { kind: "error", message: messageOf(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) {
    return { kind: "help" };
  }
  const terminals = TERMINAL_MODES.find((mode) => mode === values.terminals);
  if (terminals === undefined) {
    return {
      kind: "error",
      message: `Invalid --terminals: expected one of ${TERMINAL_MODES.join(", ")}, received ${JSON.stringify(values.terminals.slice(0, 100))}`,
    };
  }
  const liveLines = values.lines === undefined ? DEFAULT_LIVE_LINES : Number(values.lines);
  if (!Number.isInteger(liveLines) || liveLines < 1 || liveLines > MAX_LIVE_LINES) {
    return {
      kind: "error",
      message: `Invalid --lines: expected a whole number of lines from 1 to ${MAX_LIVE_LINES}, received ${JSON.stringify(values.lines?.slice(0, 100))}`,
    };
  }
  const workspace = resolvePath(cwd, values.cwd ?? ".");
  const host = hostFlags(values, workspace);
  if (typeof host === "string") {
    return { kind: "error", message: host };
  }
  const agent =
    positionals.length === 0
      ? undefined
      : positionals.length === 1
        ? positionals[0]
        : shellLine(positionals);
  if (agent !== undefined && agent.trim() === "") {
    return { kind: "error", message: "Empty agent command: give it after --, or a known name" };
  }
  return {
    kind: "proxy",
    options: {
      agent,
      terminals,
      liveLines,
      cwd: workspace,
      pty: values.pty,
      approval: host.approval,
      containment: containmentOption(host),
      maxTerminals: host.maxTerminals,
      maxTotalTerminals: host.maxTotalTerminals,
      ...(host.on === undefined ? {} : { on: host.on }),
      ...(values["agent-log"] === undefined ? {} : { agentLog: values["agent-log"] }),
      verbose: values.verbose,
    },
  };
}
