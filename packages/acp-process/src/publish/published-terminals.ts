import type { RunSnapshot } from "../model/run-events.js";
import { PendingOutput } from "./pending-output.js";

/** One published run: the v2 terminal id is the run id. */
export interface Published {
  /** As announced, then as last resized. */
  run: RunSnapshot;
  exited: RunSnapshot | null;
  output: PendingOutput;
}

/**
 * The terminals a publisher has announced, in announcement order, remembered for replay and
 * cancel. Bounded: past `maxTerminals`, the oldest exited terminal is forgotten (a live one never is).
 */
export class PublishedTerminals {
  private readonly terminals = new Map<string, Published>();

  constructor(private readonly maxTerminals: number) {}

  get(terminalId: string): Published | undefined {
    return this.terminals.get(terminalId);
  }

  /** The terminal, when it is one of `sessionId`'s. */
  inSession(sessionId: string, terminalId: string): Published | undefined {
    const published = this.terminals.get(terminalId);
    return published?.run.sessionId === sessionId ? published : undefined;
  }

  /** The session's terminals, as a list taken now. */
  ofSession(sessionId: string): Published[] {
    return [...this.terminals.values()].filter(
      (published) => published.run.sessionId === sessionId,
    );
  }

  all(): IterableIterator<Published> {
    return this.terminals.values();
  }

  /** Remembers a run just announced, with no output pending. */
  add(run: RunSnapshot): void {
    this.forgetOldest();
    this.terminals.set(run.id, { run, exited: null, output: new PendingOutput() });
  }

  forget(terminalId: string): void {
    this.terminals.delete(terminalId);
  }

  private forgetOldest(): void {
    if (this.terminals.size < this.maxTerminals) {
      return;
    }
    for (const [terminalId, published] of this.terminals) {
      if (published.exited !== null) {
        this.terminals.delete(terminalId);
        return;
      }
    }
  }
}
