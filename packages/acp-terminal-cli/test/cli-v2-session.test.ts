import { OutputBuffer, PtyScreen } from "acp-terminal/internal";
import { describe, expect, it } from "vitest";
import { parseCommand } from "../src/command/args.js";
import { AgentTerminal, clampSize } from "../src/view/agent-terminal.js";
import { plainScreenText } from "../src/view/plain-screen-text.js";
import type { Renderer } from "../src/view/renderer.js";
import { V2Session } from "../src/readers/v2-session.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");

/** A renderer that writes down what it is told (what the session does is under test, not this). */
function recorder(): { renderer: Renderer; events: string[] } {
  const events: string[] = [];
  const renderer: Renderer = {
    rawUpdate: () => undefined,
    messageText: (text) => events.push(`message ${text}`),
    thoughtText: (text) => events.push(`thought ${text}`),
    plan: (items) => events.push(`plan ${JSON.stringify(items)}`),
    toolCallStarted: (call) => events.push(`tool call ${call.toolCallId}`),
    toolCallUpdated: (call) => events.push(`tool call update ${call.toolCallId}`),
    terminalCreated: () => events.push("v1 create"),
    terminalBytes: (id) => events.push(`bytes ${id}`),
    terminalOutput: (id) => events.push(`output ${id}`),
    terminalExited: (id, status) => events.push(`exit ${id} ${JSON.stringify(status)}`),
    terminalReleased: (id) => events.push(`release ${id}`),
    agentTerminalCreated: (t) => events.push(`create ${t.terminalId} ${t.command ?? "?"}`),
    agentTerminalChanged: (t) => events.push(`change ${t.terminalId} ${t.command ?? "?"}`),
    agentTerminalReplaced: (t) => events.push(`replace ${t.terminalId}`),
    background: (items) => events.push(`background ${JSON.stringify(items)}`),
    notice: (message) => events.push(`notice ${message}`),
    pause: () => undefined,
    resume: () => undefined,
    finish: () => undefined,
  };
  return { renderer, events };
}

describe("acp-terminal run --protocol", () => {
  it("forces v2, v1-meta or v1, leaves auto (the default) out of the options, and refuses anything else naming the choices", () => {
    const parse = (...argv: string[]) => parseCommand(argv, "/home/me", (_, p) => p);
    for (const protocol of ["v2", "v1-meta", "v1"]) {
      expect(parse("run", "--agent", "a", "--protocol", protocol, "x")).toMatchObject({
        options: { protocol },
      });
    }
    for (const flags of [["--protocol", "auto"], []]) {
      const auto = parse("run", "--agent", "a", ...flags, "x");
      expect(auto.kind === "run" && "protocol" in auto.options).toBe(false);
    }
    expect(parse("run", "--agent", "a", "--protocol", "V2", "x")).toEqual({
      kind: "error",
      message: 'Invalid --protocol: expected one of auto, v2, v1-meta, v1, received "V2"',
    });
  });
});

describe("an agent-owned terminal", () => {
  it("is drawn at 80x24 when no size is advertised, and at most 1000x500 whatever is", () => {
    expect(clampSize(undefined)).toEqual({ cols: 80, rows: 24 });
    expect(clampSize({ cols: 1e9, rows: 1e9 })).toEqual({ cols: 1000, rows: 500 });
    expect(clampSize({ cols: 0, rows: Number.NaN })).toEqual({ cols: 80, rows: 24 });
    expect(clampSize({ cols: 20.7, rows: 5 })).toEqual({ cols: 20, rows: 5 });
  });

  it("holds at most its byte limit however much is appended, and shows the newest of it", () => {
    const terminal = new AgentTerminal("t", 4096);
    for (let i = 0; i < 1000; i++) {
      terminal.append(Buffer.from(`line ${i}\n`.padStart(100, ".")));
    }
    expect(terminal.output.totalBytes).toBe(100_000);
    expect(terminal.output.totalBytes - terminal.output.droppedBytes).toBeLessThanOrEqual(4096);
    expect(terminal.text()).toMatch(/\.line 999\n$/);
  });

  it("frozen never drawn, it keeps its newest lines also when its byte ring wrapped within the newest 64 KiB (plain and coloured output)", () => {
    for (const colour of ["", "\x1b[32m"]) {
      const terminal = new AgentTerminal("t", 1024 * 1024);
      let appended = 0;
      let last = "";
      // 30 KiB past 1 MiB: the ring's end falls 30 KiB before the newest byte.
      for (let i = 0; appended < 1024 * 1024 + 30 * 1024; i++) {
        last = `line ${String(i).padStart(6, "0")} ${"y".repeat(50)}`;
        const bytes = Buffer.from(`${colour}${last}\n`);
        terminal.append(bytes);
        appended += bytes.byteLength;
      }
      terminal.freeze();
      const lines = terminal.text().split("\n");
      expect(lines.at(-2), JSON.stringify(colour)).toBe(last);
      expect(lines.at(-1)).toBe("");
      expect(lines.slice(1, -1).every((line) => /^line \d{6} y{50}$/.test(line))).toBe(true);
    }
  });

  it("plain output (printable ASCII and line feeds, no line wider than the screen) is rendered without the emulator exactly as the emulator renders it; 600 seeded outputs up to 64 KiB", () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 48271) % 2147483647; // Park-Miller: exact in doubles
      return seed % below;
    };
    const emulated = (bytes: Uint8Array, cols: number) => {
      const buffer = new OutputBuffer(64 * 1024);
      buffer.append(bytes);
      buffer.end();
      const screen = new PtyScreen(buffer, { cols, rows: 24 }, { convertEol: true });
      try {
        return screen.snapshot().output;
      } finally {
        screen.dispose();
      }
    };
    let plain = 0;
    for (let i = 0; i < 600; i++) {
      const cols = [1, 10, 80, 200][random(4)]!;
      const target = [0, 50, 4000, 64 * 1024][random(4)]!;
      let text = "";
      while (text.length < target) {
        const width = random(5) === 0 ? 0 : random(cols + 1);
        let line = "";
        for (let k = 0; k < width; k++) {
          line += random(6) === 0 ? " " : String.fromCharCode(0x21 + random(94));
        }
        text += `${line}\n`;
      }
      text = text.slice(0, target);
      // Left to the emulator: an escape sequence, a multi-byte character, a line that wraps.
      const notPlain = ["\x1b[31mred\x1b[0m", "é", `${"x".repeat(cols + 1)}\n`][i % 10];
      text += notPlain ?? "";
      const bytes = Buffer.from(text);
      const fast = plainScreenText(bytes, cols);
      if (i % 10 <= 2 && bytes.length > 0) {
        expect(fast).toBeUndefined();
        continue;
      }
      plain++;
      expect(fast, JSON.stringify(text.slice(-200))).toBe(emulated(bytes, cols));
    }
    expect(plain).toBeGreaterThan(400);
  });

  it("a snapshot replaces everything shown before it; frozen, it keeps its text and takes no more bytes", () => {
    const terminal = new AgentTerminal("t");
    terminal.append(Buffer.from("old\n"));
    terminal.replace(Buffer.from("new\n"));
    expect(terminal.text()).toBe("new\n");
    terminal.freeze();
    terminal.append(Buffer.from("late\n"));
    expect(terminal.text()).toBe("new\n");
    expect(terminal.output.totalBytes).toBe(0);
  });
});

describe("V2Session", () => {
  it("follows at most --max-terminals running terminals and --max-total-terminals in all; the others are ignored with one notice", () => {
    const { renderer, events } = recorder();
    const session = new V2Session(renderer, { maxTerminals: 2, maxTotalTerminals: 3 });
    const announce = (id: string, exited = false) =>
      session.update({
        sessionUpdate: "terminal_update",
        terminalId: id,
        command: id,
        ...(exited ? { exitStatus: { exitCode: 0 } } : {}),
      });
    announce("a");
    announce("b");
    announce("c"); // a third running one: past --max-terminals
    session.update({ sessionUpdate: "terminal_output_chunk", terminalId: "c", data: b64("x") });
    session.update({ sessionUpdate: "terminal_update", terminalId: "a", exitStatus: {} });
    announce("d", true); // a is done: room for one more running
    announce("e", true); // past --max-total-terminals
    expect(events.filter((e) => e.startsWith("create"))).toEqual([
      "create a a",
      "create b b",
      "create d d",
    ]);
    expect(events.filter((e) => e.startsWith("notice"))).toHaveLength(1);
    expect(session.runningTerminalIds()).toEqual(["b"]);
    expect(session.terminalRecords().map((r) => r.terminalId)).toEqual(["a", "b", "d"]);
  });

  it("ids, commands and cwds past their caps cost no more than the caps: a terminal id over 256 characters is not followed", () => {
    const { renderer, events } = recorder();
    const session = new V2Session(renderer, { maxTerminals: 64, maxTotalTerminals: 1024 });
    session.update({ sessionUpdate: "terminal_update", terminalId: "x".repeat(100_000) });
    session.update({
      sessionUpdate: "terminal_update",
      terminalId: "t",
      command: "c".repeat(100_000),
      cwd: `/${"d".repeat(100_000)}`,
    });
    expect(events.filter((e) => e.startsWith("create"))).toEqual([`create t ${"c".repeat(199)}…`]);
    expect(events.filter((e) => e.startsWith("notice"))).toHaveLength(1);
    expect(session.terminalRecords()).toEqual([
      { terminalId: "t", command: `${"c".repeat(199)}…` },
    ]);
  });

  it("a terminal's exit is reported once, with unknown fields as null, and it stops advertising cancel", () => {
    const { renderer, events } = recorder();
    const session = new V2Session(renderer, { maxTerminals: 64, maxTotalTerminals: 1024 });
    session.update({
      sessionUpdate: "terminal_update",
      terminalId: "t",
      capabilities: { cancel: {} },
    });
    session.update({
      sessionUpdate: "terminal_update",
      terminalId: "t",
      exitStatus: { signal: "SIGTERM" },
    });
    session.update({
      sessionUpdate: "terminal_update",
      terminalId: "t",
      exitStatus: { exitCode: 1 },
    });
    expect(events.filter((e) => e.startsWith("exit"))).toEqual([
      'exit t {"exitCode":null,"signal":"SIGTERM"}',
    ]);
    expect(session.runningTerminalIds()).toEqual([]);
  });

  it("unknown and _-prefixed updates and background variants are passed over without failing; a malformed background list counts as not reported", () => {
    const { renderer, events } = recorder();
    const session = new V2Session(renderer, { maxTerminals: 64, maxTotalTerminals: 1024 });
    session.update({ sessionUpdate: "_foo", x: 1 } as never);
    session.update({ sessionUpdate: "future_thing", y: [] } as never);
    session.update({
      sessionUpdate: "state_update",
      state: "running",
      background: [{ type: "_custom", z: 1 }, { type: "terminal", terminalId: "t9" }, null],
    } as never);
    session.update({
      sessionUpdate: "state_update",
      state: "running",
      background: [
        { type: "_custom", z: 1 },
        { type: "terminal", terminalId: "t9" },
      ],
    } as never);
    expect(events).toEqual([
      'background [{"type":"_custom"},{"type":"terminal","terminalId":"t9"}]',
    ]);
  });
});
