import { describe, expect, it } from "vitest";
import { ManualClock } from "../src/index.js";
import { resolveLimits } from "../src/tools.js";
import { splitText } from "../src/runs/output/output-log.js";
import { derivedName } from "../src/tools/core/format.js";
import { Scheduler } from "../src/runs/manager/scheduler.js";
import { lineView, tailText } from "../src/runs/views/views.js";
import { MemoryRunStore } from "../src/store/memory.js";
import type { RunItem, RunRecord } from "../src/model/run-record.js";

describe("resolveLimits", () => {
  it("uses options, then the environment, then defaults, always clamped", () => {
    expect(resolveLimits({}, {})).toEqual({
      yieldMs: 10_000,
      maxOutputChars: 200_000,
      ttlMs: 1_800_000,
      pendingMaxOutputChars: 30_000,
    });
    expect(
      resolveLimits(
        {},
        { PI_BASH_YIELD_MS: "2500", PI_BASH_MAX_OUTPUT_CHARS: "5000", PI_BASH_JOB_TTL_MS: "90000" },
      ),
    ).toEqual({
      yieldMs: 2500,
      maxOutputChars: 5000,
      ttlMs: 90_000,
      pendingMaxOutputChars: 30_000,
    });
    expect(resolveLimits({ yieldMs: 700 }, { PI_BASH_YIELD_MS: "2500" }).yieldMs).toBe(700);
    expect(
      resolveLimits(
        {},
        {
          OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS: "4000",
          ZERO_BASH_PENDING_MAX_OUTPUT_CHARS: "5000",
        },
      ).pendingMaxOutputChars,
    ).toBe(4000);
    expect(
      resolveLimits({}, { ZERO_BASH_PENDING_MAX_OUTPUT_CHARS: "5000" }).pendingMaxOutputChars,
    ).toBe(5000);
    expect(
      resolveLimits({ pendingMaxOutputChars: 2000 }, { ZERO_BASH_PENDING_MAX_OUTPUT_CHARS: "5000" })
        .pendingMaxOutputChars,
    ).toBe(2000);
    expect(
      resolveLimits({}, { ZERO_BASH_PENDING_MAX_OUTPUT_CHARS: "5" }).pendingMaxOutputChars,
    ).toBe(1000);
    expect(
      resolveLimits(
        {},
        {
          PI_BASH_YIELD_MS: "1",
          PI_BASH_JOB_TTL_MS: "999999999999",
          PI_BASH_MAX_OUTPUT_CHARS: "nope",
        },
      ),
    ).toEqual({
      yieldMs: 10,
      maxOutputChars: 200_000,
      ttlMs: 10_800_000,
      pendingMaxOutputChars: 30_000,
    });
  });
});

describe("ManualClock", () => {
  it("fires due timers in order and never early", () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push("b"), 20);
    clock.setTimeout(() => fired.push("a"), 10);
    const cancel = clock.setTimeout(() => fired.push("never"), 15);
    cancel();
    clock.advance(19);
    expect(fired).toEqual(["a"]);
    clock.advance(1);
    expect(fired).toEqual(["a", "b"]);
  });
});

describe("Scheduler", () => {
  it("queues beyond the caps, FIFO per session, and refuses beyond the queue limit", () => {
    const scheduler = new Scheduler({
      maxConcurrentRuns: 2,
      maxConcurrentPerSession: 1,
      maxQueuedRuns: 1,
    });
    const started: string[] = [];
    const start = (id: string) => () => started.push(id);
    expect(scheduler.admit("a1", "a", start("a1"))).toBe("started");
    expect(scheduler.admit("a2", "a", start("a2"))).toBe("queued");
    expect(scheduler.admit("b1", "b", start("b1"))).toBe("started");
    expect(() => scheduler.admit("a3", "a", start("a3"))).toThrow(/maxQueuedRuns 1/);
    scheduler.done("a1");
    expect(started).toEqual(["a1", "b1", "a2"]);
  });
});

describe("splitText", () => {
  it("splits after newlines where possible and never inside a surrogate pair", () => {
    expect(splitText("aaaa\nbbbbbb", 8)).toEqual(["aaaa\n", "bbbbbb"]);
    const emoji = "x".repeat(7) + "😀" + "y";
    const pieces = splitText(emoji, 8);
    expect(pieces.join("")).toBe(emoji);
    expect(pieces.every((p) => !/[\uD800-\uDBFF]$/.test(p))).toBe(true);
  });
});

function item(seq: number, text: string, byteOffset: number): RunItem {
  return { seq, kind: "output", text, atMs: 0, byteOffset };
}

describe("views", () => {
  const record = { lineCount: 4 } as RunRecord;
  it("gives the last lines, or lines by offset, over retained items", () => {
    const items = [item(0, "l0\nl1\n", 0), item(1, "l2\nl3\n", 6)];
    expect(lineView(record, items, { limit: 2 })).toMatchObject({
      lines: ["l2", "l3"],
      offset: 2,
      totalLines: 4,
    });
    expect(lineView(record, items, { offset: 1, limit: 2 })).toMatchObject({
      lines: ["l1", "l2"],
      offset: 1,
    });
  });

  it("never shows a possibly partial first line after retention dropped output", () => {
    const items = [item(5, "tail-of-l1\nl2\nl3\n", 20)];
    expect(lineView(record, items, { offset: 0, limit: 10 })).toMatchObject({
      lines: ["l2", "l3"],
      offset: 2,
      droppedLines: 2,
    });
  });

  it("tails by characters", () => {
    expect(tailText([item(0, "abc", 0), item(1, "def", 3)], 4)).toEqual({
      text: "cdef",
      truncated: true,
    });
  });

  it("tails on a character boundary: never half of a surrogate pair", () => {
    expect(tailText([item(0, "a🚀b", 0)], 2)).toEqual({ text: "b", truncated: true });
    expect(tailText([item(0, "a🚀b", 0)], 3)).toEqual({ text: "🚀b", truncated: true });
  });
});

describe("MemoryRunStore", () => {
  it("keeps at most maxItemsPerRun and maxCharsPerRun, oldest dropped first", () => {
    const store = new MemoryRunStore({ maxItemsPerRun: 3, maxCharsPerRun: 1000 });
    store.putRun({ id: "r", nextSeq: 5 } as RunRecord);
    store.appendItems(
      "r",
      [0, 1, 2, 3, 4].map((seq) => item(seq, `${seq}`, seq)),
    );
    expect(store.readItems("r", { sinceSeq: 0, limit: 10 })).toMatchObject({ firstSeq: 2 });
    const chars = new MemoryRunStore({ maxItemsPerRun: 100, maxCharsPerRun: 10 });
    chars.appendItems("r", [item(0, "12345", 0), item(1, "67890", 5), item(2, "x", 10)]);
    expect(chars.allItems("r").map((i) => i.seq)).toEqual([1, 2]);
  });
});

describe("derivedName", () => {
  it("is the command's verb and target, skipping env assignments, prefixes and options", () => {
    expect(derivedName({ command: "npm run build", args: null })).toBe("npm run");
    expect(derivedName({ command: "sleep 5 && echo done", args: null })).toBe("sleep 5");
    expect(derivedName({ command: "CI=1 sudo /usr/bin/make -j4 test", args: null })).toBe(
      "make test",
    );
    expect(
      derivedName({
        command: "/usr/bin/python3",
        args: ["-u", "/srv/app/train.py", "--epochs", "3"],
      }),
    ).toBe("python3 train.py");
    expect(derivedName({ command: "ls", args: null })).toBe("ls");
    expect(derivedName({ command: `echo ${"x".repeat(100)}`, args: null })).toHaveLength(60);
  });
});
