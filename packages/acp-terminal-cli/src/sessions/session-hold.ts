import type { SessionStarted } from "../conversation/driver.js";
import { SessionLock } from "./session-lock.js";
import { SessionNames } from "./session-names.js";

/**
 * What a run does with its session besides the conversation: `--name` finds the session to
 * resume; the session is held against other runs (its lock: before launch when it is resumed,
 * once it exists when it is new); it is remembered (with its name) for `acp-terminal sessions`;
 * and let go at the end.
 */
export class SessionHold {
  readonly #names: SessionNames;
  #lock: SessionLock | undefined;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly agent: string,
    private readonly cwd: string,
    private readonly name: string | undefined,
  ) {
    this.#names = new SessionNames(env);
  }

  /** The session to resume: `--session`'s, or the one `--name` names (undefined: a new one). */
  resumeId(given: string | undefined): string | undefined {
    if (given !== undefined || this.name === undefined) {
      return given;
    }
    return this.#names.find(this.agent, this.cwd, this.name)?.sessionId;
  }

  /** Holds `sessionId` before the agent starts; the line that refuses the run when it is in use. */
  take(sessionId: string): string | undefined {
    const lock = SessionLock.take(this.env, this.agent, sessionId);
    if (typeof lock === "string") {
      return lock;
    }
    this.#lock = lock;
    return undefined;
  }

  /** The session exists: held (a new one), remembered (with its name); a problem is a notice. */
  started(session: SessionStarted): string[] {
    const problems: string[] = [];
    if (this.#lock === undefined) {
      const taken = this.take(session.sessionId);
      if (taken !== undefined) {
        problems.push(`acp-terminal: ${taken}`);
      }
    }
    const unwritten = this.#names.remember({
      agent: this.agent,
      cwd: this.cwd,
      sessionId: session.sessionId,
      ...(this.name === undefined ? {} : { name: this.name }),
    });
    if (unwritten !== undefined) {
      problems.push(
        `acp-terminal: the session is not remembered for --name and sessions: ${unwritten}`,
      );
    }
    return problems;
  }

  release(): void {
    this.#lock?.release();
    this.#lock = undefined;
  }
}
