import path from "node:path";
import { describe, expect, it } from "vitest";
import { FirstLineSniffer } from "../src/agent/first-line-sniffer.js";
import { leadingProgram, programExists } from "../src/agent/command-lookup.js";
import { MAX_LINE_CHARS } from "../src/render/display-line.js";
import { OutputLines } from "../src/render/output-lines.js";
import { columnsWide, fitColumns } from "../src/render/display-width.js";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));

/** A display's view of a terminal, fed as the host feeds it: every chunk. */
function viewOf(headLines = 200, tailLines?: number) {
  const lines = new OutputLines(headLines, tailLines);
  return {
    lines,
    write: (text: string | Uint8Array) =>
      lines.append(typeof text === "string" ? bytes(text) : text),
  };
}

/** `text` fed to a fresh view in pieces of `size` bytes. */
function fedInPieces(text: string, size: number, headLines = 200, tailLines?: number) {
  const { lines, write } = viewOf(headLines, tailLines);
  const all = bytes(text);
  for (let at = 0; at < all.byteLength; at += size) {
    write(all.subarray(at, at + size));
  }
  return lines;
}

describe("OutputLines: a display's own view of a terminal's output", () => {
  it("keeps the first lines, the newest and the line under way, and counts exactly the lines and bytes between", () => {
    const { lines, write } = viewOf(2, 3);
    write("1\n2\n3\n4\n5\n6\npartial");
    expect(lines.head()).toEqual(["1", "2"]);
    expect(lines.tail()).toEqual(["5", "6", "partial"]);
    expect(lines.partialLine).toBe("partial");
    // Shown: 1, 2 and 5, 6, partial; between: "3\n4\n".
    expect(lines.leftOut(2, 3)).toEqual({ lines: 2, bytes: 4 });
    expect(lines.hiddenLines()).toEqual({ lines: 4, bytes: 8 });
    expect(lines.tail(3, 5)).toEqual(["6", "partial"]);
  });

  it("shows the same lines and counts whatever the chunks (one byte at a time, mid-line, mid-character)", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i + 1} é✓🚀\r\n`).join("");
    const whole = fedInPieces(text, text.length, 5, 4);
    for (const size of [1, 3, 7, 64, 4096]) {
      const pieces = fedInPieces(text, size, 5, 4);
      expect(pieces.head()).toEqual(whole.head());
      expect(pieces.tail()).toEqual(whole.tail());
      expect(pieces.leftOut(5, 4)).toEqual(whole.leftOut(5, 4));
    }
    expect(whole.head(2)).toEqual(["line 1 é✓🚀", "line 2 é✓🚀"]);
    expect(whole.tail()).toEqual([
      "line 997 é✓🚀",
      "line 998 é✓🚀",
      "line 999 é✓🚀",
      "line 1000 é✓🚀",
    ]);
    const lineBytes = (n: number) => Buffer.byteLength(`line ${n} é✓🚀\r\n`);
    const between = Array.from({ length: 991 }, (_, i) => lineBytes(i + 6)).reduce((a, b) => a + b);
    expect(whole.leftOut(5, 4)).toEqual({ lines: 991, bytes: between });
  });

  it("shows what a terminal shows: no escape sequences, \\r overwrites, CRLF ends a line", () => {
    const { lines, write } = viewOf();
    write("\x1b[31mred\x1b[0m\r\nprogress 10%\rprogress 100%\n");
    write("a\rb\r\r\n");
    expect(lines.head()).toEqual(["red", "progress 100%", ""]);
    write("half\r");
    expect(lines.partialLine).toBe("half");
    write("over");
    expect(lines.partialLine).toBe("over");
  });

  it("caps long lines and says how long the line was", () => {
    const { lines, write } = viewOf();
    write(`${"x".repeat(MAX_LINE_CHARS * 3)}\n`);
    const [line] = lines.head();
    expect(line).toBe(`${"x".repeat(MAX_LINE_CHARS - 1)}… (${MAX_LINE_CHARS * 3 + 1} bytes)`);
    expect(lines.tail()[0]).toBe(line);
  });

  it("never cuts a long line or an endless one inside a surrogate pair (emoji stay whole)", () => {
    const { lines, write } = viewOf();
    // "é✓🚀" is 4 UTF-16 units; MAX_LINE_CHARS - 1 = 399 ends inside the 100th rocket.
    const line = "é✓🚀".repeat(MAX_LINE_CHARS);
    write(`${line}\n`);
    expect(lines.head()).toEqual([
      `${"é✓🚀".repeat(99)}é✓… (${Buffer.byteLength(line) + 1} bytes)`,
    ]);
    write(`abc${line}`);
    expect(lines.partialLine!.startsWith("abcé✓🚀")).toBe(true);
  });

  it("frozen, shows and counts the same with its buffers let go, and takes no more output", () => {
    const { lines, write } = viewOf(200, 3);
    for (let i = 1; i <= 1000; i++) {
      write(`line ${i}\n`);
    }
    write("the last, unended");
    const before = {
      head: lines.head(3),
      tail: lines.tail(),
      partial: lines.partialLine,
      leftOut: lines.leftOut(200, 3),
      hidden: lines.hiddenLines(),
    };
    lines.freeze();
    write("more\n");
    expect({
      head: lines.head(3),
      tail: lines.tail(),
      partial: lines.partialLine,
      leftOut: lines.leftOut(200, 3),
      hidden: lines.hiddenLines(),
    }).toEqual(before);
    expect(before.tail).toEqual(["line 999", "line 1000", "the last, unended"]);
    expect(lines.head()).toEqual(["line 1", "line 2", "line 3"]);
  });

  it("holds a few kilobytes however long a line without a newline grows", () => {
    const { lines, write } = viewOf();
    const chunk = "y".repeat(64 * 1024);
    for (let i = 0; i < 1600; i++) {
      write(chunk); // 100 MiB
    }
    expect(lines.partialLine).toBe(
      `${"y".repeat(MAX_LINE_CHARS - 1)}… (${100 * 1024 * 1024} bytes)`,
    );
    expect(lines.totalBytes).toBe(100 * 1024 * 1024);
    expect(lines.completeLines).toBe(0);
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
