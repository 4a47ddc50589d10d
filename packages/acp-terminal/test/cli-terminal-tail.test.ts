import path from "node:path";
import { describe, expect, it } from "vitest";
import { FirstLineSniffer } from "../src/cli/first-line-sniffer.js";
import { leadingProgram, programExists } from "../src/cli/command-lookup.js";
import { MAX_LINE_CHARS, TerminalTail } from "../src/cli/terminal-tail.js";
import { columnsWide, fitColumns } from "../src/cli/display-width.js";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));

describe("TerminalTail", () => {
  it("keeps the newest lines and counts the rest", () => {
    const tail = new TerminalTail(3);
    const completed = tail.push(bytes("1\n2\n3\n4\n5\npartial"));
    expect(completed).toEqual(["1", "2", "3", "4", "5"]);
    expect(tail.tail()).toEqual(["4", "5", "partial"]);
    expect(tail.completeTail()).toEqual(["3", "4", "5"]);
    expect(tail.hiddenLines).toBe(3);
    expect(tail.partialLine).toBe("partial");
  });

  it("keeps a character split across chunks whole", () => {
    const tail = new TerminalTail();
    const euro = Buffer.from("€\n", "utf8");
    expect(tail.push(euro.subarray(0, 1))).toEqual([]);
    expect(tail.push(euro.subarray(1, 2))).toEqual([]);
    expect(tail.push(euro.subarray(2))).toEqual(["€"]);
  });

  it("shows what a terminal shows: no escape sequences, \\r overwrites, CRLF ends a line", () => {
    const tail = new TerminalTail();
    expect(tail.push(bytes("\x1b[31mred\x1b[0m\r\nprogress 10%\rprogress 100%\n"))).toEqual(["red", "progress 100%"]);
  });

  it("caps long lines", () => {
    const tail = new TerminalTail();
    const [line] = tail.push(bytes(`${"x".repeat(MAX_LINE_CHARS * 3)}\n`));
    expect(line).toHaveLength(MAX_LINE_CHARS);
    expect(line!.endsWith("…")).toBe(true);
  });

  it("never cuts a long line or an endless one inside a surrogate pair (emoji stay whole)", () => {
    const tail = new TerminalTail();
    // "é✓🚀" is 4 UTF-16 units; MAX_LINE_CHARS - 1 = 399 ends inside the 100th rocket.
    const line = "é✓🚀".repeat(MAX_LINE_CHARS);
    const [shown] = tail.push(bytes(`${line}\n`));
    expect(shown).toBe(`${"é✓🚀".repeat(99)}é✓…`);
    // The newest 1600 units of this endless line would start on the second half of a rocket.
    tail.push(bytes(`abc${line}`));
    expect(tail.partialLine!.startsWith("é✓🚀")).toBe(true);
  });

  it("bounds an endless line without a newline", () => {
    const tail = new TerminalTail();
    for (let i = 0; i < 1000; i++) tail.push(bytes("y".repeat(1000)));
    expect(tail.partialLine!.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
  });
});

describe("FirstLineSniffer", () => {
  it("accepts JSON after leading blank lines", () => {
    const seen: string[] = [];
    const sniffer = new FirstLineSniffer((s) => seen.push(s));
    sniffer.push(bytes("\n  {\"jsonrpc\":\"2.0\"}\nhello\n"));
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
    expect(programExists(node, path.dirname(nodeDir), `/no/such/dir:./${path.basename(nodeDir)}`)).toBe(true);
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
