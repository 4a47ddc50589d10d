import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { messageOf } from "acp-terminal/internal";
import { fileNameOf, stateSubdir } from "./state-dir.js";

/** Lines of typed history kept per agent. */
export const MAX_HISTORY_LINES = 1000;
/** Characters of one history line kept (a longer line is not kept). */
const MAX_HISTORY_LINE_CHARS = 4096;
/** Bytes of a history file read at most. */
const MAX_HISTORY_BYTES = 8 * 1024 * 1024;

/**
 * What was typed at the `›` prompt, per agent, in the state directory (`history/claude`): one
 * JSON string a line, oldest first, at most MAX_HISTORY_LINES. Loaded newest first, as Node's
 * `readline` keeps it, and saved whole (a temporary file renamed over it) after each prompt.
 */
export class TypedHistory {
  readonly #file: string | undefined;
  readonly problem: string | undefined;

  constructor(env: NodeJS.ProcessEnv, agent: string) {
    const dir = stateSubdir(env, "history");
    if (typeof dir === "string") {
      this.#file = path.join(dir, fileNameOf(agent));
    } else {
      this.problem = dir.error;
    }
  }

  /** The lines typed before, newest first. */
  load(): string[] {
    if (this.#file === undefined) {
      return [];
    }
    let text: string;
    try {
      const bytes = readFileSync(this.#file);
      text = bytes.subarray(Math.max(0, bytes.byteLength - MAX_HISTORY_BYTES)).toString("utf8");
    } catch {
      // None yet, or unreadable: the session starts without history.
      return [];
    }
    const lines: string[] = [];
    for (const line of text.split("\n")) {
      try {
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed === "string") {
          lines.push(parsed);
        }
      } catch {
        // A line cut by the read window, or broken by hand: left out.
      }
    }
    return lines.slice(-MAX_HISTORY_LINES).reverse();
  }

  /** Saves `newestFirst` (readline's `history`); the reason when it cannot be written. */
  save(newestFirst: readonly string[]): string | undefined {
    if (this.#file === undefined) {
      return this.problem;
    }
    const kept = newestFirst
      .filter((line) => line.length <= MAX_HISTORY_LINE_CHARS)
      .slice(0, MAX_HISTORY_LINES)
      .reverse();
    const temporary = `${this.#file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, kept.map((line) => `${JSON.stringify(line)}\n`).join(""), {
        mode: 0o600,
      });
      renameSync(temporary, this.#file);
      return undefined;
    } catch (error) {
      return `cannot save the typed history in ${this.#file}: ${messageOf(error)}`;
    }
  }
}
