import type { Ending } from "../agent/failure-messages.js";
import { ExitCode } from "../exit-codes.js";

export interface StopSignalsOptions {
  stdout: NodeJS.WriteStream;
  /** Ctrl-C (SIGINT): the conversation decides (cancel the turn, or quit). */
  interrupt: () => void;
  /** SIGTERM, SIGHUP, or stdout gone (whoever read it, `| head`): stop now, for this reason. */
  stop: (ending: Ending) => void;
}

/**
 * How a run is stopped from outside the conversation: the process's signals and its stdout. Listens
 * until the returned function is called.
 */
export function listenForStops(options: StopSignalsOptions): () => void {
  const onInterrupt = () => options.interrupt();
  const onTerminate = (signal: NodeJS.Signals) =>
    options.stop({ exitCode: ExitCode.cancelled, error: `Stopped by ${signal}` });
  const onStdoutError = (error: Error) =>
    options.stop({
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
