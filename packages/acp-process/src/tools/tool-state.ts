import type { ProcessManager } from "../runs/manager/manager.js";

const MAX_HITS_PER_RUN = 100;
const MAX_TRACKED_RUNS = 1000;

export interface WatchHitRecord {
  event: string;
  match: string;
  seq: number;
}

/**
 * What tool surfaces remember between calls, per manager: the `process poll` cursor of each run
 * and recent watcher hits. Bounded in runs and hits; forgotten when the run is gone.
 */
export class ToolState {
  private readonly pollCursors = new Map<string, number>();
  private readonly hits = new Map<string, WatchHitRecord[]>();
  /** Runs `exec` sent to the background (explicitly or by yieldMs): what `process list` shows. */
  private readonly background = new Set<string>();

  constructor(manager: ProcessManager) {
    manager.subscribe((event) => {
      if (event.type !== "watch") {
        return;
      }
      let list = this.hits.get(event.runId);
      if (!list) {
        if (this.hits.size >= MAX_TRACKED_RUNS) {
          this.hits.delete(this.hits.keys().next().value!);
        }
        this.hits.set(event.runId, (list = []));
      }
      list.push({ event: event.event, match: event.match, seq: event.seq });
      if (list.length > MAX_HITS_PER_RUN) {
        list.shift();
      }
    });
  }

  cursor(runId: string): number {
    return this.pollCursors.get(runId) ?? 0;
  }

  setCursor(runId: string, seq: number): void {
    this.pollCursors.delete(runId);
    if (this.pollCursors.size >= MAX_TRACKED_RUNS) {
      this.pollCursors.delete(this.pollCursors.keys().next().value!);
    }
    this.pollCursors.set(runId, seq);
  }

  /** Hits with `seq >= sinceSeq`. */
  hitsSince(runId: string, sinceSeq: number): WatchHitRecord[] {
    return (this.hits.get(runId) ?? []).filter((hit) => hit.seq >= sinceSeq);
  }

  markBackground(runId: string): void {
    if (this.background.size >= MAX_TRACKED_RUNS) {
      this.background.delete(this.background.values().next().value!);
    }
    this.background.add(runId);
  }

  isBackground(runId: string): boolean {
    return this.background.has(runId);
  }

  forget(runId: string): void {
    this.pollCursors.delete(runId);
    this.hits.delete(runId);
    this.background.delete(runId);
  }
}

const TOOL_STATE = Symbol("acp-process tool state");

/** The tool surfaces' state of this manager (kept by the manager, see `ProcessManager.attached`). */
export function toolState(manager: ProcessManager): ToolState {
  return manager.attached(TOOL_STATE, (owner) => new ToolState(owner));
}
