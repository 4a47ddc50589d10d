import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import type { AgentExit } from "./agent-process.js";
import { leadingProgram } from "./command-lookup.js";

export interface Ending {
  exitCode: ExitCodeValue;
  stopReason?: string;
  error?: string;
}

/** Where the agent's stderr went, for "see …" hints. */
export function stderrHint(agentLogPath: string | undefined): string {
  return agentLogPath === undefined ? "see its stderr above" : `see ${agentLogPath}`;
}

export function commandNotFound(commandLine: string, shellSaid?: string): Ending {
  const program = leadingProgram(commandLine);
  if (program !== undefined) return { exitCode: ExitCode.usage, error: `Agent command not found: ${program}` };
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
  if (exit.error !== undefined) return `could not be started (${exit.error.message})`;
  if (exit.signal !== null) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code}`;
}

/** The agent process ended; `phase` says when ("before answering initialize", "during the turn"). */
export function agentExited(exit: AgentExit, phase: string, commandLine: string, agentLogPath?: string, lastStderrLine?: string): Ending {
  if (exit.code === 127 && phase.startsWith("before")) return commandNotFound(commandLine, lastStderrLine);
  return {
    exitCode: ExitCode.agentFailed,
    error: `Agent ${describeExit(exit)} ${phase}; ${stderrHint(agentLogPath)}`,
  };
}

/** The agent answered a request with an error, or broke the protocol. */
export function protocolFailure(what: string, error: unknown): Ending {
  const message = error instanceof Error ? error.message : typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error);
  return { exitCode: ExitCode.agentFailed, error: `${what} failed: ${message}` };
}
