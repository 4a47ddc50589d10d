/** The lines written to the agent: a long answer escaped a slice at a time into one reused buffer. */
import { describe, expect, it } from "vitest";
import { LONG_STRING_UNITS, messageLine } from "../src/agent/message-lines.js";

/** The line as the pieces make it (each copied before the next is asked for, as stdin does). */
function written(message: unknown): { line: string; pieces: number; reused: boolean } {
  const pieces: Buffer[] = [];
  let reused = false;
  for (const piece of messageLine(message)) {
    pieces.push(Buffer.from(piece.bytes));
    reused ||= piece.reused;
  }
  return { line: Buffer.concat(pieces).toString("utf8"), pieces: pieces.length, reused };
}

const answer = (output: string) => ({
  jsonrpc: "2.0",
  id: 7,
  result: { output, truncated: true, exitStatus: { exitCode: 0, signal: null }, _meta: { x: [1] } },
});

describe("messageLine", () => {
  it("writes a short message in one piece, as JSON.stringify does", () => {
    const message = answer("hi");
    expect(written(message)).toEqual({
      line: `${JSON.stringify(message)}\n`,
      pieces: 1,
      reused: false,
    });
  });

  it("writes a long string in result byte for byte as JSON.stringify, in pieces of at most 96 KiB and a few", () => {
    const samples = [
      "x".repeat(1 << 20),
      "\u0000".repeat(1 << 20),
      'é✓🚀"\\\n\t\b\f\r\u001f\u007f'.repeat(1 << 16),
      // A lone surrogate, and a pair that would be cut by the slice: escaped as JSON.stringify does.
      `${"a".repeat(16 * 1024 - 1)}😀\ud800b\udc00${"c".repeat(LONG_STRING_UNITS)}`,
    ];
    for (const output of samples) {
      const message = answer(output);
      const { line, pieces, reused } = written(message);
      expect(line).toBe(`${JSON.stringify(message)}\n`);
      expect(reused).toBe(true);
      expect(pieces).toBeGreaterThan(output.length / (16 * 1024));
    }
  });

  it("keeps an id of null, error answers and requests as they are", () => {
    for (const message of [
      { jsonrpc: "2.0", id: null, result: { content: "y".repeat(LONG_STRING_UNITS) } },
      { jsonrpc: "2.0", id: 1, error: { code: -32002, message: "z".repeat(LONG_STRING_UNITS) } },
      { jsonrpc: "2.0", id: 2, method: "m", params: { text: "w".repeat(LONG_STRING_UNITS) } },
    ]) {
      expect(written(message).line).toBe(`${JSON.stringify(message)}\n`);
    }
  });
});
