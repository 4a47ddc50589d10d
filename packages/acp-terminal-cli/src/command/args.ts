import { parseArgs } from "node:util";
import {
  APPROVAL_FLAG_OPTIONS,
  approvalFlagsHelp,
  approvalFlags,
  checkExecutorTarget,
  type ApprovalFlags,
} from "acp-terminal";
import { EXIT_CODES_HELP } from "../exit-codes.js";
import { terminalLimits, type TerminalLimits } from "./terminal-limits.js";
import { KNOWN_AGENT_NAMES } from "../agent/known-agents.js";
import { SANDBOX_WITH_ON } from "acp-terminal";
import { messageOf } from "acp-terminal/internal";

export interface RunOptions extends TerminalLimits {
  agent: string;
  /** The one prompt of the run; undefined: prompts are read from stdin (a TTY's, interactively). */
  prompt: string | undefined;
  /** Absolute path given to `session/new` and used as the terminals' default cwd. */
  cwd: string;
  pty: boolean;
  yes: boolean;
  /** `--allow` patterns: commands the agent may start without asking. */
  allow: string[];
  /** `--yes`, `--allow`, `--sandbox`, `--sandbox-network`, in the words acp-terminal mcp shares. */
  approval: ApprovalFlags;
  json: boolean;
  /** Whole-run deadline in milliseconds, or undefined for none. */
  timeoutMs?: number | undefined;
  /** How long the agent may take to answer `initialize`. */
  initTimeoutMs: number;
  /** After Ctrl-C, how long the agent gets to end its turn with `cancelled`. */
  cancelGraceMs: number;
  agentLog?: string | undefined;
  /** Say on stderr how terminals are contained (present only when set). */
  verbose?: boolean;
  /** Process-group kill only: no launcher keeping each command's tree (present only when set). */
  noContain?: boolean;
  /** Each terminal in its own PID namespace (present only when set). */
  pidNamespace?: boolean;
  /** Offer the terminals as MCP tools instead of v1 terminals (present only when set). */
  mcpTools?: boolean;
  /** Where the terminals' commands run (`--on`; present only when not this machine). */
  on?: string;
  /**
   * The dialect to speak, forced: v2 (the draft), v1 with `_meta` terminal output, or v1 client
   * terminals only; present only when forced (the default, `auto`, offers v2, else v1 with `_meta`).
   */
  protocol?: Exclude<Protocol, "auto">;
  /** The rest of the every-day client's flags (session, auth, files, MCP servers, quiet). */
  session?: SessionFlags;
}

/** `--session`, `--auth`, `--fs-allow`, `--mcp-config`, `--quiet`: each present only when given. */
export interface SessionFlags {
  /** `--session ID`: load or resume this session instead of starting one. */
  resume?: string;
  /** `--auth METHOD`: authenticate with this method before the session. */
  auth?: string;
  /** `--fs-allow DIR`: directories besides the session's cwd the agent's file requests may reach. */
  fsAllow?: string[];
  /** `--mcp-config FILE`: the user's MCP servers (the format MCP hosts use), for the agent. */
  mcpConfig?: string;
  /** `--quiet`: print only the agent's final message. */
  quiet?: boolean;
}

export const PROTOCOLS = ["auto", "v2", "v1-meta", "v1"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export type ParsedCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "run"; options: RunOptions }
  | { kind: "error"; message: string };

export const USAGE = `Usage:
  acp-terminal run --agent "<command line>" [options] ["<prompt>" | -]
  acp-terminal run --agent <name> [options] ["<prompt>" | -]   (a known agent: claude, codex …)
  acp-terminal mcp [options]   (an MCP server of command tools: acp-terminal mcp --help)
  acp-terminal --help | --version

Runs an ACP agent, sends it the prompt, shows the commands it runs live, and prints what it does.
Without a prompt (or with -): one prompt a line from stdin when piped; on a terminal, a session
you type into (Ctrl-C cancels the turn, twice quits; Ctrl-D ends the session).

Options:
  --agent CMD        the agent's command line (run through the shell), e.g. "npx my-agent --acp",
                     or a known name (~/.config/acp-terminal/agents.json adds and overrides):
                     ${KNOWN_AGENT_NAMES.join(", ")}
  --cwd DIR          the session's working directory (default: the current directory)
  --pty              run the agent's terminals in a pseudo-terminal
${approvalFlagsHelp(21)}
  --json             one JSON object per line on stdout, for programs
  --timeout S        give up after S seconds for the whole run
  --init-timeout S   how long the agent may take to answer initialize (default 10)
  --cancel-grace S   after Ctrl-C, how long the agent may take to end its turn (default 2)
  --agent-log FILE   write the agent's stderr to FILE instead of this stderr
  --max-terminals N  live terminals the session may hold (default 64)
  --max-total-terminals N
                     live terminals in all (default 1024, or --max-terminals if higher)
  --verbose          say on stderr how terminals are contained (process tree, PID namespace or
                     process group) and sandboxed
  --no-contain       kill reaches each command's process group only: what leaves it (setsid, a
                     double fork) outlives its terminal
  --pid-namespace    each terminal in its own PID namespace: commands see namespace pids ($$, $!,
                     ps), which mean nothing to the agent or to other terminals
  --on WHERE         run the terminals' commands elsewhere: ssh://[user@]host[:port] (as ssh
                     resolves it, ~/.ssh/config included), docker://CONTAINER, or
                     docker-image://IMAGE (a container per session with --cwd mounted at the
                     same path); --cwd is then a path there. Needs perl there.
  --mcp-tools        offer the terminals as MCP tools (exec, process) instead of v1 terminals:
                     over the ACP connection when the agent takes it (mcpCapabilities.acp), else
                     as the stdio server acp-terminal mcp with this cwd, --yes/--allow, --sandbox
  --protocol V       the dialect: auto (default: v2 if the agent speaks it, else v1 with _meta
                     terminal output, which serves client terminals too), or one forced: v2 (the
                     draft: agent-owned terminals; Ctrl-C sends terminal/cancel first), v1-meta,
                     v1 (client terminals; _meta output the agent sends anyway is still shown)
  --session ID       load or resume that session (session/resume, else session/load)
  --auth METHOD      log in with one of the agent's authMethods first (a terminal login runs here)
  --fs-allow DIR     let the agent's file requests reach DIR too (default: the session's cwd only)
  --mcp-config FILE  pass the MCP servers of FILE ({"mcpServers": {...}}, as MCP hosts write it)
  --quiet            print only the agent's final message (errors still on stderr)
  --help, -h         this help
  --version          the version

${EXIT_CODES_HELP}
`;

/** An agent that has not answered `initialize` by then is taken for something else. */
export const DEFAULT_INIT_TIMEOUT_MS = 10_000;
/** After Ctrl-C, how long the agent gets to end its turn with `cancelled` before we quit anyway. */
export const DEFAULT_CANCEL_GRACE_MS = 2_000;

/** The longest delay setTimeout honours (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A positive number of seconds as milliseconds, undefined when absent, or an error message. */
function seconds(flag: string, value: string | undefined): number | string | undefined {
  if (value === undefined) {
    return undefined;
  }
  const ms = Math.round(Number(value) * 1000);
  // Below 1 ms rounds to no time at all (0.0001).
  if (value.trim() === "" || !Number.isFinite(ms) || ms < 1) {
    return `Invalid ${flag}: expected a positive number of seconds, received ${JSON.stringify(value)}`;
  }
  // Node fires a longer timer at once (TimeoutOverflowWarning): a huge value must not mean "now".
  if (ms > MAX_TIMER_MS) {
    return `Invalid ${flag}: at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds, received ${JSON.stringify(value)}`;
  }
  return ms;
}

/** Parses argv (without node and the script). Never throws: errors come back as values. */
export function parseCommand(
  argv: string[],
  cwd: string,
  resolvePath: (base: string, p: string) => string,
): ParsedCommand {
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
        ...APPROVAL_FLAG_OPTIONS,
        json: { type: "boolean", default: false },
        timeout: { type: "string" },
        "init-timeout": { type: "string" },
        "cancel-grace": { type: "string" },
        "agent-log": { type: "string" },
        "max-terminals": { type: "string" },
        "max-total-terminals": { type: "string" },
        verbose: { type: "boolean", default: false },
        "no-contain": { type: "boolean", default: false },
        "pid-namespace": { type: "boolean", default: false },
        "mcp-tools": { type: "boolean", default: false },
        on: { type: "string" },
        protocol: { type: "string", default: "auto" },
        session: { type: "string" },
        auth: { type: "string" },
        "fs-allow": { type: "string", multiple: true, default: [] },
        "mcp-config": { type: "string" },
        quiet: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
        version: { type: "boolean", default: false },
      },
    });
  } catch (error) {
    return { kind: "error", message: messageOf(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) {
    return { kind: "help" };
  }
  if (values.version) {
    return { kind: "version" };
  }
  const [subcommand, ...rest] = positionals;
  if (subcommand === undefined) {
    return { kind: "help" };
  }
  if (subcommand !== "run") {
    return { kind: "error", message: `Unknown command: ${subcommand} (expected "run")` };
  }
  if (values.agent === undefined || values.agent.trim() === "") {
    return {
      kind: "error",
      message: 'Missing --agent: give the agent\'s command line, e.g. --agent "npx my-agent"',
    };
  }
  const promptWords = rest.join(" ");
  if (rest.length > 0 && promptWords.trim() === "") {
    return { kind: "error", message: "Empty prompt: give it as the last argument, or - for stdin" };
  }
  const timeoutMs = seconds("--timeout", values.timeout);
  if (typeof timeoutMs === "string") {
    return { kind: "error", message: timeoutMs };
  }
  const initTimeoutMs =
    seconds("--init-timeout", values["init-timeout"]) ?? DEFAULT_INIT_TIMEOUT_MS;
  if (typeof initTimeoutMs === "string") {
    return { kind: "error", message: initTimeoutMs };
  }
  const cancelGraceMs =
    seconds("--cancel-grace", values["cancel-grace"]) ?? DEFAULT_CANCEL_GRACE_MS;
  if (typeof cancelGraceMs === "string") {
    return { kind: "error", message: cancelGraceMs };
  }
  const approval = approvalFlags(values);
  if (typeof approval === "string") {
    return { kind: "error", message: approval };
  }
  const protocol = PROTOCOLS.find((name) => name === values.protocol);
  if (protocol === undefined) {
    return {
      kind: "error",
      message: `Invalid --protocol: expected one of ${PROTOCOLS.join(", ")}, received ${JSON.stringify(values.protocol)}`,
    };
  }
  if (values["no-contain"] && values["pid-namespace"]) {
    return {
      kind: "error",
      message: "--no-contain and --pid-namespace exclude each other: give one",
    };
  }
  const limits = terminalLimits(values["max-terminals"], values["max-total-terminals"]);
  if (typeof limits === "string") {
    return { kind: "error", message: limits };
  }
  const sessionCwd = resolvePath(cwd, values.cwd ?? ".");
  const on = values.on === undefined ? undefined : executorTarget(values.on, sessionCwd);
  if (on?.startsWith("Invalid")) {
    return { kind: "error", message: on };
  }
  if (on !== undefined && on !== "local" && approval.sandbox !== "off") {
    return { kind: "error", message: SANDBOX_WITH_ON };
  }
  return {
    kind: "run",
    options: {
      agent: values.agent,
      prompt: rest.length === 0 || promptWords === "-" ? undefined : promptWords,
      cwd: sessionCwd,
      pty: values.pty,
      yes: values.yes,
      allow: values.allow,
      approval,
      json: values.json,
      timeoutMs,
      initTimeoutMs,
      cancelGraceMs,
      agentLog: values["agent-log"],
      ...limits,
      ...(protocol === "auto" ? {} : { protocol }),
      ...sessionFlags(values, cwd, resolvePath),
      ...(values.verbose ? { verbose: true } : {}),
      ...(values["no-contain"] ? { noContain: true } : {}),
      ...(values["pid-namespace"] ? { pidNamespace: true } : {}),
      ...(values["mcp-tools"] ? { mcpTools: true } : {}),
      ...(on !== undefined && on !== "local" ? { on } : {}),
    },
  };
}

/** The every-day client's flags, each present only when given. */
function sessionFlags(
  values: {
    session?: string | undefined;
    auth?: string | undefined;
    "fs-allow": string[];
    "mcp-config"?: string | undefined;
    quiet: boolean;
  },
  cwd: string,
  resolvePath: (base: string, p: string) => string,
): { session?: SessionFlags } {
  const flags: SessionFlags = {
    ...(values.session === undefined ? {} : { resume: values.session }),
    ...(values.auth === undefined ? {} : { auth: values.auth }),
    ...(values["fs-allow"].length === 0
      ? {}
      : { fsAllow: values["fs-allow"].map((dir) => resolvePath(cwd, dir)) }),
    ...(values["mcp-config"] === undefined
      ? {}
      : { mcpConfig: resolvePath(cwd, values["mcp-config"]) }),
    ...(values.quiet ? { quiet: true } : {}),
  };
  return Object.keys(flags).length === 0 ? {} : { session: flags };
}

/**
 * `--on` checked (an error message when wrong); `docker-image://` without a workspace gets the
 * session's cwd mounted at the same path, so the paths the agent sees are valid in the container.
 */
function executorTarget(on: string, sessionCwd: string): string {
  const problem = checkExecutorTarget(on);
  if (problem !== undefined) {
    return `Invalid --on: ${problem}`;
  }
  if (!on.startsWith("docker-image://") || /[?&]workspace=/.test(on)) {
    return on;
  }
  return `${on}${on.includes("?") ? "&" : "?"}workspace=${encodeURIComponent(sessionCwd)}`;
}

/** The TerminalHost `containment` option the flags ask for. */
export function containmentOption(options: {
  noContain?: boolean;
  pidNamespace?: boolean;
}): "auto" | "pid-namespace" | "off" {
  return options.noContain ? "off" : options.pidNamespace ? "pid-namespace" : "auto";
}
