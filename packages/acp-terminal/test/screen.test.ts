/** The terminal emulator that renders PTY bytes as text, on recorded and constructed byte streams. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OutputBuffer } from "../src/output/output-buffer.js";
import { PtyScreen } from "../src/output/pty-screen.js";
import {
  MAX_SCROLLBACK_CELLS,
  SCROLLBACK_LINES,
  Screen,
  scrollbackLinesFor,
} from "../src/output/screen.js";
import { TextHistory } from "../src/output/text-history.js";
import { tailWithinBytes } from "../src/output/utf8-text.js";

/** A stream recorded from a real program in an 80x24 PTY (see fixtures/streams/record.mjs). */
const recorded = (name: string): Buffer =>
  readFileSync(new URL(`./fixtures/streams/${name}.bin`, import.meta.url));
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function rendered(...chunks: (Uint8Array | string)[]): string {
  const screen = new Screen(80, 24, 1000, 1 << 20);
  for (const chunk of chunks) {
    screen.write(chunk);
  }
  const text = screen.render();
  screen.dispose();
  return text;
}

/** A PtyScreen over a fresh buffer: what `terminal/output` answers for a PTY terminal. */
function ptyOutput(
  limit: number,
  size = { cols: 80, rows: 24 },
  options: { deadlineMs?: number } = {},
) {
  const buffer = new OutputBuffer(limit);
  const screen = new PtyScreen(buffer, size, options);
  return {
    buffer,
    screen,
    append: (chunk: string | Uint8Array) =>
      buffer.append(typeof chunk === "string" ? bytes(chunk) : chunk),
  };
}

describe("Screen: recorded streams", () => {
  it("a cargo progress bar (\\r redraws, ESC[K) leaves only the lines cargo meant to keep", () => {
    const stream = recorded("cargo");
    expect(stream.toString()).toContain("Building"); // the bar was recorded
    expect(rendered(stream)).toBe(
      "   Compiling cargoproj v0.1.0 (/tmp/cargoproj)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.16s\n",
    );
  });

  it("less on the alternate screen: while it is up its rows show; once it quits only the shell's lines remain", () => {
    const stream = recorded("less");
    // Up to less's prompt (the file name in reverse video), which it erases when it quits.
    const prompt = stream.indexOf("\x1b[27m");
    const showing = rendered(stream.subarray(0, prompt));
    expect(showing.startsWith("before less\nline 1\nline 2\n")).toBe(true);
    expect(showing).toContain("line 23\n/tmp/less-input.txt");
    expect(rendered(stream)).toBe("before less\nafter less\n");
  });

  it("a full-screen redraw (top: cursor home, clear) replaces the frame instead of appending it", () => {
    const frame = recorded("top");
    const once = rendered(frame);
    const twice = rendered(frame, frame);
    expect(once.match(/^Tasks:/gm)).toHaveLength(1);
    expect(twice.match(/^Tasks:/gm)).toHaveLength(1);
    expect(twice.match(/PID USER/g)).toHaveLength(1);
  });
});

describe("Screen: redraws, wide characters, split sequences", () => {
  it("ESC[1A ESC[2K redraws the previous line in place (npm/pip style)", () => {
    const stream =
      "resolving\r\nstep 1/3\r\n\x1b[1A\x1b[2Kstep 2/3\r\n\x1b[1A\x1b[2Kstep 3/3\r\ndone\r\n";
    expect(rendered(stream)).toBe("resolving\nstep 3/3\ndone\n");
  });

  it("ESC[2K without moving clears the line the cursor is on; ESC[K clears to its end", () => {
    expect(rendered("keep\r\nerase me\x1b[2K\rnew\r\n")).toBe("keep\nnew\n");
    expect(rendered("0123456789\r\x1b[5C\x1b[K\r\n")).toBe("01234\n");
  });

  it("wide characters take two columns: CJK and emoji render whole, and wrap as they do on screen", () => {
    expect(rendered("中文 😀 ok\r\n")).toBe("中文 😀 ok\n");
    // 41 two-column characters do not fit 80 columns: the 41st wraps; the line reads as one.
    const wide = "中".repeat(41);
    expect(rendered(`${wide}\r\n`)).toBe(`${wide}\n`);
    expect(rendered("a中\rX\r\n")).toBe("X中\n"); // overwriting the first column leaves the wide character
  });

  it("an escape sequence or a character split across two writes is parsed whole", () => {
    expect(rendered("\x1b[3", "1mred\x1b[0", "m plain\r\n")).toBe("red plain\n");
    expect(rendered("up\r\n\x1b", "[1A\x1b[2", "Kdown\r\n")).toBe("down\n");
    const han = bytes("中");
    expect(rendered(han.subarray(0, 1), han.subarray(1), "\r\n")).toBe("中\n");
  });

  it("a line ending in a newline ends in \\n; trailing blank rows and cells are not text", () => {
    expect(rendered("")).toBe("");
    expect(rendered("no newline")).toBe("no newline");
    expect(rendered("a\r\n\r\n")).toBe("a\n\n");
    expect(rendered("\x1b[5;1Hfifth\x1b[1;1H")).toBe("\n\n\n\nfifth");
  });

  it("keeps lines that scrolled off as text; says when lines were dropped (too many in one write, or over the text limit)", () => {
    expect(scrollbackLinesFor(80)).toBe(SCROLLBACK_LINES);
    expect(scrollbackLinesFor(2000)).toBe(MAX_SCROLLBACK_CELLS / 2000);
    const lines = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => `line ${from + i}\r\n`).join("");
    const kept = new Screen(80, 24, 10, 1 << 20);
    for (let i = 0; i < 100; i += 5) {
      kept.write(lines(i, i + 5)); // 5 lines a write: the scrollback holds them
    }
    expect(kept.render()).toBe(lines(0, 100).replaceAll("\r", ""));
    expect(kept.linesDropped).toBe(false);
    const many = new Screen(80, 24, SCROLLBACK_LINES, 1 << 20);
    many.write(lines(0, 5000)); // one write: parsed 250 lines at a time, each time committed
    expect(many.render()).toBe(lines(0, 5000).replaceAll("\r", ""));
    expect(many.linesDropped).toBe(false);
    const flooded = new Screen(80, 24, 10, 1 << 20);
    flooded.write(`${"\x1b[S".repeat(100)}bottom`); // SU scrolls 100 lines without a line feed; xterm kept 10
    expect(flooded.linesDropped).toBe(true);
    const capped = new Screen(80, 24, 10, 100);
    for (let i = 0; i < 100; i += 5) {
      capped.write(lines(i, i + 5));
    }
    expect(capped.linesDropped).toBe(true);
    expect(capped.render().endsWith(lines(70, 100).replaceAll("\r", ""))).toBe(true);
    for (const screen of [kept, many, flooded, capped]) {
      screen.dispose();
    }
  });

  it("a long line wrapped across the top of the screen is joined whole, before and after it scrolls off", () => {
    const screen = new Screen(10, 3, 100, 1 << 20);
    screen.write(`${"x".repeat(25)}\r\n`);
    expect(screen.render()).toBe(`${"x".repeat(25)}\n`);
    screen.write("a\r\nb\r\nc\r\n");
    expect(screen.render()).toBe(`${"x".repeat(25)}\na\nb\nc\n`);
    screen.dispose();
  });
});

describe("PtyScreen: the byte limit, the cursors and the deadline", () => {
  it("plain text at N-1, N and N+1 raw bytes with limit N: truncated only at N+1, the newest N bytes kept", () => {
    for (const [length, truncated] of [
      [9, false],
      [10, false],
      [11, true],
    ] as const) {
      const { screen, append } = ptyOutput(10);
      const text = "abcdefghijk".slice(0, length);
      append(text);
      expect(screen.snapshot(), `${length} bytes`).toEqual({
        output: text.slice(-10),
        truncated,
        totalBytes: length,
      });
    }
  });

  it("rendered text at N-1, N and N+1 bytes (more than the raw bytes): cut from the front to N, truncated at N+1", () => {
    // ESC[nC moves n columns: 6-7 raw bytes draw n spaces and an x.
    for (const [columns, truncated] of [
      [8, false],
      [9, false],
      [10, true],
    ] as const) {
      const { buffer, screen, append } = ptyOutput(10);
      append(`\x1b[${columns}Cx`);
      const snapshot = screen.snapshot();
      expect(buffer.truncated).toBe(false);
      expect(snapshot.output).toBe(`${" ".repeat(Math.min(columns, 9))}x`);
      expect(snapshot.truncated).toBe(truncated);
      expect(snapshot.totalBytes).toBe(buffer.totalBytes);
    }
  });

  it("cuts the rendered text on a character boundary: a wide character or an emoji is whole or absent", () => {
    expect(tailWithinBytes("中中中", 9)).toEqual({ text: "中中中", cut: false });
    expect(tailWithinBytes("中中中", 8)).toEqual({ text: "中中", cut: true });
    expect(tailWithinBytes("中中中", 6)).toEqual({ text: "中中", cut: true });
    expect(tailWithinBytes("a😀", 4)).toEqual({ text: "😀", cut: true });
    expect(tailWithinBytes("a😀", 3)).toEqual({ text: "", cut: true });
    const { screen, append } = ptyOutput(8);
    append("中中\r\n"); // 8 raw bytes, rendered "中中\n" (7 bytes)
    expect(screen.snapshot()).toEqual({ output: "中中\n", truncated: false, totalBytes: 8 });
  });

  it("raw bytes stay the cursors: totalBytes counts escape sequences, an incomplete character waits", () => {
    const { buffer, screen, append } = ptyOutput(1 << 20);
    append("\x1b[31mred\x1b[0m\r\n");
    append(bytes("中").subarray(0, 2));
    expect(screen.snapshot()).toEqual({ output: "red\n", truncated: false, totalBytes: 14 });
    append(bytes("中").subarray(2));
    buffer.end();
    expect(screen.snapshot()).toEqual({ output: "red\n中", truncated: false, totalBytes: 17 });
  });

  it("an escape sequence split between two reads is parsed whole", () => {
    const { screen, append } = ptyOutput(1 << 20);
    append("one\r\ntwo\r\n\x1b[1");
    expect(screen.snapshot().output).toBe("one\ntwo\n");
    append("A\x1b[2Kthree\r\n");
    expect(screen.snapshot().output).toBe("one\nthree\n");
  });

  it("after bytes it never parsed were dropped, renders the retained ones, without the cut sequence's tail", () => {
    const line = "\x1b[38;5;196mred\x1b[0m\r\n"; // 20 bytes
    const { screen, append } = ptyOutput(33);
    append("first line\r\n");
    expect(screen.snapshot().output).toBe("first line\n");
    append(line.repeat(3)); // the screen has seen only "first line"; the 33 retained start at "196mred"
    expect(screen.snapshot()).toEqual({ output: "red\nred\n", truncated: true, totalBytes: 72 });
  });

  it("a read parses only what arrived since the last read; with more than its deadline allows it skips to the newest", () => {
    const { buffer, screen, append } = ptyOutput(
      1 << 20,
      { cols: 80, rows: 24 },
      { deadlineMs: 0 },
    );
    const lines = (from: number, to: number) =>
      Array.from(
        { length: to - from },
        (_, i) => `line ${String(from + i).padStart(5, "0")}\r\n`,
      ).join(""); // 12 bytes each
    append(lines(0, 100));
    expect(screen.snapshot()).toEqual({
      output: lines(0, 100).replaceAll("\r", ""),
      truncated: false,
      totalBytes: 1200,
    });
    append(lines(100, 8000)); // 94,800 bytes: more than one 64 KiB slice, all a 0 ms deadline allows
    const skipped = screen.snapshot();
    expect(skipped.totalBytes).toBe(buffer.totalBytes);
    expect(skipped.truncated).toBe(true);
    // It started again at the first line start in the newest 64 KiB: 65,536 / 12 = 5461.3 lines back.
    expect(skipped.output).toBe(lines(8000 - 5461, 8000).replaceAll("\r", ""));
    append(lines(8000, 8001));
    expect(screen.snapshot().output.endsWith("line 07999\nline 08000\n")).toBe(true);
  });

  it("resize: bytes written before it are drawn at the old size, bytes after at the new one", () => {
    const { screen, append } = ptyOutput(1 << 20, { cols: 20, rows: 5 });
    append("\x1b[999C|\r\n"); // to the last column
    screen.resize(30, 5);
    append("\x1b[999C|\r\n");
    expect(screen.snapshot().output).toBe(`${" ".repeat(19)}|\n${" ".repeat(29)}|\n`);
  });

  it("an increment renders alone on a blank screen of the terminal's size, cut to the limit", () => {
    const { screen } = ptyOutput(12);
    expect(screen.renderIncrement("", false)).toBe("");
    expect(screen.renderIncrement("10%\r100%\r\n", false)).toBe("100%\n");
    expect(screen.renderIncrement("a\r\n\x1b[1A\x1b[2Kb\r\n", false)).toBe("b\n");
    expect(screen.renderIncrement("0m tail\r\n", true)).toBe(" tail\n");
    expect(screen.renderIncrement("\x1b[20Cx", false)).toBe(`${" ".repeat(11)}x`);
  });
});

describe("TextHistory", () => {
  it("holds less than maxBytes plus one piece, and its tail is cut on a character boundary", () => {
    const history = new TextHistory(10);
    history.append("aaaa\n"); // 5 bytes
    history.append("中中\n"); // 7 bytes
    expect([history.bytes, history.dropped]).toEqual([12, false]);
    expect(history.tail(100)).toEqual({ text: "aaaa\n中中\n", cut: false });
    expect(history.tail(9)).toEqual({ text: "a\n中中\n", cut: true });
    expect(history.tail(8)).toEqual({ text: "\n中中\n", cut: true });
    expect(history.tail(6)).toEqual({ text: "中\n", cut: true });
    history.append("bbbbbbbbb\n"); // 10 bytes: the oldest two pieces go
    expect([history.bytes, history.dropped]).toEqual([10, true]);
    expect(history.tail(10).text).toBe("bbbbbbbbb\n");
    history.clear();
    expect([history.bytes, history.dropped, history.tail(10).text]).toEqual([0, false, ""]);
  });
});
