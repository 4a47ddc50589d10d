import { closeSync, openSync, statSync } from "node:fs";
import type { RunOptions } from "./args.js";
import { leadingProgram, programExists } from "../agent/command-lookup.js";
import { commandNotFound } from "../agent/failure-messages.js";
import { errnoCodeOf } from "acp-terminal/internal";
import { sandboxProblem } from "./sandbox-host.js";

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    // Missing or unreadable: either way not a directory we can use.
    return false;
  }
}

/** Why `file` cannot be appended to, or undefined when it can. */
function unwritable(file: string): string | undefined {
  try {
    closeSync(openSync(file, "a"));
    return undefined;
  } catch (error) {
    return errnoCodeOf(error) ?? String(error);
  }
}

/** What makes the run impossible before anything starts (a usage error), if anything. */
export function checkBeforeLaunch(
  options: Pick<RunOptions, "cwd" | "agent" | "approval" | "agentLog">,
  cwd: string,
): string | undefined {
  if (!isDirectory(options.cwd)) {
    return `Invalid --cwd: expected an existing directory, received ${JSON.stringify(options.cwd)}`;
  }
  const program = leadingProgram(options.agent);
  if (program !== undefined && !programExists(program, cwd)) {
    return commandNotFound(options.agent).error;
  }
  const sandbox = sandboxProblem(options.approval);
  if (sandbox !== undefined) {
    return sandbox;
  }
  if (options.agentLog !== undefined) {
    const reason = unwritable(options.agentLog);
    if (reason !== undefined) {
      return `Invalid --agent-log: cannot write to ${JSON.stringify(options.agentLog)} (${reason})`;
    }
  }
  return undefined;
}
