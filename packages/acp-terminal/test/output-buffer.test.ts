import { afterEach, describe, expect, it, vi } from "vitest";
import { TerminalError } from "../src/core/errors.js";
import { OutputBuffer } from "../src/output/output-buffer.js";

const utf8 = (text: string): Uint8Array => Buffer.from(text, "utf8");

function bufferOf(limit: number, ...chunks: (string | Uint8Array)[]): OutputBuffer {
  const buffer = new OutputBuffer(limit);
  for (const chunk of chunks) {
    buffer.append(typeof chunk === "string" ? utf8(chunk) : chunk);
  }
  return buffer;
}

describe("OutputBuffer limits", () => {
  it("keeps everything below, at and drops from the beginning above the limit (N-1, N, N+1)", () => {
    const atMinusOne = bufferOf(5, "abcd");
    expect([atMinusOne.text(), atMinusOne.truncated, atMinusOne.droppedBytes]).toEqual([
      "abcd",
      false,
      0,
    ]);
    const atLimit = bufferOf(5, "abcde");
    expect([atLimit.text(), atLimit.truncated, atLimit.droppedBytes]).toEqual(["abcde", false, 0]);
    const atPlusOne = bufferOf(5, "abcdef");
    expect([atPlusOne.text(), atPlusOne.truncated, atPlusOne.droppedBytes]).toEqual([
      "bcdef",
      true,
      1,
    ]);
  });

  it("limit 0 keeps nothing and is truncated from the first byte", () => {
    const buffer = new OutputBuffer(0);
    buffer.append(new Uint8Array(0));
    expect(buffer.truncated).toBe(false);
    buffer.append(utf8("x"));
    expect([buffer.text(), buffer.truncated, buffer.totalBytes, buffer.droppedBytes]).toEqual([
      "",
      true,
      1,
      1,
    ]);
  });

  it("truncated is sticky", () => {
    const buffer = bufferOf(3, "abcd");
    expect(buffer.truncated).toBe(true);
    buffer.append(utf8("e"));
    expect(buffer.truncated).toBe(true);
    expect(buffer.text()).toBe("cde");
  });

  it("wraps around its ring across many appends and keeps the newest bytes in order", () => {
    const buffer = new OutputBuffer(10);
    let all = "";
    for (let i = 0; i < 100; i++) {
      const chunk = String(i % 10).repeat((i % 4) + 1);
      all += chunk;
      buffer.append(utf8(chunk));
      expect(buffer.text()).toBe(all.slice(-10));
    }
    expect(buffer.totalBytes).toBe(all.length);
    expect(buffer.droppedBytes).toBe(all.length - 10);
  });

  it("reading the whole text of a wrapped ring turns it in place: the bytes, offsets and later appends stay as they were", () => {
    for (const limit of [7, 64, 1000]) {
      const buffer = new OutputBuffer(limit);
      let all = "";
      for (let i = 0; i < 300; i++) {
        const piece = `${i},`.repeat((i % 5) + 1);
        buffer.append(utf8(piece));
        all += piece;
        if (i % 7 === 0) {
          expect(buffer.text()).toBe(all.slice(-limit));
        }
        const since = buffer.totalBytes - Math.min(5, buffer.totalBytes - buffer.droppedBytes);
        expect(new TextDecoder().decode(buffer.bytesSince(since).bytes)).toBe(all.slice(since));
      }
      expect(buffer.text()).toBe(all.slice(-limit));
      expect(buffer.textSince(all.length - 3)).toEqual({
        text: all.slice(-3),
        fromByte: all.length - 3,
      });
    }
  });

  it("reset forgets every byte, as a new buffer would, and takes new ones", () => {
    const buffer = new OutputBuffer(8);
    buffer.append(utf8("0123456789"));
    buffer.end();
    const version = buffer.version;
    buffer.reset();
    expect(buffer.version).not.toBe(version);
    expect([buffer.totalBytes, buffer.droppedBytes, buffer.truncated, buffer.ended]).toEqual([
      0,
      0,
      false,
      false,
    ]);
    expect(buffer.text()).toBe("");
    buffer.append(utf8("abcdefghij"));
    expect(buffer.text()).toBe("cdefghij");
    expect(buffer.droppedBytes).toBe(2);
  });

  it("a chunk larger than the limit keeps its tail", () => {
    const buffer = bufferOf(4, "ab", "0123456789");
    expect(buffer.text()).toBe("6789");
    expect(buffer.totalBytes).toBe(12);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10"])(
    "rejects the limit %s",
    (limit) => {
      expect(() => new OutputBuffer(limit as number)).toThrow(TerminalError);
      expect(() => new OutputBuffer(limit as number)).toThrow(/outputByteLimit/);
    },
  );
});

describe("OutputBuffer character boundaries", () => {
  // "é" is 2 bytes, "€" 3, "😀" 4.
  it.each([
    ["2-byte", "é", 1],
    ["3-byte", "€", 2],
    ["4-byte", "😀", 3],
  ])("a cut inside a %s character skips its continuation bytes", (_, char, keptOfChar) => {
    const encoded = utf8(`${char}ab`);
    // Keep `keptOfChar` trailing bytes of the character plus "ab": the cut falls inside it.
    const buffer = bufferOf(keptOfChar + 2, encoded);
    expect(buffer.text()).toBe("ab");
    expect(buffer.truncated).toBe(true);
    expect(buffer.retainedBytes).toBe(2);
    expect(buffer.droppedBytes).toBe(encoded.length - 2);
    expect([...buffer.bytes()]).toEqual([...utf8("ab")]);
  });

  it("a cut right before a character keeps it whole", () => {
    const buffer = bufferOf(6, "x€ab"); // 1 + 3 + 2 bytes: limit 5 would cut "x" only
    expect(buffer.text()).toBe("x€ab");
    const cut = bufferOf(5, "x€ab");
    expect(cut.text()).toBe("€ab");
    expect(cut.droppedBytes).toBe(1);
  });

  it("decodes characters split across chunks", () => {
    const bytes = utf8("é€😀");
    const buffer = new OutputBuffer(100);
    for (const byte of bytes) {
      buffer.append(Uint8Array.of(byte));
    }
    expect(buffer.text()).toBe("é€😀");
  });

  it("holds back an incomplete character at the end until it completes or the stream ends", () => {
    const euro = utf8("€");
    const buffer = bufferOf(100, "a", euro.subarray(0, 2));
    expect(buffer.text()).toBe("a");
    expect(buffer.totalBytes).toBe(3);
    buffer.append(euro.subarray(2));
    expect(buffer.text()).toBe("a€");

    const ended = bufferOf(100, "a", euro.subarray(0, 2));
    ended.end();
    expect(ended.text()).toBe("a\uFFFD");
  });

  it("counts the held-back bytes in pendingBytes until the character completes or the stream ends", () => {
    const euro = utf8("€");
    const buffer = bufferOf(100, "a", euro.subarray(0, 2));
    expect(buffer.pendingBytes).toBe(2);
    buffer.append(euro.subarray(2));
    expect(buffer.pendingBytes).toBe(0);
    buffer.append(euro.subarray(0, 1));
    expect(buffer.pendingBytes).toBe(1);
    buffer.end();
    expect(buffer.pendingBytes).toBe(0);
  });

  it("gives the held-back bytes in pendingTail, so bytesSince(0) and they are every byte received", () => {
    const rocket = utf8("🚀");
    const buffer = bufferOf(100, "a", rocket.subarray(0, 3));
    expect([...buffer.bytesSince(0).bytes]).toEqual([0x61]);
    expect([...buffer.pendingTail()]).toEqual([...rocket.subarray(0, 3)]);
    buffer.append(rocket.subarray(3));
    expect(buffer.pendingTail()).toEqual(new Uint8Array(0));
    expect(Buffer.from(buffer.bytesSince(0).bytes).toString()).toBe("a🚀");
  });

  it.each([
    ["untruncated", 100],
    ["truncated inside a character", 4],
    ["truncated to the pending bytes alone", 1],
  ])(
    "text() is bytes [droppedBytes, totalBytes - pendingBytes) after every append (%s)",
    (_, limit) => {
      const buffer = new OutputBuffer(limit);
      // "é€😀" one byte at a time: every append leaves a different incomplete tail, or none.
      for (const byte of utf8("xé€😀y")) {
        buffer.append(Uint8Array.of(byte));
        const textBytes = utf8(buffer.text()).length;
        expect(textBytes).toBe(buffer.totalBytes - buffer.pendingBytes - buffer.droppedBytes);
      }
    },
  );

  it("counts the command's raw bytes: decoded text may be longer in UTF-8 than the limit", () => {
    const buffer = bufferOf(4, Uint8Array.of(0xff, 0xfe, 0x80, 0xc0));
    buffer.end();
    // Four invalid bytes fit the limit exactly; each decodes to U+FFFD, three bytes in UTF-8.
    expect([buffer.text(), buffer.truncated, buffer.totalBytes]).toEqual([
      "\uFFFD".repeat(4),
      false,
      4,
    ]);
    expect(Buffer.byteLength(buffer.text())).toBe(12);
  });

  it("turns invalid UTF-8 into U+FFFD", () => {
    const buffer = bufferOf(100, Uint8Array.of(0x61, 0xff, 0x62, 0xc0, 0x80, 0x63));
    buffer.end();
    expect(buffer.text()).toBe("a\uFFFDb\uFFFD\uFFFDc");
  });

  it("does not skip more than 3 continuation bytes at the cut", () => {
    const buffer = bufferOf(6, Uint8Array.of(0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x42));
    buffer.end();
    expect(buffer.retainedBytes).toBe(3);
    expect(buffer.text()).toBe("\uFFFD\uFFFDB");
  });

  it("does not skip continuation bytes at the start of untruncated output", () => {
    const buffer = bufferOf(10, Uint8Array.of(0x80, 0x41));
    expect(buffer.text()).toBe("\uFFFDA");
    expect(buffer.droppedBytes).toBe(0);
  });
});

describe("OutputBuffer work", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("caches decoded text until new bytes arrive", () => {
    const buffer = bufferOf(100, "abc");
    const decode = vi.spyOn(TextDecoder.prototype, "decode");
    expect(buffer.text()).toBe("abc");
    expect(buffer.text()).toBe("abc");
    expect(decode).toHaveBeenCalledTimes(1);
    buffer.append(utf8("d"));
    expect(buffer.text()).toBe("abcd");
    expect(decode).toHaveBeenCalledTimes(2);
  });

  it("copies O(bytes appended) for many small chunks, never concatenating the whole buffer", () => {
    const limit = 64 * 1024;
    const buffer = new OutputBuffer(limit);
    const set = vi.spyOn(Uint8Array.prototype, "set");
    const concat = vi.spyOn(Buffer, "concat");
    const chunk = utf8("0123456789abcdef");
    const chunks = 50_000; // 800 KB through a 64 KiB buffer
    for (let i = 0; i < chunks; i++) {
      buffer.append(chunk);
    }
    const copied = set.mock.calls.reduce(
      (sum, [source]) => sum + (source as ArrayLike<number>).length,
      0,
    );
    const appended = chunks * chunk.length;
    // Each byte is copied in once; growing the ring by doubling copies less than `limit` more.
    expect(copied).toBeLessThanOrEqual(appended + 2 * limit);
    expect(concat).not.toHaveBeenCalled();
    expect(buffer.totalBytes).toBe(appended);
    expect(buffer.droppedBytes).toBe(appended - limit);
    expect(buffer.text().length).toBe(limit);
  });
});
