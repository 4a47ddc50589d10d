import type { ProcessManager } from "../../runs/manager/manager.js";

const MAX_HITS_PER_RUN = 100;
const MAX_TRACKED_RUNS = 1000;

export interface WatchHitRecord {
  event: string;
  match: string;
  seq: number;
}

/**
 * What tool surfaces remember between calls, per manager: where each run's output was last handed
 * out (the item cursor of `process poll`/`wait` and the shell's `poll`/`wait`, the byte cursor of
 * `process.wait`), so that a surface hands out each byte once by default, and recent watcher hits.
 * Bounded in runs and hits; forgotten when the run is gone.
 */
export class ToolState {
  private readonly pollCursors = new Map<string, number>();
  private readonly byteCursors = new Map<string, number>();
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

  /** The cursor stored for this run, if any. */
  storedCursor(runId: string): number | undefined {
    return this.pollCursors.get(runId);
  }

  setCursor(runId: string, seq: number): void {
    setNewest(this.pollCursors, runId, seq);
  }

  /** The output offset up to which the process.* surface handed out this run's output, if it did. */
  byteCursor(runId: string): number | undefined {
    return this.byteCursors.get(runId);
  }

  setByteCursor(runId: string, offset: number): void {
    setNewest(this.byteCursors, runId, offset);
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
    this.byteCursors.delete(runId);
    this.hits.delete(runId);
    this.background.delete(runId);
  }
}

/** Sets `key` as the newest entry of `map`, forgetting the oldest past MAX_TRACKED_RUNS. */
function setNewest(map: Map<string, number>, key: string, value: number): void {
  map.delete(key);
  if (map.size >= MAX_TRACKED_RUNS) {
    map.delete(map.keys().next().value!);
  }
  map.set(key, value);
}

const TOOL_STATE = Symbol("acp-process tool state");

/** The tool surfaces' state of this manager (kept by the manager, see `ProcessManager.attached`). */
export function toolState(manager: ProcessManager): ToolState {
  return manager.attached(TOOL_STATE, (owner) => new ToolState(owner));
}
