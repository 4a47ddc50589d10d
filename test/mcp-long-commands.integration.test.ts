/**
 * Long commands in a host without MCP Tasks (Claude Code drops the capability), through the MCP
 * SDK clients over real stdio: a wait waits for what it is asked (by default the exit; sooner on
 * input required or a match; on any output only with until "output") and says what woke it; each
 * surface hands out each output byte once (a poll or wait continues where the previous answer
 * ended; older bytes are read by offset on request); head-and-tail cuts keep whole lines where a
 * line break is near, mark a partial line, and give the exact byte offsets of what they left out.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import type { ClientKind, McpTestClient, ToolCallResult } from "./support/mcp-clients.js";
import { connectServer } from "./support/mcp-server.js";

let workspace: string;
let mark: string;
const open: McpTestClient[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-long-")));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
  await untilNoneMarked(mark);
});

async function server(kind: ClientKind, tools: string): Promise<McpTestClient> {
  mark = newMark();
  const client = await connectServer(
    kind,
    ["--workspace", workspace, "--yes", "--tools", tools],
    mark,
  );
  open.push(client);
  return client;
}

/** A successful call's structured result. */
async function call(
  client: McpTestClient,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, any>> {
  const result: ToolCallResult = await client.callTool(tool, args, { timeoutMs: 60_000 });
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  return result.structuredContent!;
}

/** `for i in 1..n: echo tick i; sleep gap`: a command whose every line is new output. */
const ticker = (n: number, gap: number) =>
  `for i in $(seq 1 ${n}); do echo tick $i; sleep ${gap}; done`;
const ticks = (n: number) => Array.from({ length: n }, (_, i) => `tick ${i + 1}\n`).join("");
const SEQ_LINES = 200_000;
const SEQ_OUTPUT = Array.from({ length: SEQ_LINES }, (_, i) => `${i + 1}\n`).join("");

/**
 * The text of a cut answer, split at its marker line: what precedes it, the marker, what follows.
 * The marker starts a line; the line break before it is the output's own unless the line above
 * is partial (then the answer added it).
 */
function aroundMarker(text: string): { head: string; marker: string; tail: string } {
  const match = /(?<=^|\n)(\[\.\.\. \d+ bytes \(\d+ tokens\) omitted[^\n]*\.\.\.\])\n/.exec(text);
  expect(match, text.slice(0, 300)).not.toBeNull();
  const marker = match![1]!;
  const added = /lines? above (this mark is|and below this mark are) partial/.test(marker) ? 1 : 0;
  return {
    head: text.slice(0, match!.index - added),
    marker,
    tail: text.slice(match!.index + match![0].length),
  };
}

/** Checks a cut of SEQ_OUTPUT: whole lines on both sides, and the marker's offsets name exactly the bytes between. */
function expectLineCut(text: string, omitted: { offset: number; bytes: number }): void {
  const { head, marker, tail } = aroundMarker(text);
  expect(marker).toContain(`(output bytes ${omitted.offset}..${omitted.offset + omitted.bytes})`);
  expect(marker).not.toContain("partial");
  expect(head.endsWith("\n") || head === "").toBe(true);
  expect(SEQ_OUTPUT.startsWith(head)).toBe(true);
  expect(Buffer.byteLength(head)).toBe(omitted.offset);
  expect(SEQ_OUTPUT.endsWith(tail)).toBe(true);
  expect(omitted.offset + omitted.bytes + Buffer.byteLength(tail)).toBe(SEQ_OUTPUT.length);
  // The line after the marker is a whole line: it starts right after a line break of the output.
  expect(SEQ_OUTPUT[SEQ_OUTPUT.length - Buffer.byteLength(tail) - 1]).toBe("\n");
}

describe.each(["v2-modern", "v1"] as const)("the %s client", (kind) => {
  test("exec of 8 lines 0.5 s apart with yieldMs 1000 answers running; one process wait returns at the exit, saying so, with each line exec had not shown, once", async () => {
    const client = await server(kind, "exec");
    const started = await call(client, "exec", { command: ticker(8, 0.5), yieldMs: 1000 });
    expect(started).toMatchObject({ status: "running", tail: expect.stringMatching(/^tick 1\n/) });
    const waited = await call(client, "process", {
      action: "wait",
      sessionId: started.sessionId,
      waitMs: 20_000,
    });
    expect(waited).toMatchObject({ woke: "exit", status: "completed", exitCode: 0 });
    expect(started.tail + waited.output).toBe(ticks(8));
    // Older bytes when asked: by byte offset.
    const log = await call(client, "process", {
      action: "log",
      sessionId: started.sessionId,
      byteOffset: 0,
    });
    expect(log.output).toBe(ticks(8));
  });

  test("a poll after exec answered with the whole output hands out nothing again; log reads it on request", async () => {
    const client = await server(kind, "exec");
    const done = await call(client, "exec", { command: "echo once" });
    expect(done).toMatchObject({ status: "completed", output: "once\n" });
    const polled = await call(client, "process", { action: "poll", sessionId: done.sessionId });
    expect(polled).toMatchObject({ status: "completed", output: "" });
    const waited = await call(client, "process", { action: "wait", sessionId: done.sessionId });
    expect(waited).toMatchObject({ woke: "exit", output: "" });
    const log = await call(client, "process", { action: "log", sessionId: done.sessionId });
    expect(log.lines).toEqual(["once"]);
  });

  test("process wait wakes early when the command waits for input or its output matches pattern, and on any output with until output; poll continues where the last answer ended", async () => {
    const client = await server(kind, "exec");
    const asking = await call(client, "exec", {
      command: 'echo "name?"; read name; echo "hello $name"; ' + ticker(6, 0.4),
      yieldMs: 10_000,
    });
    expect(asking).toMatchObject({ status: "running", tail: "name?\n" });
    const id = asking.sessionId as string;
    const input = await call(client, "process", { action: "wait", sessionId: id, waitMs: 20_000 });
    expect(input).toMatchObject({ woke: "input", status: "running", output: "" });
    await call(client, "process", { action: "write", sessionId: id, data: "ada\n" });
    const matched = await call(client, "process", {
      action: "wait",
      sessionId: id,
      pattern: "tick 3",
      waitMs: 20_000,
    });
    expect(matched).toMatchObject({ woke: "match", match: "tick 3", status: "running" });
    const next = await call(client, "process", {
      action: "wait",
      sessionId: id,
      until: "output",
      waitMs: 20_000,
    });
    expect(next).toMatchObject({ woke: "output", status: "running" });
    const rest = await call(client, "process", { action: "wait", sessionId: id, waitMs: 20_000 });
    expect(rest).toMatchObject({ woke: "exit", status: "completed" });
    const polled = await call(client, "process", { action: "poll", sessionId: id });
    expect(polled.output).toBe("");
    expect(matched.output + next.output + rest.output).toBe(`hello ada\n${ticks(6)}`);
  });

  test("exec's running answer shows a tail from a line's start, after a marker naming the earlier bytes and how to read them", async () => {
    const client = await server(kind, "exec");
    const started = await call(client, "exec", {
      command: `seq 1 2000; sleep 30`,
      yieldMs: 1000,
    });
    expect(started.status).toBe("running");
    const { head, marker, tail } = aroundMarker(started.tail as string);
    expect(head).toBe("");
    const all = Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join("");
    const from = all.length - tail.length;
    expect(all.endsWith(tail) && all[from - 1] === "\n").toBe(true);
    expect(marker).toContain(`(output bytes 0..${from}); read them with process`);
    await call(client, "process", { action: "kill", sessionId: started.sessionId });
  });

  test("exec's head-and-tail cut falls on line breaks, and its marker keeps the exact byte offsets", async () => {
    const client = await server(kind, "exec");
    const done = await call(client, "exec", { command: `seq 1 ${SEQ_LINES}` });
    expect(done).toMatchObject({ status: "completed", originalBytes: SEQ_OUTPUT.length });
    expectLineCut(done.output, done.omitted);
    const between = await call(client, "process", {
      action: "log",
      sessionId: done.sessionId,
      byteOffset: done.omitted.offset,
      byteLimit: 64,
    });
    expect(between.output).toBe(SEQ_OUTPUT.slice(done.omitted.offset, done.omitted.offset + 64));
  });

  test("a cut keeps whole lines where a line break is within 4 KiB of its edge; a longer line is cut where the budget ends and marked partial", async () => {
    const client = await server(kind, "exec");
    const near = await call(client, "exec", {
      command: "head -c 100000 /dev/zero | tr '\\0' a; echo; echo end",
      maxOutputTokens: 2000,
    });
    const before = aroundMarker(near.output);
    expect(before.marker).toContain("the line above this mark is partial");
    expect(before.head).toMatch(/^a+$/);
    expect(before.tail).toBe("end\n");
    expect(near.omitted).toMatchObject({
      offset: Buffer.byteLength(before.head),
      bytes: 100_001 - Buffer.byteLength(before.head),
    });
    const far = await call(client, "exec", {
      command: "head -c 100000 /dev/zero | tr '\\0' a",
      maxOutputTokens: 2000,
    });
    const { head, marker, tail } = aroundMarker(far.output);
    expect(marker).toContain("the lines above and below this mark are partial");
    expect(marker).toContain(
      `(output bytes ${far.omitted.offset}..${far.omitted.offset + far.omitted.bytes})`,
    );
    expect(head).toMatch(/^a+$/);
    expect(tail).toMatch(/^a+$/);
    expect(Buffer.byteLength(head)).toBe(far.omitted.offset);
    expect(far.omitted.offset + far.omitted.bytes + Buffer.byteLength(tail)).toBe(100_000);
  });

  test("a wait that hands out more than its budget cuts on line breaks with exact offsets, and the next wait continues after it", async () => {
    const client = await server(kind, "exec");
    // Well within what a run keeps as items (10,000 items, 1,000,000 characters): a poll reads it all.
    const lines = 20_000;
    const all = SEQ_OUTPUT.slice(0, SEQ_OUTPUT.indexOf(`\n${lines + 1}\n`) + 1);
    const started = await call(client, "exec", {
      command: `sleep 0.5; seq 1 ${lines}; sleep 0.5; echo done`,
      yieldMs: 10,
    });
    expect(started).toMatchObject({ status: "running", tail: "" });
    const waited = await call(client, "process", {
      action: "wait",
      sessionId: started.sessionId,
      waitMs: 20_000,
      pattern: `^${lines}$`,
      maxOutputTokens: 2000,
    });
    expect(waited).toMatchObject({ woke: "match", status: "running" });
    expect(waited).not.toHaveProperty("missedItems");
    const { head, marker, tail } = aroundMarker(waited.output);
    expect(marker).not.toContain("partial");
    expect(head.endsWith("\n") && all.startsWith(head)).toBe(true);
    expect(Buffer.byteLength(head)).toBe(waited.omitted.offset);
    expect(all.endsWith(tail) && all[all.length - tail.length - 1] === "\n").toBe(true);
    expect(waited.omitted.offset + waited.omitted.bytes + tail.length).toBe(all.length);
    const rest = await call(client, "process", {
      action: "wait",
      sessionId: started.sessionId,
      waitMs: 20_000,
    });
    expect(rest).toMatchObject({ woke: "exit", output: "done\n" });
  });
});

test("a wait reports progress naming the command it waits on, so a host that resets its timeout on progress keeps waiting; cancelling the wait leaves the command running", async () => {
  mark = newMark();
  const client = await connectServer(
    "v2-modern",
    ["--workspace", workspace, "--yes", "--progress-interval", "0.05"],
    mark,
  );
  open.push(client);
  const started = await call(client, "exec", { command: ticker(100, 0.2), background: true });
  const messages: string[] = [];
  const cancel = new AbortController();
  const waiting = client.callTool(
    "process",
    { action: "wait", sessionId: started.sessionId, waitMs: 60_000 },
    {
      timeoutMs: 60_000,
      signal: cancel.signal,
      onprogress: (progress) => {
        messages.push(progress.message ?? "");
        if (messages.length === 3) {
          cancel.abort();
        }
      },
    },
  );
  await expect(waiting).rejects.toThrow();
  expect(messages[0]).toMatch(new RegExp(`^${started.sessionId} running, \\d+ bytes of output`));
  const after = await call(client, "process", { action: "poll", sessionId: started.sessionId });
  expect(after.status).toBe("running");
  await call(client, "process", { action: "kill", sessionId: started.sessionId });
});

describe("the other surfaces, through the v2-modern client", () => {
  test("process_wait waits for the exit by default and hands out what followed process_run's answer, once; until output wakes on the next line", async () => {
    const client = await server("v2-modern", "process");
    const started = await call(client, "process_run", {
      command: ticker(6, 0.4),
      background: true,
    });
    const id = started.process_id as string;
    const next = await call(client, "process_wait", { id, until: "output", timeout: 20 });
    expect(next).toMatchObject({ woke: "output", state: "running" });
    const rest = await call(client, "process_wait", { id, timeout: 20 });
    expect(rest).toMatchObject({ woke: "exit", state: "completed", exit_code: 0 });
    expect(started.stdout_summary + next.stdout + rest.stdout).toBe(ticks(6));
  });

  test("shell wait waits for the exit, wakes early on a watcher; poll and wait without since_seq continue where the last answer ended", async () => {
    const client = await server("v2-modern", "shell");
    const spawned = await call(client, "shell", {
      action: "spawn",
      command: ticker(6, 0.4),
      watch: [{ regex: "tick 2", event: "second" }],
    });
    const watched = await call(client, "shell", { action: "wait", id: spawned.id, wait_secs: 20 });
    expect(watched).toMatchObject({ woke: "watch", status: "running" });
    expect(watched.watch_hits).toEqual([expect.objectContaining({ event: "second" })]);
    expect(watched).not.toHaveProperty("snippet");
    const rest = await call(client, "shell", { action: "wait", id: spawned.id, wait_secs: 20 });
    expect(rest).toMatchObject({ woke: "exit", status: "completed" });
    const polled = await call(client, "shell", { action: "poll", id: spawned.id });
    expect(polled.items).toEqual([]);
    const texts = (answer: Record<string, any>) =>
      (answer.items as { kind: string; text?: string }[])
        .filter((item) => item.kind === "output")
        .map((item) => item.text)
        .join("");
    expect(texts(watched) + texts(rest)).toBe(ticks(6));
    const log = await call(client, "shell", { action: "log", id: spawned.id });
    expect(texts(log)).toBe(ticks(6));
  });

  test("unified exec's head-and-tail cut falls on line breaks with the exact offsets of what it left out", async () => {
    const client = await server("v2-modern", "unified");
    const done = await call(client, "exec_command", {
      cmd: `seq 1 ${SEQ_LINES}`,
      yield_time_ms: 30_000,
      max_output_tokens: 2000,
    });
    expect(done).toMatchObject({ exit_code: 0 });
    expectLineCut(done.output, done.omitted);
  });
});
