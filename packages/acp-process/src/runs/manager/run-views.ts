import type { Clock } from "../../base/clock.js";
import type { RunSnapshot } from "../../model/run-events.js";
import type { ResourceUsage } from "../../providers/proc-usage.js";
import type { RunStore } from "../../store/types.js";
import { snapshotOf } from "../run/describe.js";
import type { OutputArchive } from "../spill/output-archive.js";
import { readOutputRange } from "../views/byte-range.js";
import { readPage, type ReadResult } from "../views/read-page.js";
import { runUsage } from "../views/usage.js";
import { lineView, storeTail, type LineView } from "../views/views.js";
import type { LineQuery, ReadQuery, SessionScope, TailQuery } from "./options.js";
import type { RunRegistry } from "./registry.js";

/** Output bytes `[offset, offset + limit)` by absolute offset (see `ProcessManager.bytes`). */
export interface ByteQuery extends SessionScope {
  offset: number;
  limit: number;
  wholeCharacters?: boolean;
}

export interface OutputBytes {
  bytes: Buffer;
  text: string;
  offset: number;
  totalBytes: number;
  run: RunSnapshot;
}

export interface OutputText {
  text: string;
  offset: number;
  byteLength: number;
  totalBytes: number;
  run: RunSnapshot;
}

/**
 * The views a manager gives of its runs' output (items, lines, byte ranges, the tail) and of
 * their resource usage. Each reads the client's output of a running run first, so it is current,
 * and looks the run up within the caller's session.
 */
export class RunViews {
  constructor(
    private readonly registry: RunRegistry,
    private readonly store: RunStore,
    private readonly archive: OutputArchive | undefined,
    private readonly clock: Clock,
    /** A read page's size when the query gives none. */
    private readonly maxOutputChars: number,
  ) {}

  async read(runId: string, query: ReadQuery): Promise<ReadResult> {
    await this.refresh(runId, query.sessionId);
    const record = this.registry.record(runId, query.sessionId);
    return readPage(
      this.store,
      record,
      { ...query, maxChars: Math.max(1, query.maxChars ?? this.maxOutputChars) },
      this.clock.now(),
    );
  }

  async lines(runId: string, query: LineQuery): Promise<LineView & { run: RunSnapshot }> {
    await this.refresh(runId, query.sessionId);
    const record = this.registry.record(runId, query.sessionId);
    const view = lineView(record, this.store.allItems(runId), {
      limit: Math.min(Math.max(1, query.limit ?? 200), 10_000),
      ...(query.offset !== undefined ? { offset: query.offset } : {}),
    });
    return { ...view, run: snapshotOf(record, this.clock.now()) };
  }

  async bytes(runId: string, query: ByteQuery): Promise<OutputBytes> {
    await this.refresh(runId, query.sessionId);
    const record = this.registry.record(runId, query.sessionId);
    const read = readOutputRange({ record, store: this.store, archive: this.archive }, query);
    return {
      ...read,
      text: read.bytes.toString("utf8"),
      run: snapshotOf(record, this.clock.now()),
    };
  }

  async wholeCharacterBytes(
    runId: string,
    query: Omit<ByteQuery, "wholeCharacters">,
  ): Promise<OutputText> {
    const read = await this.bytes(runId, { ...query, wholeCharacters: true });
    return {
      text: read.text,
      offset: read.offset,
      byteLength: read.bytes.length,
      totalBytes: read.totalBytes,
      run: read.run,
    };
  }

  tail(runId: string, options: TailQuery): { text: string; truncated: boolean } {
    this.registry.record(runId, options.sessionId);
    return storeTail(this.store, runId, Math.max(1, options.maxChars ?? 2000));
  }

  async resourceUsage(
    runId: string,
    sessionId: string | undefined,
  ): Promise<{ usage: ResourceUsage | null; note?: string }> {
    const run = this.registry.live(runId, sessionId);
    if (run) {
      return runUsage(run);
    }
    const stored = this.registry.record(runId, sessionId).resourceUsage ?? null; // not found → throws
    return stored
      ? { usage: stored }
      : { usage: null, note: "no sample was taken while the command ran" };
  }

  async refresh(runId: string, sessionId: string | undefined): Promise<void> {
    const run = this.registry.live(runId, sessionId);
    if (run && run.record.status === "running") {
      await run.refresh();
    }
  }
}
