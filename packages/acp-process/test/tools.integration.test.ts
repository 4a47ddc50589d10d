import { afterEach, describe, expect, it } from "vitest";
import { allTools, execTool, processTool, processTools, runTool, shellTool, type ToolContext, type ToolDefinition } from "../src/index.js";
import { localRig, nodeScript, until, type LocalRig } from "./support.js";

let rig: LocalRig | undefined;
afterEach(async () => {
  await rig?.dispose();
  rig = undefined;
});

function ctx(): ToolContext {
  rig ??= localRig();
  return { manager: rig.manager, sessionId: "s" };
}

async function call(tool: ToolDefinition, input: unknown): Promise<Record<string, any>> {
  const outcome = await runTool(tool, ctx(), input);
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return outcome.result as Record<string, any>;
}

const [processRun, processMonitor, processKill, processList, processLogs] = processTools;
const hang = nodeScript("process-ready-then-hang.mjs");
const hangLine = `${hang.command} ${hang.args.join(" ")}`;

describe("exec + process tools", () => {
  it("returns a short command's output directly", async () => {
    const result = await call(execTool, { command: "echo hello; echo oops >&2" });
    expect(result).toMatchObject({ status: "completed", exitCode: 0, output: "hello\noops\n", truncated: false });
  });

  it("yields a long command, then polls only new output, kills and removes it", async () => {
    const started = await call(execTool, { command: hangLine, yieldMs: 10 });
    expect(started.status).toBe("running");
    const id = started.sessionId as string;
    const first = await until(async () => {
      const poll = await call(processTool, { action: "poll", sessionId: id });
      return poll.output ? poll : undefined;
    }, "first output");
    expect(first.output).toBe("ready\n");
    expect((await call(processTool, { action: "poll", sessionId: id })).output).toBe("");
    const listed = await call(processTool, { action: "list" });
    expect(listed.processes.map((p: { sessionId: string }) => p.sessionId)).toContain(id);
    const killed = await call(processTool, { action: "kill", sessionId: id, signal: "SIGTERM" });
    expect(killed.status).toBe("killed");
    await call(processTool, { action: "remove", sessionId: id });
    const gone = await runTool(processTool, ctx(), { action: "poll", sessionId: id });
    expect(gone).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("passes the context's onStart and labels to the runs it starts", async () => {
    const seen: (string | null)[] = [];
    const outcome = await runTool(execTool, { ...ctx(), labels: { toolCallId: "call-1" }, onStart: (run) => void seen.push(run.terminalId) }, { command: "true" });
    expect(outcome.ok).toBe(true);
    const id = outcome.ok ? (outcome.result as { sessionId: string }).sessionId : "";
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/.+/);
    expect(rig!.manager.get(id).labels).toEqual({ toolCallId: "call-1", tool: "exec" });
  });

  it("starts in the background at once", async () => {
    const started = await call(execTool, { command: hangLine, background: true });
    expect(started).toMatchObject({ status: "running" });
  });

  it("reads the log by line offset and limit, or the last lines", async () => {
    const done = await call(execTool, { command: "printf '1\\n2\\n3\\n4\\n5\\n'" });
    const some = await call(processTool, { action: "log", sessionId: done.sessionId, offset: 1, limit: 2 });
    expect(some).toMatchObject({ lines: ["2", "3"], offset: 1, totalLines: 5 });
    const last = await call(processTool, { action: "log", sessionId: done.sessionId, limit: 2 });
    expect(last).toMatchObject({ lines: ["4", "5"], offset: 3 });
  });

  it("rejects bad arguments with the field and what was expected", async () => {
    const outcome = await runTool(execTool, ctx(), { command: "" });
    expect(outcome).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(!outcome.ok && outcome.error.message).toMatch(/^Invalid exec arguments: command: /);
    const missing = await runTool(processTool, ctx(), { action: "poll" });
    expect(!missing.ok && missing.error.message).toMatch(/Invalid sessionId: expected the id returned by exec/);
  });

  it("exports JSON Schemas for model tool definitions", () => {
    expect(execTool.jsonSchema).toMatchObject({ type: "object", required: ["command"], properties: { command: { type: "string" }, yieldMs: { type: "integer" } } });
    expect(processTool.jsonSchema).toMatchObject({ properties: { action: { enum: ["list", "poll", "log", "write", "kill", "clear", "remove"] } } });
    expect(processRun.functionName).toBe("process_run");
    expect(allTools.map((t) => t.name)).toEqual(["exec", "process", "process.run", "process.monitor", "process.kill", "process.list", "process.logs", "shell"]);
    for (const tool of allTools) expect(tool.jsonSchema).toMatchObject({ type: "object" });
  });
});

describe("process.* tools", () => {
  it("runs to completion with state, exit code, output, line count and duration", async () => {
    const result = await call(processRun, { command: "echo hi; exit 2" });
    expect(result).toMatchObject({ state: "completed", exit_code: 2, stdout: "hi\n", stdout_lines: 1, streams_merged: true });
    expect(typeof result.duration_ms).toBe("number");
  });

  it("times out as a state, and monitors, kills, lists and reads logs", async () => {
    rig = localRig({ manualClock: true });
    const pending = call(processRun, { ...hang, command: hang.command, timeout: 0.3 });
    const running = await until(() => rig!.manager.list().find((r) => r.status === "running"), "the run");
    await until(async () => (await call(processMonitor, { id: running.id })).stdout === "ready\n", "ready");
    rig.clock!.advance(300);
    const timedOut = await pending;
    expect(timedOut).toMatchObject({ state: "timed_out", stdout: "ready\n", error: expect.stringMatching(/^timed out after 300 ms: /) });
    const bg = await call(processRun, { command: hang.command, args: hang.args, background: true });
    expect(bg.state).toBe("running");
    await until(async () => (await call(processMonitor, { id: bg.id })).stdout === "ready\n", "ready");
    const monitored = await call(processMonitor, { id: bg.id });
    expect(monitored).toMatchObject({ state: "running", resource_usage: null });
    expect(monitored.resource_usage_note).toMatch(/not measurable/);
    const killed = await call(processKill, { id: bg.id, signal: "SIGINT", force_after: 1 });
    expect(killed).toMatchObject({ state: "killed", signal: "SIGINT" });
    const list = await call(processList, { state: "timed_out" });
    expect(list.processes.map((p: { id: string }) => p.id)).toEqual([timedOut.id]);
    const logs = await call(processLogs, { id: bg.id });
    expect(logs).toMatchObject({ lines: ["ready"], total_lines: 1, state: "killed" });
  });
});

describe("shell action API", () => {
  it("runs once without an action, capping the output by bytes", async () => {
    const result = await call(shellTool, { command: "printf 'abcdefghij%.0s' $(seq 50)", max_output_bytes: 100 });
    expect(result).toMatchObject({ status: "completed", exit_code: 0, truncated: true });
    expect(Buffer.byteLength(result.output)).toBe(100);
  });

  it("spawns with a watcher and polls by since_seq/next_seq until done", async () => {
    const spawned = await call(shellTool, {
      action: "spawn",
      command: "echo building; echo 'error: bad thing'; echo done",
      watch: [{ regex: "^error:", event: "error" }],
    });
    expect(spawned).toMatchObject({ next_seq: 0 });
    let seq = 0;
    let text = "";
    let hits: { event: string }[] = [];
    for (;;) {
      const poll = await call(shellTool, { action: "poll", id: spawned.id, since_seq: seq, limit: seq === 0 ? 100_000 : 2 });
      expect(poll.next_seq).toBeGreaterThanOrEqual(seq);
      text += poll.items.map((i: { text: string }) => i.text).join("");
      hits = hits.concat(poll.watch_hits.filter((h: { seq: number }) => h.seq >= seq));
      seq = poll.next_seq;
      if (poll.done) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(text).toBe("building\nerror: bad thing\ndone\n");
    expect(hits.map((h) => h.event)).toEqual(["error"]);
  });

  it("drives an interactive prompt with send_keys in a PTY", async () => {
    const spawned = await call(shellTool, { action: "spawn", command: "printf 'name? '; read name; echo \"hello $name\"", pty: true });
    await until(async () => (await call(shellTool, { action: "poll", id: spawned.id })).snippet.includes("name?"), "the prompt");
    await call(shellTool, { action: "send_keys", id: spawned.id, keys: ["world", "Enter"] });
    await rig!.manager.wait(spawned.id);
    const log = await call(shellTool, { action: "log", id: spawned.id });
    expect(log.lines.join("\n")).toMatch(/hello world/);
    expect(log.status).toBe("completed");
  });

  it("says that streams are merged when asked to filter, and names bad keys", async () => {
    const spawned = await call(shellTool, { action: "spawn", command: hangLine });
    const poll = await call(shellTool, { action: "poll", id: spawned.id, stream: "stderr" });
    expect(poll.stream_note).toMatch(/merged/);
    const bad = await runTool(shellTool, ctx(), { action: "send_keys", id: spawned.id, keys: ["C-Entr"] });
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(!bad.ok && bad.error.message).toMatch(/Unknown key name/);
  });
});
