import { parseArgs } from "node:util";
import type { ApprovalFlags } from "acp-terminal/approval";
import { messageOf } from "acp-terminal/internal";
import { FLAG_OPTIONS } from "./flags.js";
import { hostFlags } from "./host-flags.js";
import { parseSeconds } from "./seconds.js";
import type { PermissionPolicy } from "./permission-policy.js";
import { invalidName, sessionFlags, type SessionFlags } from "./session-flags.js";
import type { TerminalLimits } from "./terminal-limits.js";

export interface RunOptions extends TerminalLimits {
  agent: string;
  /** The prompt argument; undefined: prompts are read from stdin (a TTY's, interactively). */
  prompt: string | undefined;
  /** `-f FILE`: the prompt is the file's text (`-`: stdin's, whole), after the argument if given. */
  promptFile?: string;
  /** `--lines`: piped stdin holds one prompt a line, a turn each (present only when set). */
  lines?: boolean;
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
  /** `--agent-stderr`: the agent's stderr is shown on ours, not logged (present only when set). */
  agentStderr?: boolean;
  /** Say on stderr how terminals are contained (present only when set). */
  verbose?: boolean;
  /** Process-group kill only: no launcher keeping each command's tree (present only when set). */
  noContain?: boolean;
  /** Each terminal in its own PID namespace (present only when set). */
  pidNamespace?: boolean;
  /** `--no-fs`: declare no file system; the agent reads and writes files itself (present only when set). */
  noFs?: boolean;
  /** Offer the terminals as MCP tools instead of v1 terminals (present only when set). */
  mcpTools?: boolean;
  /** Where the terminals' commands run (`--on`; present only when not this machine). */
  on?: string;
  /**
   * The dialect to speak, forced: v2 (the draft), v1 with `_meta` terminal output, or v1 client
   * terminals only; present only when forced (the default, `auto`, offers v2, else v1 with `_meta`).
   */
  protocol?: Exclude<Protocol, "auto">;
  /**
   * What decides the agent's permission requests before a person: `--approve-reads`, `--deny-all`
   * and `--permission-policy` (its source as given; run-command reads it into `policy`).
   */
  permissions?: {
    approveReads?: boolean;
    denyAll?: boolean;
    policySource?: string;
    policy?: PermissionPolicy;
  };
  /**
   * The short name of a known agent that runs its commands itself (claude, codex, gemini), set
   * when the name is resolved: `--sandbox` cannot reach those commands, and the CLI says so.
   */
  ownCommands?: string;
  /** The rest of the every-day client's flags (session, auth, files, MCP servers, quiet). */
  session?: SessionFlags;
}

export const PROTOCOLS = ["auto", "v2", "v1-meta", "v1"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export type ParsedCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "run"; options: RunOptions }
  | { kind: "error"; message: string };

/** An agent that has not answered `initialize` by then is taken for something else. */
export const DEFAULT_INIT_TIMEOUT_MS = 10_000;
/** After Ctrl-C, how long the agent gets to end its turn with `cancelled` before we quit anyway. */
export const DEFAULT_CANCEL_GRACE_MS = 2_000;

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
      options: FLAG_OPTIONS,
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
    return {
      kind: "error",
      message: `Unknown command: ${subcommand} (expected "run", "sessions", "mcp" or "proxy")`,
    };
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
  const timeoutMs = parseSeconds("--timeout", values.timeout);
  if (typeof timeoutMs === "string") {
    return { kind: "error", message: timeoutMs };
  }
  const initTimeoutMs =
    parseSeconds("--init-timeout", values["init-timeout"]) ?? DEFAULT_INIT_TIMEOUT_MS;
  if (typeof initTimeoutMs === "string") {
    return { kind: "error", message: initTimeoutMs };
  }
  const cancelGraceMs =
    parseSeconds("--cancel-grace", values["cancel-grace"]) ?? DEFAULT_CANCEL_GRACE_MS;
  if (typeof cancelGraceMs === "string") {
    return { kind: "error", message: cancelGraceMs };
  }
  const protocol = PROTOCOLS.find((name) => name === values.protocol);
  if (protocol === undefined) {
    return {
      kind: "error",
      message: `Invalid --protocol: expected one of ${PROTOCOLS.join(", ")}, received ${JSON.stringify(values.protocol)}`,
    };
  }
  if (values.name !== undefined) {
    const problem =
      values.session === undefined
        ? invalidName(values.name)
        : "--session and --name exclude each other: give one";
    if (problem !== undefined) {
      return { kind: "error", message: problem };
    }
  }
  if (values["deny-all"] && (values.yes || values["approve-reads"])) {
    return {
      kind: "error",
      message: `--deny-all and ${values.yes ? "--yes" : "--approve-reads"} exclude each other: give one`,
    };
  }
  const policySource = values["permission-policy"] ?? values.policy;
  if (values["agent-stderr"] && values["agent-log"] !== undefined) {
    return {
      kind: "error",
      message: "--agent-stderr and --agent-log exclude each other: give one",
    };
  }
  const sessionCwd = resolvePath(cwd, values.cwd ?? ".");
  const host = hostFlags(values, sessionCwd);
  if (typeof host === "string") {
    return { kind: "error", message: host };
  }
  const { approval, on, maxTerminals, maxTotalTerminals } = host;
  return {
    kind: "run",
    options: {
      agent: values.agent,
      prompt: rest.length === 0 || promptWords === "-" ? undefined : promptWords,
      ...(values.file === undefined
        ? {}
        : { promptFile: values.file === "-" ? "-" : resolvePath(cwd, values.file) }),
      ...(values.lines ? { lines: true } : {}),
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
      ...(values["agent-stderr"] ? { agentStderr: true } : {}),
      maxTerminals,
      maxTotalTerminals,
      ...(protocol === "auto" ? {} : { protocol }),
      ...sessionFlags(values, cwd, resolvePath),
      ...(values.verbose ? { verbose: true } : {}),
      ...(host.noContain ? { noContain: true } : {}),
      ...(host.pidNamespace ? { pidNamespace: true } : {}),
      ...(values["mcp-tools"] ? { mcpTools: true } : {}),
      ...(values["no-fs"] ? { noFs: true } : {}),
      ...(values["approve-reads"] || values["deny-all"] || policySource !== undefined
        ? {
            permissions: {
              ...(values["approve-reads"] ? { approveReads: true } : {}),
              ...(values["deny-all"] ? { denyAll: true } : {}),
              ...(policySource === undefined ? {} : { policySource }),
            },
          }
        : {}),
      ...(on !== undefined ? { on } : {}),
    },
  };
}

/** The TerminalHost `containment` option the flags ask for. */
export function containmentOption(options: {
  noContain?: boolean;
  pidNamespace?: boolean;
}): "auto" | "pid-namespace" | "off" {
  return options.noContain ? "off" : options.pidNamespace ? "pid-namespace" : "auto";
}
