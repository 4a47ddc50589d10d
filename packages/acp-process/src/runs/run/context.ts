import type { Clock } from "../../base/clock.js";
import type { TerminalProvider } from "../../providers/types.js";
import type { RunStore } from "../../store/types.js";
import type { RunEvent } from "../../model/run-events.js";
import type { WatcherLimits } from "../output/watchers.js";
import type { OutputArchive } from "../spill/output-archive.js";

export interface RunTuning {
  /** Poll interval while output flows. */
  pollMinMs: number;
  /** Poll interval when idle (doubles up to this). */
  pollMaxMs: number;
  /** After exit, how long to wait for the client to report drained output. */
  exitDrainMs: number;
  /** After a kill, how long to wait for the exit before settling anyway. */
  killWaitMs: number;
  /** After a chosen signal, how long before escalating to the provider's kill. */
  forceAfterMs: number;
  /** Bound on `release`. */
  releaseWaitMs: number;
  /** Bound on each provider call a caller waits for: create, fresh output, kill, signal, write, resize. */
  callWaitMs: number;
  outputByteLimit: number | undefined;
  watcherLimits: WatcherLimits;
}

export interface RunContext {
  provider: TerminalProvider;
  store: RunStore;
  clock: Clock;
  emit: (event: RunEvent) => void;
  tuning: RunTuning;
  /** Where output past the store's window goes; undefined = not spilled (`outputSpill: false`). */
  archive: OutputArchive | undefined;
}
