/**
 * What the v2 battery has published about each of its terminals, and every `terminal/cancel` the
 * client sent, judged against what the client could have known when it sent it.
 */

/** Whether a terminal advertised `capabilities.cancel` when a `terminal/cancel` for it arrived. */
export type CancelStanding =
  /** It advertised cancel: the client may send `terminal/cancel`. */
  | "advertised"
  /** The agent had withdrawn cancel, but no round trip yet proved the client had read that. */
  | "withdrawn-in-flight"
  /** Withdrawn, and a later round trip proved the client had read the withdrawal: a violation. */
  | "withdrawn"
  /** The terminal never advertised cancel: a violation. */
  | "never-advertised"
  /** No terminal with that id exists in the session: a violation. */
  | "unknown";

export interface CancelRecord {
  terminalId: string;
  /** Milliseconds since the battery started. */
  atMs: number;
  standing: CancelStanding;
  /** What the agent answered: `accepted`, or the JSON-RPC error it returned. */
  answer: string;
}

/** How many cancel records a report keeps: a client looping on cancel cannot grow it unbounded. */
export const MAX_CANCEL_RECORDS = 100;

interface TerminalState {
  advertising: boolean;
  everAdvertised: boolean;
  /** Sequence number of the notification that withdrew cancel. */
  withdrawnAt?: number | undefined;
  /** Set once a round trip sent after the withdrawal was answered. */
  withdrawalSeen: boolean;
}

export class TerminalLedger {
  private readonly terminals = new Map<string, TerminalState>();
  private readonly records: CancelRecord[] = [];
  private dropped = 0;

  constructor(private readonly startedAt = Date.now()) {}

  announce(terminalId: string): void {
    if (!this.terminals.has(terminalId)) {
      this.terminals.set(terminalId, {
        advertising: false,
        everAdvertised: false,
        withdrawalSeen: false,
      });
    }
  }

  advertise(terminalId: string): void {
    this.announce(terminalId);
    const state = this.terminals.get(terminalId)!;
    state.advertising = true;
    state.everAdvertised = true;
    state.withdrawnAt = undefined;
    state.withdrawalSeen = false;
  }

  /** Cancel is withdrawn by the notification numbered `seq`. */
  withdraw(terminalId: string, seq: number): void {
    const state = this.terminals.get(terminalId);
    if (state === undefined || !state.advertising) {
      return;
    }
    state.advertising = false;
    state.withdrawnAt = seq;
  }

  /** A request sent after notification `seq` was answered: the client has read everything up to it. */
  roundTrip(seq: number): void {
    for (const state of this.terminals.values()) {
      if (state.withdrawnAt !== undefined && state.withdrawnAt <= seq) {
        state.withdrawalSeen = true;
      }
    }
  }

  standing(terminalId: string): CancelStanding {
    const state = this.terminals.get(terminalId);
    if (state === undefined) {
      return "unknown";
    }
    if (state.advertising) {
      return "advertised";
    }
    if (!state.everAdvertised) {
      return "never-advertised";
    }
    return state.withdrawalSeen ? "withdrawn" : "withdrawn-in-flight";
  }

  record(terminalId: string, standing: CancelStanding, answer: string): void {
    if (this.records.length >= MAX_CANCEL_RECORDS) {
      this.dropped++;
      return;
    }
    this.records.push({ terminalId, atMs: Date.now() - this.startedAt, standing, answer });
  }

  get cancels(): readonly CancelRecord[] {
    return this.records;
  }

  /** Cancels received beyond MAX_CANCEL_RECORDS, counted but not kept. */
  get droppedCancels(): number {
    return this.dropped;
  }

  cancelsFor(terminalId: string): CancelRecord[] {
    return this.records.filter((r) => r.terminalId === terminalId);
  }
}

/** A cancel the client must not have sent. */
export function isViolation(record: CancelRecord): boolean {
  return (
    record.standing === "withdrawn" ||
    record.standing === "never-advertised" ||
    record.standing === "unknown"
  );
}
