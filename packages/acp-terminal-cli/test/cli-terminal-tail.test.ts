import path from "node:path";
import { describe, expect, it } from "vitest";
import { FirstLineSniffer } from "../src/agent/first-line-sniffer.js";
import { leadingProgram, programExists } from "../src/agent/command-lookup.js";
import { MAX_LINE_CHARS } from "../src/render/display-line.js";
import { LineStream } from "../src/render/line-stream.js";
import { TerminalTail } from "../src/render/terminal-tail.js";
import { OutputBuffer } from "acp-terminal/internal";
import { columnsWide, fitColumns } from "../src/render/display-width.js";
import { counting } from "./counting-reader.js";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));

/** A terminal's buffer as the host keeps it, and a tail and a line stream reading it. */
function terminalOf(limit = 1024 * 1024, maxLines?: number) {
  const buffer = new OutputBuffer(limit);
  const tail = new TerminalTail(buffer, maxLines);
  const stream = new LineStream(() => tail.source);
  return {
    buffer,
    tail,
    stream,
    write: (text: string | Uint8Array) =>
      buffer.append(typeof text === "string" ? bytes(text) : text),
  };
}

describe("TerminalTail and LineStream, over the host's buffer", () => {
  it("keeps the newest lines and counts the rest", () => {
    const { tail, stream, write } = terminalOf(1024, 3);
    write("1\n2\n3\n4\n5\npartial");
    expect(stream.take(100)).toEqual(["1", "2", "3", "4", "5"]);
    expect(stream.take(100)).toEqual([]);
    expect(tail.tail()).toEqual(["4", "5", "partial"]);
    expect(tail.completeTail()).toEqual(["3", "4", "5"]);
    expect(tail.hiddenLines()).toEqual({ lines: 3, exact: true });
    expect(tail.partialLine).toBe("partial");
  });

  it("keeps a character split across chunks whole", () => {
    const { stream, write } = terminalOf();
    const euro = Buffer.from("€\n", "utf8");
    write(euro.subarray(0, 1));
    expect(stream.take(10)).toEqual([]);
    write(euro.subarray(1, 2));
    expect(stream.take(10)).toEqual([]);
    write(euro.subarray(2));
    expect(stream.take(10)).toEqual(["€"]);
  });

  it("shows what a terminal shows: no escape sequences, \\r overwrites, CRLF ends a line", () => {
    const { tail, stream, write } = terminalOf();
    write("\x1b[31mred\x1b[0m\r\nprogress 10%\rprogress 100%\n");
    expect(stream.take(10)).toEqual(["red", "progress 100%"]);
    expect(tail.tail()).toEqual(["red", "progress 100%"]);
  });

  it("caps long lines", () => {
    const { tail, stream, write } = terminalOf();
    write(`${"x".repeat(MAX_LINE_CHARS * 3)}\n`);
    const [line] = stream.take(10);
    expect(line).toHaveLength(MAX_LINE_CHARS);
    expect(line!.endsWith("…")).toBe(true);
    expect(tail.tail()[0]).toBe(line);
  });

  it("never cuts a long line or an endless one inside a surrogate pair (emoji stay whole)", () => {
    const { tail, stream, write } = terminalOf();
    // "é✓🚀" is 4 UTF-16 units; MAX_LINE_CHARS - 1 = 399 ends inside the 100th rocket.
    const line = "é✓🚀".repeat(MAX_LINE_CHARS);
    write(`${line}\n`);
    expect(stream.take(10)).toEqual([`${"é✓🚀".repeat(99)}é✓…`]);
    // The newest 1600 units of this endless line would start on the second half of a rocket.
    write(`abc${line}`);
    expect(tail.partialLine!.startsWith("é✓🚀")).toBe(true);
  });

  it("bounds an endless line without a newline", () => {
    const { tail, write } = terminalOf();
    for (let i = 0; i < 1000; i++) {
      write("y".repeat(1000));
    }
    expect(tail.partialLine!.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
  });

  it("reads only the newest bytes it shows, however much was written, and caches them until new output", () => {
    const buffer = new OutputBuffer(1024 * 1024);
    const reader = counting(buffer);
    const tail = new TerminalTail(reader);
    const chunk = bytes(`${"z".repeat(1023)}\n`.repeat(64)); // 64 KiB of 1 KiB lines
    for (let i = 0; i < 1024; i++) {
      buffer.append(chunk); // 64 MiB through a 1 MiB buffer, nothing read
    }
    expect(reader.bytesRead).toBe(0);
    expect(tail.tail()).toHaveLength(10);
    const oneDraw = reader.bytesRead;
    expect(oneDraw).toBeLessThanOrEqual(11 * (4 * MAX_LINE_CHARS + 1));
    tail.tail();
    expect(reader.bytesRead).toBe(oneDraw);
  });

  it("counts lines exactly while the buffer held them, and says so when it dropped some unread", () => {
    const { tail, write } = terminalOf(100);
    write("a\nb\n");
    expect(tail.completedLines()).toEqual({ lines: 2, exact: true });
    for (let i = 0; i < 100; i++) {
      write("line\n");
    }
    const count = tail.completedLines();
    expect(count.exact).toBe(false);
    expect(count.lines).toBeLessThan(102);
    expect(tail.hiddenLines().exact).toBe(false);
  });

  it("a line stream skips what the buffer dropped before it was read, and says how much", () => {
    const { stream, write } = terminalOf(16);
    write("first\n");
    expect(stream.take(10)).toEqual(["first"]);
    write("x".repeat(100));
    write("\nlast\n");
    // 112 bytes written, the newest 16 kept: "xxxxxxxxxx\nlast\n"; read from byte 6, so 90 went by.
    expect(stream.take(10)).toEqual(["xxxxxxxxxx", "last"]);
    expect(stream.skippedBytes).toBe(90);
  });

  it("a frozen tail shows the same lines without the host's buffer", () => {
    const { tail, write } = terminalOf(1024 * 1024, 3);
    for (let i = 1; i <= 1000; i++) {
      write(`line ${i}\n`);
    }
    const before = { tail: tail.tail(), hidden: tail.hiddenLines() };
    tail.freeze();
    expect(tail.source.totalBytes - tail.source.droppedBytes).toBeLessThan(64 * 1024);
    expect({ tail: tail.tail(), hidden: tail.hiddenLines() }).toEqual(before);
    expect(before).toEqual({
      tail: ["line 998", "line 999", "line 1000"],
      hidden: { lines: 997, exact: true },
    });
  });
});

describe("FirstLineSniffer", () => {
  it("accepts JSON after leading blank lines", () => {
    const seen: string[] = [];
    const sniffer = new FirstLineSniffer((s) => seen.push(s));
    sniffer.push(bytes('\n  {"jsonrpc":"2.0"}\nhello\n'));
    expect(sniffer.firstLine).toEqual({ json: true, snippet: "" });
    expect(seen).toEqual([]);
  });

  it("reports a first line that is not JSON, split across chunks", () => {
    const seen: string[] = [];
    const sniffer = new FirstLineSniffer((s) => seen.push(s));
    sniffer.push(bytes("Usage: my-ag"));
    expect(seen).toEqual([]);
    sniffer.push(bytes("ent [options]\nmore"));
    expect(seen).toEqual(["Usage: my-agent [options]"]);
  });

  it("reports an unterminated last line when the stream ends", () => {
    const seen: string[] = [];
    const sniffer = new FirstLineSniffer((s) => seen.push(s));
    sniffer.push(bytes("bye"));
    sniffer.end();
    expect(seen).toEqual(["bye"]);
  });
});

describe("agent command lookup", () => {
  it("finds the program of a plain command line, not of shell syntax", () => {
    expect(leadingProgram("npx my-agent --acp")).toBe("npx");
    expect(leadingProgram("  ./bin/agent")).toBe("./bin/agent");
    expect(leadingProgram("FOO=1 agent")).toBeUndefined();
    expect(leadingProgram("cd dir && agent")).toBeUndefined();
    expect(leadingProgram("'quoted agent'")).toBeUndefined();
  });

  it("looks programs up on PATH and paths relative to cwd", () => {
    expect(programExists("sh", "/")).toBe(true);
    expect(programExists("no-such-program-acp-terminal", "/")).toBe(false);
    expect(programExists("./no-such-file", "/tmp")).toBe(false);
    expect(programExists(process.execPath, "/")).toBe(true);
    expect(programExists("sh", "/", "/no/such/dir")).toBe(false);
    // Relative PATH entries (npm's ./node_modules/.bin, "" for the cwd) are searched from cwd, as the shell does.
    const node = path.basename(process.execPath);
    const nodeDir = path.dirname(process.execPath);
    expect(programExists(node, nodeDir, "/no/such/dir:.")).toBe(true);
    expect(programExists(node, nodeDir, "/no/such/dir:")).toBe(true);
    expect(
      programExists(node, path.dirname(nodeDir), `/no/such/dir:./${path.basename(nodeDir)}`),
    ).toBe(true);
    expect(programExists(node, "/", "/no/such/dir:.")).toBe(false);
  });
});

describe("fitColumns", () => {
  it("keeps a line that fits and cuts one that does not, counting wide characters as two", () => {
    expect(fitColumns("hello", 5)).toBe("hello");
    expect(fitColumns("hello!", 5)).toBe("hell…");
    expect(columnsWide("日本語")).toBe(6);
    expect(fitColumns("日本語です", 6)).toBe("日本…");
    expect(columnsWide(fitColumns("日本語です", 6))).toBeLessThanOrEqual(6);
    expect(fitColumns("😀😀😀", 5)).toBe("😀😀…");
  });
});
