import type { Ending } from "../agent/failure-messages.js";
import { ExitCode } from "../exit-codes.js";

export interface StopSignalsOptions {
  stdout: NodeJS.WriteStream;
  cancelGraceMs: number;
  /** Whether a turn is under way (Ctrl-C then cancels it; otherwise it quits). */
  inTurn: () => boolean;
  /** Starts cancelling the turn (v1: session/cancel and the terminals; v2: terminal/cancel first). */
  cancelTurn: () => void;
  end: (ending: Ending) => void;
  notice: (message: string) => void;
}

/**
 * How a run stops from outside, the same for v1 and v2: the first Ctrl-C during a turn cancels
 * it and gives the agent `--cancel-grace` to end it; a second one, or one outside a turn, quits;
 * SIGTERM and SIGHUP stop; so does an error on stdout (whoever read it is gone, `| head`).
 */
export class StopSignals {
  #interrupts = 0;

  constructor(private readonly options: StopSignalsOptions) {}

  /** Ctrl-Cs so far. */
  get interrupts(): number {
    return this.#interrupts;
  }

  /** Listens until the returned function is called. */
  listen(): () => void {
    const { options } = this;
    const onInterrupt = () => {
      this.#interrupts += 1;
      if (this.#interrupts > 1 || !options.inTurn()) {
        options.end({ exitCode: ExitCode.cancelled, error: "Interrupted" });
        return;
      }
      options.notice("Cancelling the turn… (press Ctrl-C again to quit at once)");
      options.cancelTurn();
      setTimeout(() => {
        options.end({
          exitCode: ExitCode.cancelled,
          error: `Cancelled; the agent did not end its turn within ${options.cancelGraceMs / 1000} s (--cancel-grace)`,
        });
      }, options.cancelGraceMs).unref();
    };
    const onTerminate = (signal: NodeJS.Signals) =>
      options.end({ exitCode: ExitCode.cancelled, error: `Stopped by ${signal}` });
    const onStdoutError = (error: Error) =>
      options.end({
        exitCode: ExitCode.cancelled,
        error: `Stopped: stdout closed (${error.message})`,
      });
    process.on("SIGINT", onInterrupt);
    process.on("SIGTERM", onTerminate);
    process.on("SIGHUP", onTerminate);
    options.stdout.on("error", onStdoutError);
    return () => {
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onTerminate);
      process.off("SIGHUP", onTerminate);
      options.stdout.off("error", onStdoutError);
    };
  }
}
