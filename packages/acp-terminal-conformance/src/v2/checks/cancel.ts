import { CheckFailure } from "../../base/probe.js";
import { passed, type V2Check } from "../base/check.js";
import { isViolation, type CancelRecord } from "../base/terminals.js";

function describe(record: CancelRecord): string {
  return `${record.terminalId} at ${record.atMs} ms (${record.standing}; answered ${record.answer})`;
}

const WHY: Record<string, string> = {
  "never-advertised": "it never advertised capabilities.cancel",
  withdrawn:
    "its capabilities.cancel had been withdrawn (exitStatus set, capabilities: null) and the client had already answered a later request",
  unknown: "no terminal with that id exists in the session",
};

const cancelRoundTrip: V2Check = {
  id: "cancel-round-trip",
  name: "A client may send terminal/cancel for a running terminal that advertises capabilities.cancel, and keeps working once the agent accepts it and confirms with exitStatus",
  kind: "must",
  waitsForUser: true,
  async run(ctx) {
    const outcome = await ctx.cancel.run(ctx);
    const [record] = ctx.session.ledger.cancelsFor(outcome.terminals.accepted);
    if (record === undefined) {
      return {
        status: "not-exercised",
        detail: `no terminal/cancel arrived for the terminal advertising cancel within ${outcome.windowMs} ms (press Ctrl-C or use the client's stop control while the check waits, or give a longer --cancel-window)`,
      };
    }
    if (!outcome.afterWindow.ok) {
      throw new CheckFailure(outcome.afterWindow.message);
    }
    return passed(
      `terminal/cancel for ${record.terminalId} arrived ${record.atMs} ms into the battery, was ${record.answer}, its exitStatus was published, and the client answered a request afterwards`,
    );
  },
};

const cancelRefusalTolerated: V2Check = {
  id: "cancel-refusal-tolerated",
  name: "A client that sends terminal/cancel as a terminal exits gets -32602 (already exited) and keeps working",
  kind: "must",
  afterTurnCancel: "if-cancel-window-opened",
  async run(ctx) {
    const outcome = await ctx.cancel.run(ctx);
    const [record] = ctx.session.ledger.cancelsFor(outcome.terminals.refused);
    if (record === undefined) {
      return {
        status: "not-exercised",
        detail: `no terminal/cancel arrived for the second terminal advertising cancel within ${outcome.windowMs} ms`,
      };
    }
    if (!outcome.afterWindow.ok) {
      throw new CheckFailure(
        `${outcome.afterWindow.message} (the agent had answered terminal/cancel for ${record.terminalId} with ${record.answer}: a client must treat that as the terminal having exited, not as a fatal error)`,
      );
    }
    return passed(
      `terminal/cancel for ${record.terminalId} was answered ${record.answer} after its exitStatus, and the client answered a request afterwards`,
    );
  },
};

const cancelOnlyWhenAdvertised: V2Check = {
  id: "cancel-only-when-advertised",
  name: "A client sends terminal/cancel only for a terminal that currently advertises capabilities.cancel",
  kind: "must",
  afterTurnCancel: "always",
  async run(ctx) {
    const { session } = ctx;
    // Everything the client sent before answering this request has been recorded.
    await ctx.answered("the whole battery");
    const all = session.ledger.cancels;
    const violations = all.filter(isViolation);
    if (violations.length > 0) {
      throw new CheckFailure(
        `${violations.length} of ${all.length} terminal/cancel requests were for terminals that did not advertise cancel: ${violations
          .slice(0, 5)
          .map((r) => `${describe(r)}: ${WHY[r.standing]}`)
          .join(
            "; ",
          )}. Fix: send terminal/cancel only while the terminal's latest terminal_update capabilities include cancel; stop once exitStatus arrives or capabilities is null or lacks cancel`,
      );
    }
    if (all.length === 0) {
      return {
        status: "not-exercised",
        detail:
          "the client sent no terminal/cancel, so there was nothing to judge (terminals without cancel and one that withdrew it were running during the cancel window)",
      };
    }
    const raced = all.filter((r) => r.standing === "withdrawn-in-flight").length;
    return passed(
      `${all.length} terminal/cancel request${all.length === 1 ? "" : "s"}, all for terminals advertising cancel${raced > 0 ? ` (${raced} crossed the withdrawal in flight, which the spec allows)` : ""}: ${all.map(describe).join("; ")}`,
    );
  },
};

/** Last in the battery: the window waits on the user, and the final check judges every cancel. */
export const cancelChecks: readonly V2Check[] = [
  cancelRoundTrip,
  cancelRefusalTolerated,
  cancelOnlyWhenAdvertised,
];
