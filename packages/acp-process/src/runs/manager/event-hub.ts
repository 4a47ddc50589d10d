import type { RunEvent, RunEventSink } from "../../model/run-events.js";

/** A manager's event listeners. A listener that throws is reported on stderr, not propagated. */
export class RunEventHub {
  private readonly listeners = new Set<RunEventSink>();

  /** Adds a listener; returns its remover. */
  add(listener: RunEventSink): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: RunEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A listener's bug must not break the run that emitted the event; report it on stderr.
        console.error("acp-process: event listener threw:", error);
      }
    }
  }
}
