import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ProcessError } from "../../base/errors.js";
import { existingSegments, SEGMENT_BYTES } from "./segment-files.js";
import { SpillFile } from "./spill-file.js";
import { spillTempDirectory } from "./spill-directory.js";

/** Default disk quota of one manager's spilled output. */
export const DEFAULT_SPILL_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;
/** The smallest quota accepted: four segments (one being written, room to evict). */
export const MIN_SPILL_QUOTA_BYTES = 4 * SEGMENT_BYTES;

export interface OutputSpillOptions {
  /**
   * Where spilled output goes: one directory per run. Default: the store's (`SqliteRunStore`:
   * `<file>.output/`, kept across restarts), else a temporary directory removed by `dispose()`.
   */
  directory?: string;
  /** Disk quota for all runs of the manager. Default 2 GiB; at least 64 MiB. */
  quotaBytes?: number;
}

/** What the archive asks the manager about a run it may evict. */
export interface SpillCandidate {
  runId: string;
  finished: boolean;
  /** When it ended (finished) or was created (live): older goes first. */
  atMs: number;
}

/**
 * A manager's spilled output: one `SpillFile` per run in a directory of its own, under a disk
 * quota. Over the quota, whole spills of finished runs go first, the oldest first (runs the
 * manager no longer knows, even before them), then the oldest segments of live runs. The
 * directory is made on the first spill; a temporary one is removed by `dispose()`.
 */
export class OutputArchive {
  readonly quotaBytes: number;
  private root: string | undefined;
  private temporary = false;
  private readonly files = new Map<string, SpillFile>();
  private usedBytes = 0;
  private scanned = false;
  private enforcing = false;

  constructor(
    options: OutputSpillOptions & { storeDirectory?: string | undefined },
    private readonly candidates: () => SpillCandidate[],
  ) {
    const quota = options.quotaBytes ?? DEFAULT_SPILL_QUOTA_BYTES;
    if (!Number.isInteger(quota) || quota < MIN_SPILL_QUOTA_BYTES) {
      throw ProcessError.invalidParams(
        "outputSpill.quotaBytes",
        `a whole number of bytes, at least ${MIN_SPILL_QUOTA_BYTES} (64 MiB)`,
        quota,
      );
    }
    this.quotaBytes = quota;
    this.root = options.directory ?? options.storeDirectory;
  }

  /** Bytes of spilled output on disk now (all runs). */
  get diskBytes(): number {
    this.scan();
    return this.usedBytes;
  }

  /** The directory in use (undefined until something is spilled with no directory configured). */
  get directory(): string | undefined {
    return this.root;
  }

  /** The run's spill, when it has one (made before, or by an earlier process on this directory). */
  existing(runId: string): SpillFile | undefined {
    this.scan();
    return this.files.get(runId);
  }

  /** The run's spill, made now if it has none. */
  create(runId: string): SpillFile {
    const known = this.existing(runId);
    if (known) {
      return known;
    }
    const dir = join(this.rootDirectory(), safeName(runId));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = new SpillFile(dir, (bytes) => this.grew(bytes));
    this.files.set(runId, file);
    return file;
  }

  /** Forgets a run's spill and deletes its files. */
  delete(runId: string): void {
    const file = this.existing(runId);
    if (!file) {
      return;
    }
    file.close();
    this.usedBytes -= sum(file.segments);
    this.files.delete(runId);
    rmSync(file.dir, { recursive: true, force: true });
  }

  /** Closes every file; a temporary directory is removed with what it holds. */
  dispose(): void {
    for (const file of this.files.values()) {
      file.close();
    }
    if (this.temporary && this.root) {
      rmSync(this.root, { recursive: true, force: true });
      this.files.clear();
      this.usedBytes = 0;
    }
  }

  private rootDirectory(): string {
    if (this.root === undefined) {
      this.root = spillTempDirectory();
      this.temporary = true;
      this.scanned = true; // new and empty
    }
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    return this.root;
  }

  /** Spills left in the directory by an earlier process (a restart on the same SQLite file). */
  private scan(): void {
    if (this.scanned || this.root === undefined) {
      return;
    }
    this.scanned = true;
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch {
      return; // not made yet
    }
    for (const name of names) {
      const dir = join(this.root, name);
      if (this.files.has(runIdOf(name))) {
        continue;
      }
      let segmentNames: string[];
      try {
        segmentNames = readdirSync(dir);
      } catch {
        continue;
      }
      const file = new SpillFile(dir, (bytes) => this.grew(bytes));
      for (const [index, size] of existingSegments(dir, segmentNames)) {
        file.segments.set(index, size);
        this.usedBytes += size;
      }
      file.close();
      this.files.set(runIdOf(name), file);
    }
  }

  private grew(bytes: number): void {
    this.usedBytes += bytes;
    if (this.usedBytes > this.quotaBytes && !this.enforcing) {
      this.enforcing = true;
      try {
        this.evict();
      } finally {
        this.enforcing = false;
      }
    }
  }

  /** Back under 90% of the quota: runs the manager does not know, finished runs, then live runs' oldest segments. */
  private evict(): void {
    const target = Math.floor(this.quotaBytes * 0.9);
    const known = new Map(this.candidates().map((c) => [c.runId, c]));
    const order = [...this.files.keys()].sort((a, b) => rank(known.get(a)) - rank(known.get(b)));
    for (const runId of order) {
      if (this.usedBytes <= target) {
        return;
      }
      const candidate = known.get(runId);
      if (candidate === undefined || candidate.finished) {
        // Whole spills of finished runs: their retained window (the store's items) stays readable.
        const file = this.files.get(runId)!;
        for (let freed = file.evictOldest(); freed > 0; freed = file.evictOldest()) {
          this.usedBytes -= freed;
        }
      }
    }
    for (const runId of order) {
      const file = this.files.get(runId)!;
      for (let freed = 1; this.usedBytes > target && freed > 0;) {
        freed = file.evictOldest();
        this.usedBytes -= freed;
      }
    }
  }
}

/** Unknown runs first, then finished runs oldest first, then live runs oldest first. */
function rank(candidate: SpillCandidate | undefined): number {
  if (candidate === undefined) {
    return -Infinity;
  }
  return (candidate.finished ? 0 : 1e15) + candidate.atMs;
}

function sum(segments: Map<number, number>): number {
  let total = 0;
  for (const size of segments.values()) {
    total += size;
  }
  return total;
}

/** Run ids are ours (`run_…`), but a stored id is data: keep it to a plain file name. */
function safeName(runId: string): string {
  return /^[A-Za-z0-9_-]{1,128}$/.test(runId)
    ? runId
    : `id-${Buffer.from(runId).toString("hex").slice(0, 200)}`;
}

function runIdOf(name: string): string {
  return name.startsWith("id-") ? Buffer.from(name.slice(3), "hex").toString("utf8") : name;
}

/** The manager's archive from its `outputSpill` option (undefined: `false`, no spill). */
export function archiveFor(
  option: OutputSpillOptions | false | undefined,
  store: { outputDirectory?: string | undefined },
  runs: () => { id: string; status: string; endedAtMs: number | null; createdAtMs: number }[],
): OutputArchive | undefined {
  if (option === false) {
    return undefined;
  }
  return new OutputArchive({ ...option, storeDirectory: store.outputDirectory }, () =>
    runs().map((r) => ({
      runId: r.id,
      finished: r.status !== "queued" && r.status !== "running",
      atMs: r.endedAtMs ?? r.createdAtMs,
    })),
  );
}
