import type { V2Session } from "./session.js";
import type { CancelScenario } from "./cancel-scenario.js";

/**
 * `must`: the v2 draft says the client MUST (not); a failure is a bug in the client.
 * `robustness`: the agent sends a sequence the v2 schema allows (or tells receivers to ignore or
 * show generically); the client fails when it stops answering or closes the connection.
 */
export type V2CheckKind = "must" | "robustness";
/**
 * `not-exercised`: the check needs the client (or its user) to act, and it did not; neither a
 * pass nor a fail. `skip`: the turn was cancelled before the check ran.
 */
export type V2CheckStatus = "pass" | "fail" | "not-exercised" | "skip";

export interface V2CheckContext {
  session: V2Session;
  /** A terminal id unique to this check and battery. */
  terminalId(name: string): string;
  /** Shows the terminal inside the check's tool call. */
  embed(terminalId: string): Promise<void>;
  /** Sends nothing; pings the client and fails the check, naming `step`, if it does not answer. */
  answered(step: string): Promise<void>;
  /** Shared by the cancel checks: run once, judged by each. */
  cancel: CancelScenario;
  /** Aborted by `session/cancel`: stop waiting on the user. */
  signal: AbortSignal;
}

export interface V2Outcome {
  status: "pass" | "not-exercised";
  detail: string;
}

export interface V2Check {
  id: string;
  name: string;
  kind: V2CheckKind;
  /**
   * After `session/cancel`, checks not yet run are skipped, except these, which judge what
   * already happened: `always`, or `if-cancel-window-opened` (the cancel scenario had started).
   */
  afterTurnCancel?: "always" | "if-cancel-window-opened";
  /** Its deadline is extended by the cancel window, which waits on the user. */
  waitsForUser?: boolean;
  /** Resolves with the outcome; throws CheckFailure to fail. */
  run(ctx: V2CheckContext): Promise<V2Outcome>;
}

export interface V2CheckResult {
  id: string;
  name: string;
  kind: V2CheckKind;
  status: V2CheckStatus;
  detail: string;
}

export function passed(detail: string): V2Outcome {
  return { status: "pass", detail };
}
