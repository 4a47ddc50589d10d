/** OutputBuffer.textSince: the text from a stream offset, for exact increments. */
import { describe, expect, it } from "vitest";
import { OutputBuffer } from "../src/output/output-buffer.js";

const utf8 = (text: string): Uint8Array => Buffer.from(text, "utf8");

function bufferOf(limit: number, ...chunks: (string | Uint8Array)[]): OutputBuffer {
  const buffer = new OutputBuffer(limit);
  for (const chunk of chunks) {
    buffer.append(typeof chunk === "string" ? utf8(chunk) : chunk);
  }
  return buffer;
}

describe("OutputBuffer.textSince", () => {
  it("returns the text after an offset inside the retained bytes, and nothing at the end", () => {
    const buffer = bufferOf(100, "hello ", "world");
    expect(buffer.textSince(0)).toEqual({ text: "hello world", fromByte: 0 });
    expect(buffer.textSince(6)).toEqual({ text: "world", fromByte: 6 });
    expect(buffer.textSince(10)).toEqual({ text: "d", fromByte: 10 });
    expect(buffer.textSince(11)).toEqual({ text: "", fromByte: 11 });
  });

  it("starts at the first retained character when the offset was dropped (N-1, N, N+1 around droppedBytes)", () => {
    const buffer = bufferOf(5, "0123456789"); // keeps "56789", droppedBytes 5
    expect(buffer.textSince(4)).toEqual({ text: "56789", fromByte: 5 });
    expect(buffer.textSince(5)).toEqual({ text: "56789", fromByte: 5 });
    expect(buffer.textSince(6)).toEqual({ text: "6789", fromByte: 6 });
  });

  it("moves an offset inside a character forward to the next boundary", () => {
    const buffer = bufferOf(100, "a€b"); // € is bytes 1..3
    expect(buffer.textSince(1)).toEqual({ text: "€b", fromByte: 1 });
    expect(buffer.textSince(2)).toEqual({ text: "b", fromByte: 4 });
    expect(buffer.textSince(3)).toEqual({ text: "b", fromByte: 4 });
  });

  it("starts on the retained character boundary when the limit cut a character", () => {
    const buffer = bufferOf(4, "x€€"); // 7 bytes; the ring holds the last 4: one continuation byte, then €
    expect(buffer.droppedBytes).toBe(4);
    expect(buffer.textSince(0)).toEqual({ text: "€", fromByte: 4 });
    expect(buffer.textSince(3)).toEqual({ text: "€", fromByte: 4 });
  });

  it("holds back an incomplete character at the end while running, like text()", () => {
    const euro = utf8("€");
    const buffer = bufferOf(100, "ab", euro.subarray(0, 2));
    expect(buffer.textSince(1)).toEqual({ text: "b", fromByte: 1 });
    expect(buffer.textSince(2)).toEqual({ text: "", fromByte: 2 });
    buffer.append(euro.subarray(2));
    expect(buffer.textSince(2)).toEqual({ text: "€", fromByte: 2 });
  });

  it("joins increments read at every totalBytes into the whole text, across a wrapping ring", () => {
    const buffer = new OutputBuffer(4096);
    let joined = "";
    let cursor = 0;
    const whole: string[] = [];
    for (let i = 0; i < 400; i++) {
      const line = `line ${i} é€😀\n`;
      whole.push(line);
      buffer.append(utf8(line));
      const { text, fromByte } = buffer.textSince(cursor);
      expect(fromByte).toBe(cursor);
      joined += text;
      cursor = buffer.totalBytes - buffer.pendingBytes;
    }
    expect(joined).toBe(whole.join(""));
  });
});

describe("OutputBuffer.bytesSince", () => {
  it("covers the same bytes as textSince, from the boundary past dropped bytes to before an incomplete character", () => {
    const buffer = bufferOf(6, "ab€", Buffer.from("€").subarray(0, 2)); // 7 bytes; keeps "b€" + half a €
    const read = buffer.bytesSince(0);
    expect(Buffer.from(read.bytes).toString("utf8")).toBe(buffer.textSince(0).text);
    expect(read.fromByte).toBe(buffer.textSince(0).fromByte);
  });

  it("stops at maxBytes, earlier when that would split a character, so the next read starts on it", () => {
    const buffer = bufferOf(100, "a€€b"); // a | € 1..3 | € 4..6 | b 7
    expect(buffer.bytesSince(0, 3)).toMatchObject({ fromByte: 0 });
    expect(Buffer.from(buffer.bytesSince(0, 3).bytes).toString("utf8")).toBe("a");
    expect(Buffer.from(buffer.bytesSince(0, 4).bytes).toString("utf8")).toBe("a€");
    expect(Buffer.from(buffer.bytesSince(1, 5).bytes).toString("utf8")).toBe("€");
    expect(Buffer.from(buffer.bytesSince(4, 100).bytes).toString("utf8")).toBe("€b");
    expect(buffer.bytesSince(8)).toMatchObject({ fromByte: 8 });
    expect(buffer.bytesSince(8).bytes.byteLength).toBe(0);
  });
});

describe("OutputBuffer.viewSince", () => {
  it("never copies: stops where the ring wraps, and a loop from each end reads every byte once", () => {
    const buffer = new OutputBuffer(8);
    buffer.append(utf8("abcdef"));
    buffer.append(utf8("ghij")); // the ring holds "cdefghij", its start is not at index 0
    const first = buffer.viewSince(0);
    expect(first.fromByte).toBe(2);
    expect(first.bytes.byteLength).toBeLessThan(8);
    let text = "";
    for (
      let at = 0, read = buffer.viewSince(0);
      read.bytes.byteLength > 0;
      read = buffer.viewSince(at)
    ) {
      text += Buffer.from(read.bytes).toString("utf8");
      at = read.fromByte + read.bytes.byteLength;
    }
    expect(text).toBe("cdefghij");
  });

  it("returns a character that spans the ring's wrap whole rather than nothing", () => {
    const buffer = new OutputBuffer(8);
    buffer.append(utf8("abcdef")); // indexes 0..5
    buffer.append(utf8("g€")); // g at 6, € at 7, 0, 1: across the wrap
    const read = buffer.viewSince(7);
    expect(Buffer.from(read.bytes).toString("utf8")).toBe("€");
    expect(read.fromByte).toBe(7);
  });
});
