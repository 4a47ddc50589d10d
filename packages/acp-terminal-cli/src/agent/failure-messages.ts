import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import type { AgentExit } from "./agent-process.js";
import { leadingProgram } from "./command-lookup.js";

export interface Ending {
  exitCode: ExitCodeValue;
  stopReason?: string;
  error?: string;
  /** `--auth` named a terminal login: run it in the user's terminal, then start again. */
  login?: TerminalLogin;
}

/** A terminal login: the agent's command line with these arguments and variables. */
export interface TerminalLogin {
  methodId: string;
  args: string[];
  env: Record<string, string>;
}

/** Where the agent's stderr went, for "see …" hints. */
export function stderrHint(agentLogPath: string | undefined): string {
  return agentLogPath === undefined ? "see its stderr above" : `see ${agentLogPath}`;
}

export function commandNotFound(commandLine: string, shellSaid?: string): Ending {
  const program = leadingProgram(commandLine);
  if (program !== undefined) {
    return { exitCode: ExitCode.usage, error: `Agent command not found: ${program}` };
  }
  const said = shellSaid === undefined ? "" : `; the shell said: ${shellSaid}`;
  return { exitCode: ExitCode.usage, error: `Agent command not found in "${commandLine}"${said}` };
}

export function notAcp(commandLine: string, snippet: string): Ending {
  return {
    exitCode: ExitCode.agentFailed,
    error: `Not an ACP agent: "${commandLine}" wrote ${JSON.stringify(snippet)} on stdout where JSON-RPC was expected`,
  };
}

function describeExit(exit: AgentExit): string {
  if (exit.error !== undefined) {
    return `could not be started (${exit.error.message})`;
  }
  if (exit.signal !== null) {
    return `was killed by ${exit.signal}`;
  }
  return `exited with code ${exit.code}`;
}

/** The agent was silent for `--init-timeout`. */
export function initTimedOut(commandLine: string, timeoutMs: number): Ending {
  return {
    exitCode: ExitCode.agentFailed,
    error: `Not an ACP agent: "${commandLine}" did not answer initialize within ${timeoutMs / 1000} s (if it is just slow to start, raise --init-timeout)`,
  };
}

/** The agent process ended; `phase` says when ("before answering initialize", "during the turn"). */
export function agentExited(
  exit: AgentExit,
  phase: string,
  commandLine: string,
  agentLogPath?: string,
  lastStderrLine?: string,
): Ending {
  if (exit.code === 127 && phase.startsWith("before")) {
    return commandNotFound(commandLine, lastStderrLine);
  }
  return {
    exitCode: ExitCode.agentFailed,
    error: `Agent ${describeExit(exit)} ${phase}; ${stderrHint(agentLogPath)}`,
  };
}

/** Characters of an error's `data` quoted on a failure line. */
const MAX_DATA_CHARS = 600;

/**
 * An error's `data` as words for its failure line: `(details: Query closed before response
 * received)`, `(envVars: ["CODEX_API_KEY","OPENAI_API_KEY"])`; empty without data. Cut to
 * MAX_DATA_CHARS, whatever its size or depth.
 */
export function describeErrorData(error: unknown): string {
  const data: unknown =
    typeof error === "object" && error !== null && "data" in error ? error.data : undefined;
  if (data === undefined || data === null) {
    return "";
  }
  const parts =
    typeof data === "object" && !Array.isArray(data)
      ? Object.entries(data).map(
          ([key, value]) => `${key}: ${typeof value === "string" ? value : safeJson(value)}`,
        )
      : [typeof data === "string" ? data : safeJson(data)];
  if (parts.length === 0) {
    return "";
  }
  const text = parts.join("; ");
  return ` (${text.length > MAX_DATA_CHARS ? `${text.slice(0, MAX_DATA_CHARS - 1)}…` : text})`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value); // a cycle: the SDK parsed JSON, so only a hand-made value has one
  }
}

/** The message of a thrown error or an error answer. */
function messageText(error: unknown): string {
  return error instanceof Error
    ? error.message
    : typeof error === "object" && error !== null && "message" in error
      ? String(error.message)
      : String(error);
}

/** The agent answered a request with an error (its `data` shown), or broke the protocol. */
export function protocolFailure(what: string, error: unknown): Ending {
  return {
    exitCode: ExitCode.agentFailed,
    error: `${what} failed: ${messageText(error)}${describeErrorData(error)}`,
  };
}

/** An error answer from the agent (it runs on), as opposed to a connection that failed. */
export function isErrorAnswer(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    typeof error.code === "number" &&
    "message" in error
  );
}

/** JSON-RPC "Method not found". */
const METHOD_NOT_FOUND = -32601;

function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}

/**
 * `initialize` failed. Every ACP agent implements it, so "Method not found" means something else
 * answered: a JSON-RPC server of another protocol, or a program that echoes what it reads (`cat`
 * sends our own request back, our client answers it "Method not found", and `cat` echoes that too).
 */
export function initializeFailure(commandLine: string, error: unknown): Ending {
  const versions = otherVersions(error);
  if (versions !== undefined) {
    return versions;
  }
  if (codeOf(error) !== METHOD_NOT_FOUND) {
    return protocolFailure("initialize", error);
  }
  return {
    exitCode: ExitCode.agentFailed,
    error: `Not an ACP agent: "${commandLine}" answered initialize with "Method not found" (${METHOD_NOT_FOUND}); it probably speaks another JSON-RPC protocol or echoes its input`,
  };
}

/** The agent answered `initialize` with a protocol version we do not speak. */
export function unsupportedProtocol(commandLine: string, version: unknown, ours: number): Ending {
  if (typeof version !== "number") {
    return {
      exitCode: ExitCode.agentFailed,
      error: `Not an ACP agent: "${commandLine}" answered initialize with protocolVersion ${JSON.stringify(version)} (ACP's is a number, ${ours}; a date like "2024-11-05" is MCP's)`,
    };
  }
  return {
    exitCode: ExitCode.agentFailed,
    error: `Agent speaks ACP protocol version ${version}; acp-terminal speaks ${ours}`,
  };
}

/** JSON-RPC error of an agent that does not speak the version asked for (ACP v2's code). */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

function dataOf(error: unknown): Record<string, unknown> | undefined {
  const data =
    typeof error === "object" && error !== null && "data" in error ? error.data : undefined;
  if (typeof data !== "object" || data === null) {
    return undefined;
  }
  return Object.fromEntries(Object.entries(data));
}

/**
 * `initialize` failed because the two sides speak different ACP versions: a v2-only agent asked
 * for v1 (it answers -32022 with the versions it supports), or a v1-only agent answered a v2
 * offer with version 1 (the SDK's v2 client rejects that answer). Says which flag works.
 */
function otherVersions(error: unknown): Ending | undefined {
  const data = dataOf(error);
  if (codeOf(error) === UNSUPPORTED_PROTOCOL_VERSION && Array.isArray(data?.supported)) {
    const supported = data.supported.filter((v): v is number => typeof v === "number");
    const flag = supported.includes(2)
      ? "; run without --protocol (auto, the default) or with --protocol v2"
      : "";
    return {
      exitCode: ExitCode.agentFailed,
      error: `Agent does not speak ACP version ${JSON.stringify(data.requested)}: it supports ${supported.join(", ") || "none it named"}${flag}`,
    };
  }
  if (data?.expectedProtocolVersion === 2 && data.receivedProtocolVersion !== undefined) {
    return v2OfferAnsweredWith(data.receivedProtocolVersion);
  }
  return undefined;
}

/** `--protocol v2` forced, and the agent answered the offer with another version. */
export function v2OfferAnsweredWith(received: unknown): Ending {
  const flag =
    received === 1 ? "; run without --protocol (auto, the default) or with --protocol v1-meta" : "";
  return {
    exitCode: ExitCode.agentFailed,
    error: `Agent answered the ACP v2 offer with protocol version ${JSON.stringify(received)}${flag}`,
  };
}
