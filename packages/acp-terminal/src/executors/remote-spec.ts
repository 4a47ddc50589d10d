import { constants } from "node:os";
import { TerminalError } from "../core/errors.js";
import { spawnError } from "../spawn/errors.js";
import type { RemoteEvent } from "./remote-events.js";

export interface SpecFields {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: boolean;
  shell: boolean;
  pty?: { cols: number; rows: number } | undefined;
  /** The value of ACP_TERMINAL_REMOTE in the command's environment (the agent sweeps by it). */
  marker: string;
}

/**
 * The wrapper's spec (remote-helper.ts, `wrap`): NUL-separated fields, the same that execve takes,
 * so a NUL inside one is refused here as Node refuses it for a local spawn.
 */
export function encodeSpec(fields: SpecFields): Buffer {
  const words = [
    fields.pty ? `${fields.pty.cols}x${fields.pty.rows}` : "0",
    fields.stdin ? "1" : "0",
    fields.shell ? "1" : "0",
    fields.cwd,
    fields.marker,
    fields.file,
    String(fields.args.length),
    ...fields.args,
    ...Object.entries(fields.env).flat(),
  ];
  if (words.some((word) => word.includes("\0"))) {
    throw new TerminalError(
      "spawn_failed",
      `Failed to start ${fields.file}: an argument, the cwd or an environment variable contains a NUL byte`,
      { command: fields.file },
    );
  }
  return Buffer.from(words.join("\0"));
}

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));

/** The error for a command the wrapper could not start (`failed STAGE ERRNO MESSAGE`). */
export function startFailure(
  event: Extract<RemoteEvent, { kind: "failed" }>,
  file: string,
  cwd: string,
  target: string,
): TerminalError {
  const code = ERRNO_NAMES.get(event.errno);
  if (event.stage === "cwd") {
    const missing = code === "ENOENT" || code === "ENOTDIR";
    return new TerminalError(
      "spawn_failed",
      missing
        ? `Working directory does not exist on ${target}: ${cwd}`
        : `Working directory is not accessible on ${target}: ${cwd} (${code ?? event.message})`,
      { cwd, code, target },
    );
  }
  const local = spawnError(file, Object.assign(new Error(event.message), { code }));
  return new TerminalError("spawn_failed", `${local.message} (on ${target})`, {
    ...local.data,
    target,
  });
}
