import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import type { TerminalInfo } from "../src/host/types.js";
import { JsonRenderer } from "../src/cli/json-renderer.js";
import type { Output } from "../src/cli/renderer.js";
import { TextRenderer } from "../src/cli/text-renderer.js";
import { PLAIN_STREAM_LINES } from "../src/cli/views.js";
import { until } from "../../../test/support/until.js";

function sink(isTTY = false): Output & { text: string } {
  return { text: "", isTTY, columns: 80, write(chunk) { this.text += chunk; } };
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));
const info = (terminalId: string): TerminalInfo => ({
  terminalId,
  owner: { connectionId: "c", sessionId: "s" },
  command: "make",
  args: [],
  cwd: "/",
  pty: false,
  state: "running",
  startedAt: 0,
});
const toolCall = (status: "pending" | "in_progress", terminalId?: string): SessionUpdate => ({
  sessionUpdate: "tool_call",
  toolCallId: "call-1",
  title: "make test",
  kind: "execute",
  status,
  ...(terminalId ? { content: [{ type: "terminal", terminalId }] } : {}),
});
const done: SessionUpdate = { sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "completed" };
const result = { exitCode: 0, stopReason: "end_turn", elapsedMs: 1234, terminals: [{ terminalId: "t1", command: "make", exitStatus: { exitCode: 0, signal: null } }] };

describe("TextRenderer, piped", () => {
  it("streams message text, tool call status and terminal lines, then the final status", () => {
    const out = sink();
    const err = sink();
    const r = new TextRenderer(out, err);
    r.sessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Running the " } });
    r.sessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "tests." } });
    r.terminalCreated(info("t1"));
    r.terminalOutput("t1", bytes("early line\n"));
    r.sessionUpdate(toolCall("in_progress", "t1"));
    r.terminalOutput("t1", bytes("ok 1\nok "));
    r.terminalOutput("t1", bytes("2\nno newline"));
    r.terminalExited("t1", { exitCode: 0, signal: null });
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
    const r = new TextRenderer(out, sink());
    r.terminalCreated(info("t1"));
    r.sessionUpdate(toolCall("in_progress", "t1"));
    const lines = Array.from({ length: PLAIN_STREAM_LINES + 50 }, (_, i) => `line ${i + 1}`);
    r.terminalOutput("t1", bytes(`${lines.join("\n")}\n`));
    r.sessionUpdate(done);
    r.terminalExited("t1", { exitCode: null, signal: "SIGTERM" });
    const printed = out.text.split("\n");
    expect(printed).toContain(`  │ line ${PLAIN_STREAM_LINES}`);
    expect(printed).not.toContain(`  │ line ${PLAIN_STREAM_LINES + 1}`);
    expect(printed).toContain("  │ … 50 lines not shown");
    expect(printed.slice(-3)).toEqual([`  │ line ${PLAIN_STREAM_LINES + 50}`, "  └ killed by SIGTERM", ""]);
  });

  it("shows the text content of a tool call without a terminal, not of one with a terminal", () => {
    const out = sink();
    const r = new TextRenderer(out, sink());
    const text = (t: string) => [{ type: "content" as const, content: { type: "text" as const, text: t } }];
    r.sessionUpdate({ sessionUpdate: "tool_call", toolCallId: "read", title: "read notes.txt", status: "completed", content: text("line one\nline two\n") });
    r.terminalCreated(info("t1"));
    r.sessionUpdate(toolCall("in_progress", "t1"));
    r.terminalExited("t1", { exitCode: 0, signal: null });
    r.sessionUpdate({ ...done, content: [{ type: "terminal", terminalId: "t1" }, ...text("summary that repeats the output")] });
    expect(out.text).toBe(["✓ read notes.txt [completed]", "  line one", "  line two", "▸ make test [in_progress]", "✓ make test [completed]", "  └ exit 0", ""].join("\n"));
  });

  it("prints a tool call's line once when it starts: pending then in_progress with nothing between is one line", () => {
    const out = sink();
    const r = new TextRenderer(out, sink());
    r.terminalCreated(info("t1"));
    r.sessionUpdate(toolCall("pending"));
    r.sessionUpdate({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "in_progress", content: [{ type: "terminal", terminalId: "t1" }] });
    r.terminalOutput("t1", bytes("ok\n"));
    r.terminalExited("t1", { exitCode: 0, signal: null });
    r.sessionUpdate(done);
    expect(out.text).toBe(["▸ make test [pending]", "  │ ok", "✓ make test [completed]", "  └ exit 0", ""].join("\n"));
  });

  it("prints in_progress after pending when other lines came between, and any other change of its line", () => {
    const out = sink();
    const r = new TextRenderer(out, sink());
    r.terminalCreated(info("t1"));
    r.sessionUpdate(toolCall("pending"));
    r.sessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Waiting for the lock.\n" } });
    r.sessionUpdate({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "in_progress", content: [{ type: "terminal", terminalId: "t1" }] });
    r.sessionUpdate({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "in_progress" }); // no change: nothing printed
    r.sessionUpdate({ sessionUpdate: "tool_call_update", toolCallId: "call-1", title: "make test -j4" });
    r.terminalExited("t1", { exitCode: 1, signal: null });
    r.sessionUpdate({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "failed" });
    expect(out.text).toBe(
      ["▸ make test [pending]", "Waiting for the lock.", "▸ make test [in_progress]", "▸ make test -j4 [in_progress]", "✗ make test -j4 [failed]", "  └ exit 1", ""].join("\n"),
    );
  });

  it("prints notices and errors on stderr, on a line of their own", () => {
    const out = sink();
    const err = sink();
    const r = new TextRenderer(out, err);
    r.sessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "half a line" } });
    r.notice("Permission denied");
    r.finish({ exitCode: 4, elapsedMs: 10, terminals: [], error: "Agent exited with code 1 during the turn" });
    expect(out.text).toBe("half a line\n");
    expect(err.text).toBe("Permission denied\nAgent exited with code 1 during the turn\n── no stop reason · no terminals · 10 ms · exit code 4\n");
  });
});

describe("TextRenderer, on a TTY", () => {
  it("redraws the running tool call in place and prints it for good when it ends", async () => {
    const out = sink(true);
    const r = new TextRenderer(out, sink(true));
    r.terminalCreated(info("t1"));
    r.sessionUpdate(toolCall("in_progress", "t1"));
    expect(out.text).toBe("▸ make test [in_progress]\n");
    r.terminalOutput("t1", bytes("building\n"));
    await until(() => out.text.includes("building"), { message: "a redraw with the new line" });
    expect(out.text).toContain("\x1b[1F\x1b[0J▸ make test [in_progress]\n  │ building\n");
    r.terminalExited("t1", { exitCode: 2, signal: null });
    r.sessionUpdate({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "failed" });
    expect(out.text.endsWith("\x1b[2F\x1b[0J✗ make test [failed]\n  │ building\n  └ exit 2\n")).toBe(true);
    r.finish(result);
  });

  it("draws nothing in place while paused for a question, and redraws on resume", async () => {
    const out = sink(true);
    const r = new TextRenderer(out, sink(true));
    r.terminalCreated(info("t1"));
    r.sessionUpdate(toolCall("in_progress", "t1"));
    r.pause();
    r.pause();
    expect(out.text).toBe("▸ make test [in_progress]\n\x1b[1F\x1b[0J");
    r.terminalOutput("t1", bytes("while asking\n"));
    r.resume();
    expect(out.text).not.toContain("while asking");
    r.resume();
    await until(() => out.text.endsWith("▸ make test [in_progress]\n  │ while asking\n"), { message: "the redraw after resume" });
    r.finish(result);
  });

  it("holds a partial message line while the live region is up", () => {
    const out = sink(true);
    const r = new TextRenderer(out, sink(true));
    r.sessionUpdate(toolCall("pending"));
    r.sessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "thinking" } });
    expect(out.text).not.toContain("thinking");
    r.sessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: " hard\nnext" } });
    expect(out.text).toContain("thinking hard\n▸ make test [pending]\n");
    r.finish(result);
    expect(out.text).toContain("next");
  });
});

describe("JsonRenderer", () => {
  it("writes one JSON object per line: updates, terminal events with text output, the result", () => {
    const out = sink();
    const r = new JsonRenderer(out, sink());
    r.sessionUpdate(toolCall("pending", "t1"));
    r.terminalCreated(info("t1"));
    const euro = Buffer.from("€!", "utf8");
    r.terminalOutput("t1", euro.subarray(0, 2));
    r.terminalOutput("t1", euro.subarray(2));
    r.terminalExited("t1", { exitCode: 0, signal: null });
    r.terminalReleased("t1");
    r.finish(result);
    const lines = out.text.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.type, l.event])).toEqual([
      ["session_update", undefined],
      ["terminal", "create"],
      ["terminal", "output"],
      ["terminal", "exit"],
      ["terminal", "release"],
      ["result", undefined],
    ]);
    expect(lines[2]).toEqual({ type: "terminal", event: "output", terminalId: "t1", output: "€!" });
    expect(lines[5]).toMatchObject({ type: "result", stopReason: "end_turn", exitCode: 0 });
  });
});
