import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { messageOf } from "acp-terminal/internal";
import { stateSubdir } from "../state/state-dir.js";

/** Sessions remembered at most (the oldest used are forgotten first). */
export const MAX_REMEMBERED_SESSIONS = 1000;
/** Bytes of the store read at most. */
const MAX_STORE_BYTES = 1024 * 1024;

/** A session started through `acp-terminal run`, by agent and directory, maybe with a name. */
export interface RememberedSession {
  agent: string;
  cwd: string;
  sessionId: string;
  name?: string;
  /** When it was last started or resumed (ISO 8601). */
  usedAt: string;
}

/**
 * The names given to sessions (`--name`), kept in `sessions.json` in the state directory: a name
 * means one session per agent and directory. Written whole (a temporary file renamed over it);
 * two runs writing at once keep the last one's view.
 */
export class SessionNames {
  readonly #file: string | undefined;
  readonly #problem: string | undefined;

  constructor(env: NodeJS.ProcessEnv) {
    const dir = stateSubdir(env, ".");
    if (typeof dir === "string") {
      this.#file = path.join(dir, "sessions.json");
    } else {
      this.#problem = dir.error;
    }
  }

  /** The session `name` names for this agent in `cwd`. */
  find(agent: string, cwd: string, name: string): RememberedSession | undefined {
    return this.#read().find((s) => s.agent === agent && s.cwd === cwd && s.name === name);
  }

  /** Every remembered session of this agent in `cwd` (all directories when `cwd` is undefined). */
  list(agent: string, cwd: string | undefined): RememberedSession[] {
    return this.#read().filter((s) => s.agent === agent && (cwd === undefined || s.cwd === cwd));
  }

  /**
   * Remembers that `sessionId` was used now, under `name` when given (a name moves to the session
   * it is given to). Returns why it could not be written, or undefined.
   */
  remember(session: Omit<RememberedSession, "usedAt">): string | undefined {
    if (this.#file === undefined) {
      return this.#problem;
    }
    const kept = this.#read().filter(
      (s) =>
        !(s.agent === session.agent && s.sessionId === session.sessionId) &&
        !(
          session.name !== undefined &&
          s.agent === session.agent &&
          s.cwd === session.cwd &&
          s.name === session.name
        ),
    );
    const previous = this.#read().find(
      (s) => s.agent === session.agent && s.sessionId === session.sessionId,
    );
    const name = session.name ?? previous?.name;
    kept.unshift({
      ...session,
      ...(name === undefined ? {} : { name }),
      usedAt: new Date().toISOString(),
    });
    const temporary = `${this.#file}.${process.pid}.tmp`;
    try {
      writeFileSync(
        temporary,
        `${JSON.stringify({ version: 1, sessions: kept.slice(0, MAX_REMEMBERED_SESSIONS) })}\n`,
        { mode: 0o600 },
      );
      renameSync(temporary, this.#file);
      return undefined;
    } catch (error) {
      return `cannot write ${this.#file}: ${messageOf(error)}`;
    }
  }

  #read(): RememberedSession[] {
    if (this.#file === undefined) {
      return [];
    }
    let text: string;
    try {
      const bytes = readFileSync(this.#file);
      if (bytes.byteLength > MAX_STORE_BYTES) {
        return [];
      }
      text = bytes.toString("utf8");
    } catch {
      // Missing (no name given yet) or unreadable: no names to find.
      return [];
    }
    try {
      const sessions: unknown = Reflect.get(Object(JSON.parse(text)), "sessions");
      return Array.isArray(sessions) ? sessions.filter(isRemembered) : [];
    } catch {
      // A store broken by hand or by a crash mid-write of an older version: start again.
      return [];
    }
  }
}

function isRemembered(value: unknown): value is RememberedSession {
  const s: object = Object(value);
  const field = (key: string): unknown => Reflect.get(s, key);
  return (
    typeof field("agent") === "string" &&
    typeof field("cwd") === "string" &&
    typeof field("sessionId") === "string" &&
    typeof field("usedAt") === "string" &&
    (field("name") === undefined || typeof field("name") === "string")
  );
}
