import { setTimeout as delay } from "node:timers/promises";
import type { V2Session } from "./session.js";
import { messageOf } from "acp-terminal/internal";

/** What the scenario needs from the check that runs it. */
export interface ScenarioContext {
  session: V2Session;
  terminalId(name: string): string;
  embed(terminalId: string): Promise<void>;
  /** Aborted by `session/cancel`: stop waiting on the user. */
  signal: AbortSignal;
}

/** Default time the battery waits for the client (or its user) to send `terminal/cancel`. */
export const DEFAULT_CANCEL_WINDOW_MS = 10_000;

/** Output interval of the terminals waiting to be cancelled, so they visibly run. */
const TICK_MS = 1_000;

export interface CancelTerminals {
  /** Advertises cancel; a cancel is accepted, then confirmed with exitStatus. */
  accepted: string;
  /** Advertises cancel; a cancel is answered -32602 because it "exited" as the cancel arrived. */
  refused: string;
  /** Runs, never advertises cancel. */
  never: string;
  /** Advertised cancel, then exited and withdrew it before the window opened. */
  withdrawn: string;
}

export interface CancelOutcome {
  terminals: CancelTerminals;
  windowMs: number;
  /** How long the window stayed open (it closes once both cancellable terminals were cancelled). */
  waitedMs: number;
  /** The round trip after the window, or the failure it ended with. */
  afterWindow: { ok: true } | { ok: false; message: string };
}

/**
 * The cancel part of the battery, run once and judged by several checks: four terminals run at
 * the same time, two advertising cancel, and the client (or its user: acp-terminal run maps
 * Ctrl-C to `terminal/cancel`) has `windowMs` to cancel.
 */
export class CancelScenario {
  private outcome?: Promise<CancelOutcome>;

  constructor(readonly windowMs: number) {}

  /** Whether the scenario has started (its terminals were published). */
  get started(): boolean {
    return this.outcome !== undefined;
  }

  run(ctx: ScenarioContext): Promise<CancelOutcome> {
    this.outcome ??= this.play(ctx);
    return this.outcome;
  }

  private async play(ctx: ScenarioContext): Promise<CancelOutcome> {
    const { session } = ctx;
    const terminals: CancelTerminals = {
      accepted: ctx.terminalId("cancel-me"),
      refused: ctx.terminalId("cancel-me-too"),
      never: ctx.terminalId("not-cancellable"),
      withdrawn: ctx.terminalId("exited"),
    };
    const base = { cwd: session.cwd, size: { cols: 80, rows: 24 } };
    await session.terminal({
      terminalId: terminals.withdrawn,
      command: "true",
      ...base,
      capabilities: { cancel: {} },
    });
    await session.terminal({
      terminalId: terminals.withdrawn,
      exitStatus: { exitCode: 0 },
      capabilities: null,
    });
    // From here on the client has read the withdrawal: a cancel for this terminal is a violation.
    await session.ping("an exited terminal withdrew capabilities.cancel");
    await session.terminal({
      terminalId: terminals.never,
      command: "sleep 600 # not cancellable",
      ...base,
    });
    await session.terminal({
      terminalId: terminals.accepted,
      command: "sleep 600 # cancel me",
      ...base,
      capabilities: { cancel: {} },
    });
    await session.terminal(
      {
        terminalId: terminals.refused,
        command: "sleep 600 # cancel me too",
        ...base,
        capabilities: { cancel: {} },
      },
      "refuse-exited",
    );
    for (const id of Object.values(terminals)) {
      await ctx.embed(id);
    }
    const started = Date.now();
    await this.waitForCancels(ctx, terminals);
    const waitedMs = Date.now() - started;
    let afterWindow: CancelOutcome["afterWindow"] = { ok: true };
    try {
      await session.ping("the cancel window (terminal/cancel answered, exitStatus published)");
    } catch (error) {
      afterWindow = { ok: false, message: messageOf(error) };
    }
    // Whatever was not cancelled finishes now, withdrawing cancel.
    for (const id of [terminals.accepted, terminals.refused, terminals.never]) {
      if (session.ledger.standing(id) === "advertised" || id === terminals.never) {
        await session.terminal({ terminalId: id, exitStatus: { exitCode: 0 }, capabilities: null });
      }
    }
    return { terminals, windowMs: this.windowMs, waitedMs, afterWindow };
  }

  private async waitForCancels(ctx: ScenarioContext, terminals: CancelTerminals): Promise<void> {
    const { session } = ctx;
    const both = () =>
      session.ledger.cancelsFor(terminals.accepted).length > 0 &&
      session.ledger.cancelsFor(terminals.refused).length > 0;
    if (this.windowMs <= 0 || both() || ctx.signal.aborted) {
      return;
    }
    await session.say(
      `Waiting ${Math.round(this.windowMs / 1000)} s for terminal/cancel: two terminals now advertise cancel ("cancel me", "cancel me too"). Press Ctrl-C in acp-terminal run (it sends terminal/cancel to running terminals that advertise cancel before it cancels the turn), or use your client's stop control on them.\n`,
    );
    const stop = new AbortController();
    const onCancel = () => {
      if (both()) {
        stop.abort();
      }
    };
    const onAbort = () => stop.abort();
    session.events.on("cancel", onCancel);
    ctx.signal.addEventListener("abort", onAbort);
    session.connectionSignal.addEventListener("abort", onAbort);
    const deadline = Date.now() + this.windowMs;
    try {
      for (let second = 1; !stop.signal.aborted && Date.now() < deadline; second++) {
        await delay(Math.min(TICK_MS, deadline - Date.now()), undefined, {
          signal: stop.signal,
        }).catch(() => undefined);
        if (stop.signal.aborted || session.connectionSignal.aborted) {
          break;
        }
        for (const id of [terminals.accepted, terminals.refused, terminals.never]) {
          if (
            session.ledger.standing(id) !== "withdrawn" &&
            session.ledger.standing(id) !== "withdrawn-in-flight"
          ) {
            await session.chunk(id, `running, ${second} s\r\n`);
          }
        }
      }
    } finally {
      session.events.off("cancel", onCancel);
      ctx.signal.removeEventListener("abort", onAbort);
      session.connectionSignal.removeEventListener("abort", onAbort);
    }
  }
}
