import { cutText, messageOf } from "acp-terminal/internal";
import {
  initializeFailure,
  protocolFailure,
  stderrHint,
  type Ending,
} from "../agent/failure-messages.js";
import { ExitCode, exitCodeForStopReason } from "../exit-codes.js";
import { ConnectionClosed, type TurnEnd } from "./driver.js";

/** Characters of a reason quoted in an ending. */
const MAX_REASON_CHARS = 500;

/** Where the conversation is, as each kind of ending words it. */
export const PHASES = {
  initialize: {
    request: "initialize",
    timedOut: "waiting for initialize",
    agentExited: "before answering initialize",
  },
  session: {
    request: "session/new",
    timedOut: "waiting for session/new",
    agentExited: "before starting a session",
  },
  turn: { request: "session/prompt", timedOut: "during the turn", agentExited: "during the turn" },
  idle: {
    request: "session/prompt",
    timedOut: "waiting for a prompt",
    agentExited: "between turns",
  },
} as const;
export type Phase = keyof typeof PHASES;

/** An abort reason that says how the conversation ends: `controller.abort(new Stopped(ending))`. */
export class Stopped extends Error {
  constructor(readonly ending: Ending) {
    super(ending.error ?? "stopped");
    this.name = "Stopped";
  }
}

/** What an abort's reason says: a `Stopped`'s ending, anything else as a cancellation naming it. */
export function stoppedEnding(reason: unknown): Ending {
  return reason instanceof Stopped
    ? reason.ending
    : { exitCode: ExitCode.cancelled, error: `Stopped: ${messageOf(reason)}` };
}

/** A turn's end as the run's: its stop reason's exit code, or cancelled after a Ctrl-C. */
export function turnEnding({ stopReason, error }: TurnEnd, interrupted: boolean): Ending {
  const reason = stopReason === undefined ? {} : { stopReason };
  if (error !== undefined) {
    return { exitCode: ExitCode.agentFailed, ...reason, error };
  }
  const exitCode = interrupted
    ? ExitCode.cancelled
    : stopReason === undefined
      ? ExitCode.ok
      : exitCodeForStopReason(stopReason);
  return { exitCode, ...reason };
}

/** A request of `phase` failed with `error` while the agent still runs. */
export function failureEnding(
  error: unknown,
  phase: Phase,
  agent: string,
  agentLog: string | undefined,
  loginHint = "",
): Ending {
  if (error instanceof ConnectionClosed) {
    const reason = cutText(messageOf(error.reason ?? "closed"), MAX_REASON_CHARS);
    return {
      exitCode: ExitCode.agentFailed,
      error: `The agent's connection closed ${PHASES[phase].agentExited} (${reason}) while the agent still ran; it was stopped; ${stderrHint(agentLog)}`,
    };
  }
  const what = PHASES[phase].request;
  if (what === "initialize") {
    return initializeFailure(agent, error);
  }
  const ending = protocolFailure(what, error);
  return { ...ending, error: `${ending.error ?? ""}${loginHint}` };
}
