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

/** `'...'` for a POSIX shell: every byte but NUL as it is. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A name `export NAME=...` takes in every shell (others go through `env`). */
const EXPORTABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names a shell keeps for itself (read-only in bash, or its own state): set through `env`. */
const SHELL_OWN = new Set([
  "PPID",
  "UID",
  "EUID",
  "GROUPS",
  "SHELLOPTS",
  "BASHOPTS",
  "IFS",
  "OPTIND",
]);

/**
 * The launcher's spec (docs/remote-helper.md, `spec`): a few lines of sh that the launcher sources,
 * every value single-quoted, so any byte but NUL passes as it is. A NUL is refused here as Node
 * refuses it for a local spawn.
 */
export function encodeSpec(fields: SpecFields): Buffer {
  const env = Object.entries(fields.env);
  const words = [fields.cwd, fields.marker, fields.file, ...fields.args, ...env.flat()];
  if (words.some((word) => word.includes("\0"))) {
    throw new TerminalError(
      "spawn_failed",
      `Failed to start ${fields.file}: an argument, the cwd or an environment variable contains a NUL byte`,
      { command: fields.file },
    );
  }
  // `env NAME=VALUE … program` starts the command; a name env could read as an option or split.
  const unusable = env.find(([name]) => name === "" || name.startsWith("-") || name.includes("="));
  if (unusable !== undefined) {
    throw new TerminalError(
      "spawn_failed",
      `Failed to start ${fields.file}: the environment variable name ${JSON.stringify(unusable[0].slice(0, 100))} cannot be set on the remote side (empty, starting with "-" or containing "="); rename it`,
      { command: fields.file },
    );
  }
  const exported = env.filter(([name]) => EXPORTABLE.test(name) && !SHELL_OWN.has(name));
  const viaEnv = env.filter(([name]) => !EXPORTABLE.test(name) || SHELL_OWN.has(name));
  const path = fields.env.PATH;
  const lines = [
    `pty=${fields.pty ? `${fields.pty.cols}x${fields.pty.rows}` : "0"} stdin=${fields.stdin ? 1 : 0} shell=${fields.shell ? 1 : 0}`,
    `cwd=${shellQuote(fields.cwd)}`,
    `marker=${shellQuote(fields.marker)}`,
    path === undefined ? "unset path" : `path=${shellQuote(path)}`,
    `nexport=${exported.length} nenv=${viaEnv.length}`,
    [
      "set --",
      ...[...exported, ...viaEnv].map(([name, value]) => shellQuote(`${name}=${value}`)),
      ...[fields.file, ...fields.args].map(shellQuote),
    ].join(" "),
  ];
  return Buffer.from(`${lines.join("\n")}\n`);
}

/** Lines in a spec: the agent reads that many (a quoted value may hold line feeds). */
export function specLines(spec: Buffer): number {
  let lines = 0;
  for (const byte of spec) {
    if (byte === 10) {
      lines++;
    }
  }
  return lines;
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
