/**
 * `--json`'s output events of the CLI's own terminals (JsonOutputStream): every byte while the
 * reader keeps up; while it lags, the first bytes, then an exact account of what was skipped,
 * resuming on a line boundary or saying the event starts inside a line.
 */
import { describe, expect, it } from "vitest";
import {
  FIRST_BYTES,
  JsonOutputStream,
  LAGGING_FINAL_BYTES,
  MAX_EVENT_BYTES,
  WAITING_BYTES,
  type OutputEventFields,
} from "../src/render/json-output-stream.js";

interface Event extends OutputEventFields {
  bytes: Buffer;
}

function streamOf() {
  const events: Event[] = [];
  const stream = new JsonOutputStream((bytes, fields) =>
    events.push({ bytes: Buffer.from(bytes), ...fields }),
  );
  return { stream, events };
}

// 1288895 bytes, 200000 lines, as `seq 1 200000` writes them.
const SEQ = Buffer.from(Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join(""));
const newlines = (bytes: Buffer) => bytes.toString("latin1").split("\n").length - 1;

/** What the events account for: bytes and lines written plus those they say were skipped. */
function accounted(events: Event[]) {
  return {
    bytes: events.reduce((sum, e) => sum + e.bytes.byteLength + (e.skippedBytes ?? 0), 0),
    lines: events.reduce((sum, e) => sum + newlines(e.bytes) + (e.skippedLines ?? 0), 0),
  };
}

function feed(stream: JsonOutputStream, bytes: Uint8Array, size: number, canWrite: () => boolean) {
  for (let at = 0; at < bytes.byteLength; at += size) {
    stream.append(bytes.subarray(at, at + size), canWrite);
  }
}

describe("--json output of the CLI's terminals", () => {
  it("while the reader keeps up, the events are the output byte for byte, a character split across chunks whole", () => {
    const { stream, events } = streamOf();
    const text = Buffer.from("é✓🚀 ".repeat(50_000));
    feed(stream, text, 4093, () => true);
    stream.end(false);
    expect(Buffer.concat(events.map((e) => e.bytes)).equals(text)).toBe(true);
    expect(events.every((e) => e.bytes.byteLength <= MAX_EVENT_BYTES)).toBe(true);
    expect(events.every((e) => !e.bytes.toString("utf8").includes("\ufffd"))).toBe(true);
    expect(events.some((e) => e.skippedBytes !== undefined)).toBe(false);
  });

  it("lagging from the start: the first event carries the command's first bytes, the skip is exact and the next event starts a line", () => {
    const { stream, events } = streamOf();
    let reading = false;
    feed(stream, SEQ, 65536, () => reading);
    reading = true;
    stream.drain(() => reading);
    stream.end(false);
    expect(events[0]!.bytes.toString().startsWith("1\n2\n3\n")).toBe(true);
    expect(events[0]!.bytes.byteLength).toBe(FIRST_BYTES);
    const skipping = events.filter((e) => e.skippedBytes !== undefined);
    expect(skipping).toHaveLength(1);
    const [skip] = skipping;
    // The newest WAITING_BYTES were held: resumed after the first newline in them.
    const oldestHeld = SEQ.byteLength - WAITING_BYTES;
    const resumeAt = SEQ.indexOf(0x0a, oldestHeld) + 1;
    expect(skip).toMatchObject({
      skippedBytes: resumeAt - FIRST_BYTES,
      skippedLines: newlines(SEQ.subarray(FIRST_BYTES, resumeAt)),
    });
    expect(skip).not.toHaveProperty("partial");
    expect(skip!.bytes.equals(SEQ.subarray(resumeAt, resumeAt + skip!.bytes.byteLength))).toBe(
      true,
    );
    expect(accounted(events)).toEqual({ bytes: SEQ.byteLength, lines: 200_000 });
    expect(
      Buffer.concat(events.map((e) => e.bytes))
        .toString()
        .endsWith("199999\n200000\n"),
    ).toBe(true);
  });

  it("lagging in the middle: the events before are whole, the skip starts after the last byte written", () => {
    const { stream, events } = streamOf();
    let reading = true;
    for (let at = 0; at < SEQ.byteLength; at += 4096) {
      reading = at < 100_000 || at > 1_200_000;
      stream.append(SEQ.subarray(at, at + 4096), () => reading);
      if (reading) {
        stream.drain(() => true);
      }
    }
    stream.end(false);
    expect(accounted(events)).toEqual({ bytes: SEQ.byteLength, lines: 200_000 });
    const written = Buffer.concat(events.map((e) => e.bytes)).toString();
    // Every event after a skip starts on a line: no fragment of a number.
    for (const event of events.filter((e) => e.skippedBytes !== undefined)) {
      const first = event.bytes.toString().split("\n")[0]!;
      expect(SEQ.includes(Buffer.from(`\n${first}\n`))).toBe(true);
    }
    expect(written.startsWith("1\n2\n")).toBe(true);
  });

  it("a line with no newline in what was held: the event says it starts inside a line", () => {
    const { stream, events } = streamOf();
    let reading = false;
    const chunk = Buffer.alloc(65536, 0x78);
    for (let i = 0; i < 40; i++) {
      stream.append(chunk, () => reading);
    }
    reading = true;
    stream.drain(() => reading);
    stream.end(false);
    const skip = events.find((e) => e.skippedBytes !== undefined);
    expect(skip).toMatchObject({
      skippedBytes: 40 * 65536 - FIRST_BYTES - WAITING_BYTES,
      skippedLines: 0,
      partial: true,
    });
    expect(accounted(events).bytes).toBe(40 * 65536);
  });

  it("exits while the reader lags: the first bytes, then the newest ones from a line start, the skip between said exactly", () => {
    const { stream, events } = streamOf();
    feed(stream, SEQ, 65536, () => false);
    stream.end(true);
    expect(events).toHaveLength(2);
    const [first, last] = events;
    expect(first!.bytes.equals(SEQ.subarray(0, FIRST_BYTES))).toBe(true);
    const resumeAt = SEQ.indexOf(0x0a, SEQ.byteLength - LAGGING_FINAL_BYTES) + 1;
    expect(last).toMatchObject({
      skippedBytes: resumeAt - FIRST_BYTES,
      skippedLines: newlines(SEQ.subarray(FIRST_BYTES, resumeAt)),
    });
    expect(last!.bytes.equals(SEQ.subarray(resumeAt))).toBe(true);
  });
});
