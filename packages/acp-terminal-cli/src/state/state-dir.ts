import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { messageOf } from "acp-terminal/internal";

/**
 * Where the CLI keeps what outlives a run (the agents' stderr logs, typed history, session names,
 * the locks of sessions in use): `$XDG_STATE_HOME/acp-terminal`, else `~/.local/state/acp-terminal`.
 */
export function stateDir(env: NodeJS.ProcessEnv): string {
  const base = env["XDG_STATE_HOME"] || path.join(env["HOME"] || homedir(), ".local", "state");
  return path.join(base, "acp-terminal");
}

/** `stateDir/sub`, made (private to the user) if missing; or why it cannot be. */
export function stateSubdir(env: NodeJS.ProcessEnv, sub: string): string | { error: string } {
  const dir = path.join(stateDir(env), sub);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch (error) {
    return { error: `cannot make ${dir}: ${messageOf(error)}` };
  }
}

/** A file name for `key` (an agent's name or command line): readable, short, never a path. */
export function fileNameOf(key: string): string {
  const plain = key.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "");
  return (plain === "" ? "agent" : plain).slice(0, 64);
}
