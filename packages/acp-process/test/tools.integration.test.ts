import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, type ProcessManager } from "../src/index.js";
import {
  allTools,
  execTool,
  processTool,
  processTools,
  runTool,
  shellTool,
  type ToolContext,
  type ToolDefinition,
} from "../src/tools.js";
import { acpClient, type AcpClientRig } from "./acp-support.js";
import { localRig, nodeScript, until } from "./support.js";

/** A manager over one provider, with the manual clock when asked. */
interface Rig {
  manager: ProcessManager;
  clock: ManualClock | undefined;
  dispose(): Promise<void>;
}
type Provide = (options?: { manualClock?: boolean }) => Rig;

// One fixture client (our host behind the SDK, over real stdio) for the file; a manager per test.
let client: AcpClientRig | undefined;
afterAll(async () => {
  await client?.dispose();
});

const PROVIDERS: [string, () => Promise<Provide>][] = [
  [
    "local",
    async () =>
      (options = {}) =>
        localRig(options),
  ],
  [
    "acp (stdio client)",
    async () => {
      client ??= await acpClient();
      return (options = {}) => {
        const clock = options.manualClock ? new ManualClock(1_000_000) : undefined;
        const { manager } = client!.managerFor(clock ? { clock } : {});
        return { manager, clock, dispose: () => manager.dispose() };
      };
    },
  ],
];

describe.each(PROVIDERS)("tool surfaces over the %s provider", (name, setup) => {
  let provide!: Provide;
  let rig: Rig | undefined;
  beforeAll(async () => {
    provide = await setup();
  });
  afterEach(async () => {
    await rig?.dispose();
    rig = undefined;
  });

  function ctx(): ToolContext {
    rig ??= provide();
    return { manager: rig.manager, sessionId: "s" };
  }

  async function call(tool: ToolDefinition, input: unknown): Promise<Record<string, any>> {
    const outcome = await runTool(tool, ctx(), input);
    if (!outcome.ok) {
      throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
    }
    return outcome.result as Record<string, any>;
  }

  const [processRun, processMonitor, processKill, processList, processLogs] = processTools;
  const hang = nodeScript("process-ready-then-hang.mjs");
  const hangLine = `${hang.command} ${hang.args.join(" ")}`;

  describe("exec + process tools", () => {
    it("returns a short command's output directly", async () => {
      const result = await call(execTool, { command: "echo hello; echo oops >&2" });
      expect(result).toMatchObject({
        status: "completed",
        exitCode: 0,
        output: "hello\noops\n",
        truncated: false,
      });
    });

    it("returns stdout and stderr in the order the command wrote them", async () => {
      const result = await call(execTool, {
        command: "echo 1-out; echo 2-err >&2; echo 3-out; echo 4-err >&2; echo 5-out",
      });
      expect(result.output).toBe("1-out\n2-err\n3-out\n4-err\n5-out\n");
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
      const outcome = await runTool(
        execTool,
        {
          ...ctx(),
          labels: { toolCallId: "call-1" },
          onStart: (run) => void seen.push(run.terminalId),
        },
        { command: "true" },
      );
      expect(outcome.ok).toBe(true);
      const id = outcome.ok ? (outcome.result as { sessionId: string }).sessionId : "";
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(/.+/);
      expect(rig!.manager.get(id).labels).toEqual({ toolCallId: "call-1", tool: "exec" });
    });

    it("times out exec on the clock as a state, and clear forgets finished runs", async () => {
      rig = provide({ manualClock: true });
      const pending = call(execTool, { command: hangLine, timeout: 2, yieldMs: 120_000 });
      const running = await until(
        () => rig!.manager.list().find((r) => r.status === "running"),
        "the run",
      );
      await until(async () => (await rig!.manager.read(running.id)).items.length > 0, "ready");
      rig.clock!.advance(2000);
      expect(await pending).toMatchObject({
        status: "timed_out",
        output: "ready\n",
        error: expect.stringMatching(/^timed out after 2000 ms: /),
      });
      const cleared = await call(processTool, { action: "clear" });
      expect(cleared).toMatchObject({ cleared: 1 });
      expect((await call(processTool, { action: "list" })).processes).toEqual([]);
    });

    it("starts in the background at once", async () => {
      const started = await call(execTool, { command: hangLine, background: true });
      expect(started).toMatchObject({ status: "running" });
    });

    it("reads the log by line offset and limit, or the last lines", async () => {
      const done = await call(execTool, { command: "printf '1\\n2\\n3\\n4\\n5\\n'" });
      const some = await call(processTool, {
        action: "log",
        sessionId: done.sessionId,
        offset: 1,
        limit: 2,
      });
      expect(some).toMatchObject({ lines: ["2", "3"], offset: 1, totalLines: 5 });
      const last = await call(processTool, { action: "log", sessionId: done.sessionId, limit: 2 });
      expect(last).toMatchObject({ lines: ["4", "5"], offset: 3 });
    });

    it("rejects bad arguments with the field and what was expected", async () => {
      const outcome = await runTool(execTool, ctx(), { command: "" });
      expect(outcome).toMatchObject({ ok: false, error: { code: "invalid_params" } });
      expect(!outcome.ok && outcome.error.message).toMatch(/^Invalid exec arguments: command: /);
      const missing = await runTool(processTool, ctx(), { action: "poll" });
      expect(!missing.ok && missing.error.message).toMatch(
        /Invalid sessionId: expected the id returned by exec/,
      );
    });

    it("exports JSON Schemas for model tool definitions", () => {
      expect(execTool.jsonSchema).toMatchObject({
        type: "object",
        required: ["command"],
        properties: { command: { type: "string" }, yieldMs: { type: "integer" } },
      });
      expect(processTool.jsonSchema).toMatchObject({
        properties: {
          action: { enum: ["list", "poll", "log", "write", "kill", "clear", "remove", "wait"] },
        },
      });
      expect(processRun.functionName).toBe("process_run");
      expect(allTools.map((t) => t.name)).toEqual([
        "exec",
        "process",
        "process.run",
        "process.monitor",
        "process.kill",
        "process.list",
        "process.logs",
        "process.wait",
        "shell",
        "exec_command",
        "write_stdin",
        "read_output",
      ]);
      for (const tool of allTools) {
        expect(tool.jsonSchema).toMatchObject({ type: "object" });
      }
    });
  });

  describe("process.* tools", () => {
    it("runs to completion with state, exit code, output, line count and duration", async () => {
      const result = await call(processRun, { command: "echo hi; exit 2" });
      expect(result).toMatchObject({
        state: "completed",
        exit_code: 2,
        stdout_summary: "hi\n",
        stdout_line_count: 1,
        streams_merged: true,
      });
      const open = await call(processRun, { command: "printf 'a\\nb'" });
      expect(open).toMatchObject({ stdout_summary: "a\nb", stdout_line_count: 2 });
      expect(await call(processLogs, { id: open.process_id })).toMatchObject({
        stdout: "a\nb",
        stdout_size: 3,
      });
      expect(typeof result.duration_ms).toBe("number");
    });

    it("times out as a state, and monitors, kills, lists and reads logs", async () => {
      rig = provide({ manualClock: true });
      const pending = call(processRun, { ...hang, command: hang.command, timeout: 0.3 });
      const running = await until(
        () => rig!.manager.list().find((r) => r.status === "running"),
        "the run",
      );
      await until(
        async () => (await call(processMonitor, { id: running.id })).stdout_summary === "ready\n",
        "ready",
      );
      rig.clock!.advance(300);
      const timedOut = await pending;
      expect(timedOut).toMatchObject({
        state: "timed_out",
        stdout_summary: "ready\n",
        error: expect.stringMatching(/^timed out after 300 ms: /),
      });
      const bg = await call(processRun, {
        command: hang.command,
        args: hang.args,
        background: true,
      });
      expect(bg.state).toBe("running");
      await until(
        async () =>
          (await call(processMonitor, { id: bg.process_id })).stdout_summary === "ready\n",
        "ready",
      );
      const monitored = await call(processMonitor, { id: bg.process_id });
      if (name === "local") {
        // Measured from /proc for the command's process group (the node fixture: tens of MB resident).
        expect(monitored.resource_usage).toMatchObject({
          processes: 1,
          rss_bytes: expect.any(Number),
          cpu_user_ms: expect.any(Number),
          cpu_system_ms: expect.any(Number),
        });
        expect(monitored.resource_usage.rss_bytes).toBeGreaterThan(1_000_000);
        expect(
          monitored.resource_usage.cpu_user_ms + monitored.resource_usage.cpu_system_ms,
        ).toBeGreaterThan(0);
      } else {
        expect(monitored).toMatchObject({ state: "running", resource_usage: null });
        expect(monitored.resource_usage_note).toMatch(
          /not measurable: commands run in the client's terminal \(acp provider\)/,
        );
      }
      const killed = await call(processKill, {
        id: bg.process_id,
        signal: "SIGINT",
        force_after: 1,
      });
      expect(killed).toMatchObject({ state: "killed", signal: "SIGINT" });
      if (name === "local") {
        expect(killed.resource_usage).toMatchObject({
          processes: 1,
          rss_bytes: expect.any(Number),
        });
      } else {
        expect(killed).toMatchObject({
          resource_usage: null,
          resource_usage_note: expect.stringMatching(/not measurable/),
        });
      }
      const list = await call(processList, { state: "timed_out" });
      expect(list.processes.map((p: { process_id: string }) => p.process_id)).toEqual([
        timedOut.process_id,
      ]);
      const logs = await call(processLogs, { id: bg.process_id });
      expect(logs).toMatchObject({ stdout: "ready\n", stdout_size: 6, state: "killed" });
    });
  });

  describe("escalation", () => {
    it("process.kill forces a command that ignores the signal after force_after, and says so", async () => {
      const ignores = nodeScript("process-ignores-int.mjs");
      const bg = await call(processRun, {
        command: ignores.command,
        args: ignores.args,
        background: true,
      });
      await until(
        async () =>
          (await call(processMonitor, { id: bg.process_id })).stdout_summary === "ready\n",
        "ready",
      );
      const killed = await call(processKill, {
        id: bg.process_id,
        signal: "SIGINT",
        force_after: 0.3,
      });
      expect(killed).toMatchObject({ state: "killed", signal: "SIGKILL" });
      expect(killed.duration_ms).toBeGreaterThanOrEqual(300);
      expect((await call(processLogs, { id: bg.process_id })).stdout).toContain("ignored SIGINT");
      const notices = (await rig!.manager.read(bg.process_id)).items.filter(
        (i) => i.kind === "notice",
      );
      expect(notices.map((i) => i.text).join("\n")).toMatch(
        /SIGINT did not end the command within 300 ms/,
      );
    });
  });

  describe("shell action API", () => {
    it("runs once without an action, capping the output by bytes", async () => {
      const result = await call(shellTool, {
        command: "printf 'abcdefghij%.0s' $(seq 50)",
        max_output_bytes: 100,
      });
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
        const poll = await call(shellTool, {
          action: "poll",
          id: spawned.id,
          since_seq: seq,
          limit: seq === 0 ? 100_000 : 2,
        });
        expect(poll.next_seq).toBeGreaterThanOrEqual(seq);
        text += poll.items.map((i: { text: string }) => i.text).join("");
        hits = hits.concat(poll.watch_hits.filter((h: { seq: number }) => h.seq >= seq));
        seq = poll.next_seq;
        if (poll.done) {
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(text).toBe("building\nerror: bad thing\ndone\n");
      expect(hits.map((h) => h.event)).toEqual(["error"]);
    });

    it("kills a spawned run and reads its log", async () => {
      const spawned = await call(shellTool, { action: "spawn", command: hangLine });
      await until(
        async () =>
          (await call(shellTool, { action: "poll", id: spawned.id })).snippet.includes("ready"),
        "ready",
      );
      const killed = await call(shellTool, { action: "kill", id: spawned.id, signal: "SIGTERM" });
      expect(killed).toMatchObject({ status: "killed", signal: "SIGTERM", snippet: "ready\n" });
      expect(await call(shellTool, { action: "log", id: spawned.id, offset: 0 })).toMatchObject({
        lines: ["ready"],
        total_lines: 1,
      });
    });

    it("drives an interactive prompt with send_keys in a PTY", async () => {
      const spawned = await call(shellTool, {
        action: "spawn",
        command: "printf 'name? '; read name; echo \"hello $name\"",
        pty: true,
      });
      await until(
        async () =>
          (await call(shellTool, { action: "poll", id: spawned.id })).snippet.includes("name?"),
        "the prompt",
      );
      await call(shellTool, { action: "send_keys", id: spawned.id, keys: ["world", "Enter"] });
      await rig!.manager.wait(spawned.id);
      const log = await call(shellTool, { action: "log", id: spawned.id, offset: 0 });
      expect(log.lines.join("\n")).toMatch(/hello world/);
      expect(log.status).toBe("completed");
    });

    it("says that streams are merged when asked to filter, and names bad keys", async () => {
      const spawned = await call(shellTool, { action: "spawn", command: hangLine });
      const poll = await call(shellTool, { action: "poll", id: spawned.id, stream: "stderr" });
      expect(poll.stream_note).toMatch(/merged/);
      const bad = await runTool(shellTool, ctx(), {
        action: "send_keys",
        id: spawned.id,
        keys: ["C-Entr"],
      });
      expect(bad).toMatchObject({ ok: false, error: { code: "invalid_params" } });
      expect(!bad.ok && bad.error.message).toMatch(/Unknown key name/);
    });
  });
});

describe("watchers against a client without cursors (overlap mode)", () => {
  it("shell spawn with a watcher finds a line and the output is complete", async () => {
    const plain = await acpClient({ plain: true });
    try {
      const { manager } = plain.managerFor();
      const ctx = { manager, sessionId: "s" };
      const spawned = await runTool(shellTool, ctx, {
        action: "spawn",
        command: "echo building; echo 'error: bad thing'; echo done",
        watch: [{ regex: "^error:", event: "error" }],
      });
      const id = (spawned as { ok: true; result: { id: string } }).result.id;
      await manager.wait(id);
      const poll = (await runTool(shellTool, ctx, { action: "poll", id, since_seq: 0 })) as {
        ok: true;
        result: Record<string, any>;
      };
      expect(
        poll.result.items
          .filter((i: { kind: string }) => i.kind === "output")
          .map((i: { text: string }) => i.text)
          .join(""),
      ).toBe("building\nerror: bad thing\ndone\n");
      expect(poll.result.watch_hits.map((h: { event: string }) => h.event)).toEqual(["error"]);
    } finally {
      await plain.dispose();
    }
  });
});
