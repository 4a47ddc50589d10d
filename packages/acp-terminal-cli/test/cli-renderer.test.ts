import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import type { ExitStatus, TerminalInfo } from "acp-terminal";
import { OutputBuffer } from "acp-terminal/internal";
import { jsonLine } from "../src/render/json-line.js";
import { JsonRenderer } from "../src/render/json-renderer.js";
import { FIRST_BYTES, WAITING_BYTES } from "../src/render/json-output-stream.js";
import type { Output } from "../src/render/output.js";
import type { Renderer } from "../src/view/renderer.js";
import { TextRenderer } from "../src/render/text-renderer.js";
import { MAX_FINISHED_TOOL_CALLS, MAX_OPEN_TOOL_CALLS } from "../src/render/tool-call-book.js";
import { PLAIN_STREAM_LINES } from "../src/render/tool-call-lines.js";
import { until } from "../../../test/support/until.js";
import { counting } from "./counting-reader.js";
import { fedByV1 } from "./v1-feed.js";

function sink(isTTY = false): Output & { text: string } {
  return {
    text: "",
    isTTY,
    columns: 80,
    write(chunk, written) {
      this.text += chunk;
      written?.();
    },
  };
}

/** An output whose reader can be made to lag (as stdout does when nobody reads it), then catch up. */
function laggingSink(
  isTTY = false,
): Output & { text: string; lagging: boolean; waiting: (() => void)[]; drain(): void } {
  const waiting: (() => void)[] = [];
  return {
    waiting,
    text: "",
    isTTY,
    columns: 80,
    lagging: false,
    write(chunk, written) {
      this.text += chunk;
      written?.();
    },
    onDrain(listener) {
      waiting.push(listener);
    },
    drain() {
      this.lagging = false;
      for (const listener of waiting.splice(0)) {
        listener();
      }
    },
  };
}

const parse = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));
const info = (terminalId: string): TerminalInfo => ({
  terminalId,
  owner: { connectionId: "c", sessionId: "s" },
  command: "make",
  args: [],
  argsGiven: false,
  shell: false,
  argv: ["make"],
  env: [],
  outputByteLimit: 1024 * 1024,
  cwd: "/",
  pty: false,
  state: "running",
  startedAt: 0,
});
/** A terminal as the host gives it to a renderer: output goes into its buffer, and every chunk to the renderer. */
function terminal(r: Renderer, id = "t1", limit = 1024 * 1024) {
  const buffer = new OutputBuffer(limit);
  r.terminalCreated(info(id), buffer);
  return {
    buffer,
    output(data: Uint8Array) {
      buffer.append(data);
      r.terminalBytes(id, data);
    },
    exited(status: ExitStatus) {
      buffer.end();
      r.terminalExited(id, status);
    },
  };
}
const toolCall = (status: "pending" | "in_progress", terminalId?: string): SessionUpdate => ({
  sessionUpdate: "tool_call",
  toolCallId: "call-1",
  title: "make test",
  kind: "execute",
  status,
  ...(terminalId ? { content: [{ type: "terminal", terminalId }] } : {}),
});
const done: SessionUpdate = {
  sessionUpdate: "tool_call_update",
  toolCallId: "call-1",
  status: "completed",
};
const result = {
  exitCode: 0,
  stopReason: "end_turn",
  elapsedMs: 1234,
  terminals: [{ terminalId: "t1", command: "make", exitStatus: { exitCode: 0, signal: null } }],
};

describe("TextRenderer, piped", () => {
  it("streams message text, tool call status and terminal lines, then the final status", () => {
    const out = sink();
    const err = sink();
    const r = fedByV1(new TextRenderer(out, err));
    r.sessionUpdate({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "Running the " },
    });
    r.sessionUpdate({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "tests." },
    });
    const t1 = terminal(r);
    t1.output(bytes("early line\n"));
    r.sessionUpdate(toolCall("in_progress", "t1"));
    t1.output(bytes("ok 1\nok "));
    t1.output(bytes("2\nno newline"));
    t1.exited({ exitCode: 0, signal: null });
    r.terminalReleased("t1");
    r.sessionUpdate(done);
    r.finish(result);
    expect(out.text).toBe(
      [
        "Running the tests.",
        "▸ make test [in_progress]",
        "  │ early line",
        "  │ ok 1",
        "  │ ok 2",
        "✓ make test [completed]",
        "  │ no newline",
        "  └ exit 0",
        "",
      ].join("\n"),
    );
    expect(out.text).not.toContain("\x1b[");
    expect(err.text).toBe("── end_turn · 1 terminal: 1 exit 0 · 1.2 s · exit code 0\n");
  });

  it("stops streaming a chatty terminal and shows its last lines at the end", () => {
    const out = sink();
    const r = fedByV1(new TextRenderer(out, sink()));
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("in_progress", "t1"));
    const lines = Array.from({ length: PLAIN_STREAM_LINES + 50 }, (_, i) => `line ${i + 1}`);
    t1.output(bytes(`${lines.join("\n")}\n`));
    r.sessionUpdate(done);
    t1.exited({ exitCode: null, signal: "SIGTERM" });
    const printed = out.text.split("\n");
    expect(printed).toContain(`  │ line ${PLAIN_STREAM_LINES}`);
    expect(printed).not.toContain(`  │ line ${PLAIN_STREAM_LINES + 1}`);
    // Lines 201 to 240 ("line 201\n" is 9 bytes): between the 200 streamed and the last 10.
    expect(printed).toContain("  │ … 40 lines (360 bytes) not shown");
    expect(printed.slice(-3)).toEqual([
      `  │ line ${PLAIN_STREAM_LINES + 50}`,
      "  └ killed by SIGTERM",
      "",
    ]);
  });

  it("shows the text content of a tool call without a terminal, not of one with a terminal", () => {
    const out = sink();
    const r = fedByV1(new TextRenderer(out, sink()));
    const text = (t: string) => [
      { type: "content" as const, content: { type: "text" as const, text: t } },
    ];
    r.sessionUpdate({
      sessionUpdate: "tool_call",
      toolCallId: "read",
      title: "read notes.txt",
      status: "completed",
      content: text("line one\nline two\n"),
    });
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("in_progress", "t1"));
    t1.exited({ exitCode: 0, signal: null });
    r.sessionUpdate({
      ...done,
      content: [{ type: "terminal", terminalId: "t1" }, ...text("summary that repeats the output")],
    });
    expect(out.text).toBe(
      [
        "✓ read notes.txt [completed]",
        "  line one",
        "  line two",
        "▸ make test [in_progress]",
        "✓ make test [completed]",
        "  └ exit 0",
        "",
      ].join("\n"),
    );
  });

  it("prints a tool call's line once when it starts: pending then in_progress with nothing between is one line", () => {
    const out = sink();
    const r = fedByV1(new TextRenderer(out, sink()));
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("pending"));
    r.sessionUpdate({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "in_progress",
      content: [{ type: "terminal", terminalId: "t1" }],
    });
    t1.output(bytes("ok\n"));
    t1.exited({ exitCode: 0, signal: null });
    r.sessionUpdate(done);
    expect(out.text).toBe(
      ["▸ make test [pending]", "  │ ok", "✓ make test [completed]", "  └ exit 0", ""].join("\n"),
    );
  });

  it("prints in_progress after pending when other lines came between, and any other change of its line", () => {
    const out = sink();
    const r = fedByV1(new TextRenderer(out, sink()));
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("pending"));
    r.sessionUpdate({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "Waiting for the lock.\n" },
    });
    r.sessionUpdate({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "in_progress",
      content: [{ type: "terminal", terminalId: "t1" }],
    });
    r.sessionUpdate({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      status: "in_progress",
    }); // no change: nothing printed
    r.sessionUpdate({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-1",
      title: "make test -j4",
    });
    t1.exited({ exitCode: 1, signal: null });
    r.sessionUpdate({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "failed" });
    expect(out.text).toBe(
      [
        "▸ make test [pending]",
        "Waiting for the lock.",
        "▸ make test [in_progress]",
        "▸ make test -j4 [in_progress]",
        "✗ make test -j4 [failed]",
        "  └ exit 1",
        "",
      ].join("\n"),
    );
  });

  it("prints notices and errors on stderr, on a line of their own", () => {
    const out = sink();
    const err = sink();
    const r = fedByV1(new TextRenderer(out, err));
    r.sessionUpdate({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "half a line" },
    });
    r.notice("Permission denied");
    r.finish({
      exitCode: 4,
      elapsedMs: 10,
      terminals: [],
      error: "Agent exited with code 1 during the turn",
    });
    expect(out.text).toBe("half a line\n");
    expect(err.text).toBe(
      "Permission denied\nAgent exited with code 1 during the turn\n── no stop reason · no terminals · 10 ms · exit code 4\n",
    );
  });
});

describe("TextRenderer, bounded in tool calls", () => {
  const call = (id: string, status: "in_progress" | "completed"): SessionUpdate =>
    status === "in_progress"
      ? { sessionUpdate: "tool_call", toolCallId: id, title: `job ${id}`, status }
      : { sessionUpdate: "tool_call_update", toolCallId: id, status };

  it.each([false, true])(
    "an agent flooding tool calls holds at most 256 open and 1024 finished (TTY: %s): the oldest open one is printed for good as it stands, the oldest finished are forgotten",
    (isTTY) => {
      const out = sink(isTTY);
      const r = fedByV1(new TextRenderer(out, sink()));
      for (let i = 0; i < 5_000; i++) {
        r.sessionUpdate(call(`c${i}`, "in_progress"));
      }
      expect(r.heldToolCalls).toBeLessThanOrEqual(MAX_OPEN_TOOL_CALLS + MAX_FINISHED_TOOL_CALLS);
      for (let i = 0; i < 5_000; i++) {
        r.sessionUpdate(call(`c${i}`, "completed"));
      }
      expect(r.heldToolCalls).toBeLessThanOrEqual(MAX_FINISHED_TOOL_CALLS);
      // The newest still completes as usual; a forgotten one's late update is ignored, not a crash.
      expect(out.text).toContain("✓ job c4999 [completed]");
      r.sessionUpdate(call("c0", "completed"));
      r.terminalExited("no-such-terminal", { exitCode: 0, signal: null });
    },
  );

  it("a terminal that ends after its finished tool call was forgotten is no crash", () => {
    const r = fedByV1(new TextRenderer(sink(), sink()));
    const t1 = terminal(r, "t1");
    r.sessionUpdate({
      sessionUpdate: "tool_call",
      toolCallId: "first",
      title: "make test",
      status: "in_progress",
      content: [{ type: "terminal", terminalId: "t1" }],
    });
    r.sessionUpdate(call("first", "completed"));
    for (let i = 0; i < MAX_FINISHED_TOOL_CALLS + 10; i++) {
      r.sessionUpdate(call(`c${i}`, "in_progress"));
      r.sessionUpdate(call(`c${i}`, "completed"));
    }
    expect(() => t1.exited({ exitCode: 0, signal: null })).not.toThrow();
    expect(() => r.terminalReleased("t1")).not.toThrow();
  });
});

describe("TextRenderer, on a TTY", () => {
  it("redraws the running tool call in place and prints it for good when it ends", async () => {
    const out = sink(true);
    const r = fedByV1(new TextRenderer(out, sink(true)));
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("in_progress", "t1"));
    expect(out.text).toBe("▸ make test [in_progress]\n");
    t1.output(bytes("building\n"));
    await until(() => out.text.includes("building"), { message: "a redraw with the new line" });
    expect(out.text).toContain("\x1b[1F\x1b[0J▸ make test [in_progress]\n  │ building\n");
    t1.exited({ exitCode: 2, signal: null });
    r.sessionUpdate({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "failed" });
    expect(
      out.text.endsWith("\x1b[2F\x1b[0J✗ make test [failed]\n  │ building\n  └ exit 2\n"),
    ).toBe(true);
    r.finish(result);
  });

  it("prints a finished terminal with its first lines, how many lines and bytes lie between, its last lines and its exit", async () => {
    const out = sink(true);
    const r = fedByV1(new TextRenderer(out, sink(true)));
    const t1 = terminal(r, "t1", 100); // the agent's limit: 100 bytes; the display's view is its own
    r.sessionUpdate(toolCall("in_progress", "t1"));
    t1.output(bytes(Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join("")));
    t1.exited({ exitCode: 0, signal: null });
    r.sessionUpdate(done);
    const first = Array.from({ length: 10 }, (_, i) => `  │ ${i + 1}`);
    const last = Array.from({ length: 10 }, (_, i) => `  │ ${991 + i}`);
    // Lines 11 to 990: 89 of 3 bytes ("11\n"), 891 of 4.
    expect(out.text.slice(out.text.lastIndexOf("✓"))).toBe(
      [
        "✓ make test [completed]",
        ...first,
        "  │ … 980 lines (3831 bytes) not shown",
        ...last,
        "  └ exit 0",
        "",
      ].join("\n"),
    );
    r.finish(result);
  });

  it("draws nothing in place while paused for a question, and redraws on resume", async () => {
    const out = sink(true);
    const r = fedByV1(new TextRenderer(out, sink(true)));
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("in_progress", "t1"));
    r.pause();
    r.pause();
    expect(out.text).toBe("▸ make test [in_progress]\n\x1b[1F\x1b[0J");
    t1.output(bytes("while asking\n"));
    r.resume();
    expect(out.text).not.toContain("while asking");
    r.resume();
    await until(() => out.text.endsWith("▸ make test [in_progress]\n  │ while asking\n"), {
      message: "the redraw after resume",
    });
    r.finish(result);
  });

  it("holds a partial message line while the live region is up", () => {
    const out = sink(true);
    const r = fedByV1(new TextRenderer(out, sink(true)));
    r.sessionUpdate(toolCall("pending"));
    r.sessionUpdate({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "thinking" },
    });
    expect(out.text).not.toContain("thinking");
    r.sessionUpdate({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: " hard\nnext" },
    });
    expect(out.text).toContain("thinking hard\n▸ make test [pending]\n");
    r.finish(result);
    expect(out.text).toContain("next");
  });
});

describe("JsonRenderer", () => {
  it("writes one JSON object per line: updates, terminal events with text output, the result", () => {
    const out = sink();
    const r = fedByV1(new JsonRenderer(out, sink()));
    r.sessionUpdate(toolCall("pending", "t1"));
    const t1 = terminal(r);
    const euro = Buffer.from("€!", "utf8");
    t1.output(euro.subarray(0, 2));
    t1.output(euro.subarray(2));
    t1.exited({ exitCode: 0, signal: null });
    r.terminalReleased("t1");
    r.finish(result);
    const lines = out.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.type, l.event])).toEqual([
      ["session_update", undefined],
      ["terminal", "create"],
      ["terminal", "output"],
      ["terminal", "exit"],
      ["terminal", "release"],
      ["result", undefined],
    ]);
    expect(lines[1]).toEqual({
      type: "terminal",
      event: "create",
      terminalId: "t1",
      command: "make",
      args: null,
      shell: null,
      argv: ["make"],
      cwd: "/",
      env: [],
      outputByteLimit: 1024 * 1024,
      pty: false,
    });
    expect(lines[2]).toEqual({ type: "terminal", event: "output", terminalId: "t1", output: "€!" });
    expect(lines[5]).toMatchObject({ type: "result", stopReason: "end_turn", exitCode: 0 });
  });

  it("says in create what runs: the line through a shell, the args sent or null, the names of the variables set (their values with --verbose) and the limit", () => {
    const created = (verbose: boolean) => {
      const out = sink();
      const r = new JsonRenderer(out, sink(), { verbose });
      r.terminalCreated({
        ...info("t1"),
        command: "seq 1 3 | tac",
        shell: true,
        argv: ["/usr/bin/bash", "-c", "seq 1 3 | tac"],
        env: [{ name: "CLAUDECODE", value: "1" }],
        outputByteLimit: 32000,
      });
      return parse(out.text)[0];
    };
    expect(created(false)).toMatchObject({
      command: "seq 1 3 | tac",
      args: null,
      shell: "/usr/bin/bash",
      argv: ["/usr/bin/bash", "-c", "seq 1 3 | tac"],
      env: [{ name: "CLAUDECODE" }],
      outputByteLimit: 32000,
    });
    expect(created(true)).toMatchObject({ env: [{ name: "CLAUDECODE", value: "1" }] });
  });

  it("cuts output events at a character boundary: the text arrives whole and nothing is counted as skipped", async () => {
    const out = sink();
    const r = fedByV1(new JsonRenderer(out, sink()));
    const t1 = terminal(r);
    const text = "€".repeat(50_000); // 150 000 bytes: more than two events' worth
    t1.output(bytes(text));
    await until(() => out.text.includes('"output"'), { message: "the output events" });
    t1.exited({ exitCode: 0, signal: null });
    const outputs = parse(out.text).filter((l) => l.event === "output");
    expect(outputs.length).toBeGreaterThan(2);
    expect(outputs.map((l) => l.output).join("")).toBe(text);
    expect(outputs.some((l) => "skippedBytes" in l)).toBe(false);
  });

  it("while the reader lags writes no output, then the first bytes, a skip said exactly, and the newest bytes; exit, release and result always", async () => {
    const out = laggingSink();
    const r = fedByV1(new JsonRenderer(out, sink()));
    // The agent's limit (the host's buffer) is 64 KiB; what --json holds is its own.
    const t1 = terminal(r, "t1", 64 * 1024);
    out.lagging = true;
    const mib = new Uint8Array(1024 * 1024).fill(0x61);
    for (let i = 0; i < 10; i++) {
      t1.output(mib);
    }
    await nextTurn();
    await nextTurn();
    expect(out.text).not.toContain('"output"');
    out.drain();
    await until(() => out.text.includes('"skippedBytes"'), {
      message: "output once the reader caught up",
    });
    const [first, resumed] = parse(out.text).filter((l) => l.event === "output");
    expect((first!.output as string).length).toBe(FIRST_BYTES);
    expect(first).not.toHaveProperty("skippedBytes");
    // No newline in what was held: it resumes inside the line, and says so.
    expect(resumed).toMatchObject({
      skippedBytes: 10 * 1024 * 1024 - FIRST_BYTES - WAITING_BYTES,
      skippedLines: 0,
      partial: true,
    });
    const caughtUp = parse(out.text)
      .filter((l) => l.event === "output")
      .reduce((sum, l) => sum + (l.output as string).length + ((l.skippedBytes as number) ?? 0), 0);
    expect(caughtUp).toBe(10 * 1024 * 1024);
    // It exits while the reader lags again: the exit is written, with only the newest output before it.
    const before = out.text.length;
    out.lagging = true;
    for (let i = 0; i < 3; i++) {
      t1.output(mib);
    }
    t1.exited({ exitCode: 0, signal: null });
    r.terminalReleased("t1");
    r.finish(result);
    const lines = parse(out.text);
    expect(lines.map((l) => l.event ?? l.type).slice(-4)).toEqual([
      "output",
      "exit",
      "release",
      "result",
    ]);
    expect(lines.at(-4)).toMatchObject({ skippedBytes: 3 * 1024 * 1024 - 4096, partial: true });
    expect((lines.at(-4)!.output as string).length).toBe(4096);
    expect(out.text.length - before).toBeLessThan(8 * 1024);
  });
});

describe("TextRenderer, reading output when it draws", () => {
  /** The buffer of a terminal, counting the bytes the renderer reads of it. */
  function countedTerminal(r: Renderer, limit: number) {
    const buffer = new OutputBuffer(limit);
    const reader = counting(buffer);
    r.terminalCreated(info("t1"), reader);
    return {
      get bytesRead() {
        return reader.bytesRead;
      },
      output(data: Uint8Array) {
        buffer.append(data);
        r.terminalBytes("t1", data);
      },
      exited(status: ExitStatus) {
        buffer.end();
        r.terminalExited("t1", status);
      },
    };
  }

  for (const tty of [false, true]) {
    it(`${tty ? "on a TTY" : "piped"}, shows a 100 MiB line cut, with its size, and the line after it, reading nothing of the host's buffer`, async () => {
      const out = sink(tty);
      const r = fedByV1(new TextRenderer(out, sink(tty)));
      const t1 = countedTerminal(r, 1024 * 1024);
      r.sessionUpdate(toolCall("in_progress", "t1"));
      const chunk = new Uint8Array(64 * 1024).fill(0x7a);
      for (let i = 0; i < 1600; i++) {
        t1.output(chunk); // 100 MiB, no newline
      }
      t1.output(bytes("\nthe end\n"));
      if (tty) {
        await until(() => out.text.includes("the end"), { message: "a redraw with the last line" });
      }
      t1.exited({ exitCode: 0, signal: null });
      r.sessionUpdate(done);
      r.finish(result);
      const line = `${"z".repeat(399)}… (${100 * 1024 * 1024 + 1} bytes)`;
      expect(out.text).toContain(
        tty
          ? `  │ ${line}\n  │ the end\n  └ exit 0\n`
          : `  │ ${line}\n  │ the end\n✓ make test [completed]\n  └ exit 0\n`,
      );
      expect(t1.bytesRead).toBe(0);
    });
  }

  it("piped, streams no lines while the reader lags, and the first ones once it catches up", async () => {
    const out = laggingSink();
    const r = fedByV1(new TextRenderer(out, sink()));
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("in_progress", "t1"));
    out.lagging = true;
    t1.output(bytes("one\ntwo\n"));
    expect(out.text).toBe("▸ make test [in_progress]\n");
    await until(() => out.waiting.length > 0, { message: "the renderer waiting for the reader" });
    expect(out.text).toBe("▸ make test [in_progress]\n");
    out.drain();
    await until(() => out.text.includes("two"), {
      message: "the lines after the reader caught up",
    });
    expect(out.text).toBe("▸ make test [in_progress]\n  │ one\n  │ two\n");
  });

  it("on a TTY, does not redraw while the reader lags, and redraws once it caught up", async () => {
    const out = laggingSink(true);
    const r = fedByV1(new TextRenderer(out, sink(true)));
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("in_progress", "t1"));
    out.lagging = true;
    t1.output(bytes("while lagging\n"));
    await until(() => out.waiting.length > 0, {
      message: "the live region waiting for the reader",
    });
    expect(out.text).toBe("▸ make test [in_progress]\n");
    out.drain();
    await until(() => out.text.endsWith("▸ make test [in_progress]\n  │ while lagging\n"), {
      message: "the redraw after the reader caught up",
    });
    r.finish(result);
  });

  it("on a TTY, redraws at most once a frame however many chunks arrive", async () => {
    const out = sink(true);
    const r = fedByV1(new TextRenderer(out, sink(true)));
    const t1 = terminal(r);
    r.sessionUpdate(toolCall("in_progress", "t1"));
    for (let i = 1; i <= 1000; i++) {
      t1.output(bytes(`line ${i}\n`));
    }
    await until(() => out.text.includes("line 1000"), { message: "the redraw" });
    expect(out.text.split("\x1b[0J").length - 1).toBe(1);
    // "line 1\n" … "line 990\n": 9 × 7 + 90 × 8 + 891 × 9 bytes.
    expect(out.text).toContain("  │ … 990 earlier lines (8802 bytes)\n");
    r.finish(result);
  });
});

describe("jsonLine (--json output lines built as bytes)", () => {
  const expected = (bytes: Uint8Array) =>
    `{"o":${JSON.stringify(new TextDecoder().decode(bytes))}}\n`;

  it("writes what JSON.stringify of the decoded text writes: escapes, valid and invalid UTF-8", () => {
    const samples = [
      Buffer.alloc(0),
      Buffer.from('a"b\\c\n\r\t\b\f\u0000\u001f\u007f é 日本 🎉'),
      Buffer.alloc(300), // NULs: \u0000 each
      // surrogates encoded, overlongs, out of range, truncated sequences: U+FFFD per maximal subpart
      Buffer.from([0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80, 0xe0, 0x80, 0xc0, 0xc1, 0xf5, 0xff]),
      Buffer.from([0x41, 0xe2, 0x82]),
      Buffer.from([0xf0, 0x9f, 0x98]),
    ];
    // Deterministic pseudo-random bytes, half of them with the high bit set.
    let seed = 7;
    for (let n = 0; n < 2000; n++) {
      const bytes = Buffer.alloc(1 + (n % 37));
      for (let i = 0; i < bytes.length; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        bytes[i] = seed & 0xff;
      }
      samples.push(bytes);
    }
    for (const bytes of samples) {
      expect(jsonLine('{"o":', bytes, "}\n").toString()).toBe(expected(bytes));
    }
  });

  it("reuses the buffer it is given when the worst case fits, and makes one of its own otherwise", () => {
    const first = jsonLine("[", Buffer.from("x"), "]");
    expect(first.toString()).toBe('["x"]');
    const reused = jsonLine("[", Buffer.alloc(100, 1), "]", Buffer.from(first.buffer));
    expect(reused.buffer).toBe(first.buffer);
    expect(JSON.parse(reused.toString())).toEqual(["\u0001".repeat(100)]);
    const tooSmall = Buffer.allocUnsafeSlow(5);
    expect(jsonLine("[", Buffer.from("x"), "]", tooSmall).buffer).not.toBe(tooSmall.buffer);
  });
});
