// The process.* capabilities, read literally against their specification
// (shared/specs/000_e000920b01cd137e.txt), over both providers: the local TerminalHost and a
// client's terminals over ACP (the fixture client, our host behind the SDK over real stdio).
import { chmodSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalHost } from "acp-terminal";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  LocalTerminalProvider,
  ManualClock,
  ProcessManager,
  type ProcessManagerOptions,
} from "../src/index.js";
import { processTools, runTool, type ToolContext, type ToolDefinition } from "../src/tools.js";
import { SqliteRunStore } from "../src/sqlite.js";
import { treeLimitMechanisms } from "../src/runs/run/cgroup-limits.js";
import { acpClient, type AcpClientRig } from "./acp-support.js";
import { nodeScript, until } from "./support.js";
import { processesWith } from "./tool-contract-support.js";

interface Rig {
  manager: ProcessManager;
  clock: ManualClock | undefined;
  dispose(): Promise<void>;
}
type Provide = (options?: {
  manualClock?: boolean;
  tuning?: ProcessManagerOptions["tuning"];
}) => Rig;

/** Refuses, like the fixture client, any command line containing this word. */
const DENY_MARKER = "acp-fixture-deny";

let client: AcpClientRig | undefined;
afterAll(async () => {
  await client?.dispose();
});

const PROVIDERS: [string, () => Promise<Provide>][] = [
  [
    "local",
    async () =>
      (options = {}) => {
        const host = new TerminalHost({
          killGraceMs: 500,
          authorize: ({ command, args }) =>
            ![command, ...args].some((word) => word.includes(DENY_MARKER)) || "the test refuses it",
        });
        const clock = options.manualClock ? new ManualClock(1_000_000) : undefined;
        const manager = new ProcessManager({
          provider: new LocalTerminalProvider(host),
          env: {},
          sweepIntervalMs: 0,
          ...(clock ? { clock } : {}),
          ...(options.tuning ? { tuning: options.tuning } : {}),
        });
        return {
          manager,
          clock,
          dispose: async () => (await manager.dispose(), await host.dispose()),
        };
      },
  ],
  [
    "acp",
    async () => {
      client ??= await acpClient();
      return (options = {}) => {
        const clock = options.manualClock ? new ManualClock(1_000_000) : undefined;
        const { manager } = client!.managerFor({
          ...(clock ? { clock } : {}),
          ...(options.tuning ? { tuning: options.tuning } : {}),
        });
        return { manager, clock, dispose: () => manager.dispose() };
      };
    },
  ],
];

const [processRun, processMonitor, processKill, processList, processLogs, processWait] =
  processTools;
/** In the command line of every long-lived process this file starts (the fixtures ignore it), so survivors can be counted. */
const MARKER = `contract-process-api-${process.pid}`;
const hang = nodeScript("process-ready-then-hang.mjs", MARKER);
const countsTerm = nodeScript("process-counts-term.mjs", MARKER);
const ticker = nodeScript("process-ticker.mjs", MARKER);

describe.each(PROVIDERS)("process.* over the %s provider, as specified", (name, setup) => {
  let provide!: Provide;
  let rig: Rig | undefined;
  beforeAll(async () => {
    provide = await setup();
  });
  afterEach(async () => {
    await rig?.dispose();
    rig = undefined;
    await until(
      () => processesWith(MARKER).length === 0,
      `no process left with ${MARKER} (found ${processesWith(MARKER).join(", ")})`,
    );
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

  async function refused(
    tool: ToolDefinition,
    input: unknown,
  ): Promise<{ code: string; message: string }> {
    const outcome = await runTool(tool, ctx(), input);
    if (outcome.ok) {
      throw new Error(
        `expected ${tool.name} to refuse ${JSON.stringify(input)}, got ${JSON.stringify(outcome.result)}`,
      );
    }
    return outcome.error;
  }

  async function startReady(script: { command: string; args: string[] }): Promise<string> {
    const started = await call(processRun, {
      command: script.command,
      args: script.args,
      background: true,
    });
    // Through the manager, so that each case depends only on the tool it checks.
    const id = (started.process_id ?? started.id) as string;
    await until(
      async () => (await rig!.manager.read(id)).items.some((item) => item.text.includes("ready")),
      "ready",
    );
    return id;
  }

  it("a background run has no foreground timeout and takes a timeout past the 3600 s cap, while a foreground one is held to it", async () => {
    rig = provide({ manualClock: true });
    const open = await call(processRun, {
      command: hang.command,
      args: hang.args,
      background: true,
    });
    const bounded = await call(processRun, {
      command: hang.command,
      args: hang.args,
      background: true,
      timeout: 7200,
    });
    rig.clock!.advance(3_600_001);
    expect((await call(processMonitor, { process_id: open.process_id })).state).toBe("running");
    expect((await call(processMonitor, { process_id: bounded.process_id })).state).toBe("running");
    rig.clock!.advance(3_600_000);
    await until(
      async () =>
        (await call(processMonitor, { process_id: bounded.process_id })).state === "timed_out",
      "the 7200 s timeout",
    );
    expect((await call(processMonitor, { process_id: open.process_id })).state).toBe("running");
    const foreground = await refused(processRun, { command: "true", timeout: 3601 });
    expect(foreground).toMatchObject({
      code: "invalid_params",
      message: expect.stringMatching(
        /at most 3600 seconds for a foreground run; for longer work pass background: true/,
      ),
    });
  });

  it("force_after 0 sends SIGTERM once and never escalates: a command that ignores it keeps running", async () => {
    rig = provide({ tuning: { killWaitMs: 300 } });
    const id = await startReady(countsTerm);
    const answer = await call(processKill, { process_id: id, force_after: 0 });
    expect(answer).toMatchObject({
      process_id: id,
      killed: false,
      signal_sent: "SIGTERM",
      signals_sent: ["SIGTERM"],
      state: "running",
    });
    expect(answer.note).toMatch(/still running/);
    expect((await call(processLogs, { process_id: id })).stdout).toBe("ready\nSIGTERM 1\n");
    expect((await call(processMonitor, { process_id: id })).state).toBe("running");
    const forced = await call(processKill, { process_id: id, signal: "SIGKILL" });
    expect(forced).toMatchObject({
      killed: true,
      signal_sent: "SIGKILL",
      state: "killed",
      signal: "SIGKILL",
    });
  });

  it("escalation delivers SIGTERM exactly once and then SIGKILL after force_after", async () => {
    const id = await startReady(countsTerm);
    const answer = await call(processKill, { process_id: id, force_after: 0.3 });
    expect(answer).toMatchObject({
      killed: true,
      state: "killed",
      signal: "SIGKILL",
      signal_sent: "SIGKILL",
      signals_sent: ["SIGTERM", "SIGKILL"],
    });
    expect((await call(processLogs, { process_id: id })).stdout).toBe("ready\nSIGTERM 1\n");
  });

  it("force_after defaults to 10 seconds: SIGTERM is not escalated 3 seconds later", async () => {
    const id = await startReady(countsTerm);
    const pending = call(processKill, { process_id: id });
    await until(
      async () => (await call(processLogs, { process_id: id })).stdout.includes("SIGTERM 1"),
      "the SIGTERM",
    );
    const early = await Promise.race([
      pending.then(() => "answered"),
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 3000)),
    ]);
    expect(early).toBe("still waiting");
    expect((await call(processMonitor, { process_id: id })).state).toBe("running");
    await call(processKill, { process_id: id, signal: "SIGKILL" });
    expect(await pending).toMatchObject({
      killed: true,
      state: "killed",
      signals_sent: ["SIGTERM"],
    });
  });

  it("kill answers killed and signal_sent, and killing a run that has already exited is ProcessAlreadyExited", async () => {
    const id = await startReady(hang);
    expect(await call(processKill, { process_id: id })).toMatchObject({
      process_id: id,
      killed: true,
      signal_sent: "SIGTERM",
      state: "killed",
      signal: "SIGTERM",
    });
    expect(await refused(processKill, { process_id: id })).toMatchObject({
      code: "ProcessAlreadyExited",
      message: expect.stringMatching(/has already ended \(state killed/),
    });
    const done = await call(processRun, { command: "true" });
    expect(await refused(processKill, { process_id: done.process_id })).toMatchObject({
      code: "ProcessAlreadyExited",
      message: expect.stringMatching(/state completed, exit_code 0/),
    });
  });

  it("logs reads bytes by offset and limit, with stdout_size, stderr_size and truncated, never splitting a character", async () => {
    const done = await call(processRun, { command: "printf", args: ["abcdefghij"] });
    const id = done.process_id;
    expect(await call(processLogs, { process_id: id, offset: 2, limit: 3 })).toMatchObject({
      process_id: id,
      state: "completed",
      stdout: "cde",
      stderr: "",
      stdout_size: 10,
      stderr_size: 0,
      truncated: true,
      next_offset: 5,
    });
    expect(await call(processLogs, { process_id: id, offset: 5 })).toMatchObject({
      stdout: "fghij",
      truncated: false,
      next_offset: 10,
    });
    expect(await call(processLogs, { process_id: id })).toMatchObject({
      stdout: "abcdefghij",
      truncated: false,
    });
    const accented = await call(processRun, { command: "printf", args: ["aéb"] });
    // "é" is two bytes: a limit of 2 from 0 returns "a" alone, and the next read starts on the "é".
    const first = await call(processLogs, { process_id: accented.process_id, offset: 0, limit: 2 });
    expect(first).toMatchObject({ stdout: "a", next_offset: 1, stdout_size: 4, truncated: true });
    expect(
      await call(processLogs, { process_id: accented.process_id, offset: first.next_offset }),
    ).toMatchObject({ stdout: "éb", truncated: false });
  });

  it("logs reads any byte range of a run bigger than the retained window by absolute offset (the rest was spilled to disk), with stdout_size the total", async () => {
    // 300000 bytes, more than the 200000 characters a run keeps in memory by default.
    const big = await call(processRun, {
      command: "head -c 150000 /dev/zero | tr '\\0' a; head -c 150000 /dev/zero | tr '\\0' b",
    });
    expect(big).toMatchObject({ exit_code: 0, stdout_size: 300_000 });
    const whole = await call(processLogs, {
      process_id: big.process_id,
      offset: 0,
      max_output_tokens: 100_000,
    });
    expect(whole).toMatchObject({
      offset: 0,
      stdout_size: 300_000,
      next_offset: 300_000,
      truncated: false,
    });
    expect(whole.stdout).toBe("a".repeat(150_000) + "b".repeat(150_000));
    const middle = await call(processLogs, {
      process_id: big.process_id,
      offset: 149_990,
      limit: 20,
    });
    expect(middle).toMatchObject({
      stdout: "a".repeat(10) + "b".repeat(10),
      offset: 149_990,
      next_offset: 150_010,
      truncated: true,
    });
    const end = await call(processLogs, { process_id: big.process_id, offset: 300_000 });
    expect(end).toMatchObject({
      stdout: "",
      offset: 300_000,
      next_offset: 300_000,
      truncated: false,
    });
    expect(
      await refused(processLogs, { process_id: big.process_id, offset: 300_001 }),
    ).toMatchObject({
      code: "invalid_params",
      message: expect.stringMatching(/offset from 0 to 300000/),
    });
  });

  it("logs refuses stream 'stderr' because stderr is merged into stdout, and refuses unknown stream values", async () => {
    const done = await call(processRun, { command: "echo out; echo err >&2" });
    expect(
      (await call(processLogs, { process_id: done.process_id, stream: "stdout" })).stdout,
    ).toBe("out\nerr\n");
    expect((await call(processLogs, { process_id: done.process_id, stream: "both" })).stdout).toBe(
      "out\nerr\n",
    );
    expect(
      await refused(processLogs, { process_id: done.process_id, stream: "stderr" }),
    ).toMatchObject({
      code: "unsupported",
      message: expect.stringMatching(
        /stderr and stdout share one descriptor.*read stream 'stdout' or 'both'/,
      ),
    });
    expect(
      await refused(processLogs, { process_id: done.process_id, stream: "bogus" }),
    ).toMatchObject({ code: "invalid_params", message: expect.stringMatching(/stream/) });
  });

  it("list has the total of matching runs past its limit, started_at and resource_usage on entries, and state_filter selects", async () => {
    for (let i = 0; i < 3; i++) {
      await call(processRun, { command: "true" });
    }
    const bg = await call(processRun, { command: hang.command, args: hang.args, background: true });
    const completed = await call(processList, { state_filter: "completed", limit: 2 });
    expect(completed.total).toBe(3);
    expect(completed.processes).toHaveLength(2);
    for (const entry of completed.processes) {
      expect(Object.keys(entry).sort()).toEqual([
        "command",
        "duration_ms",
        "exit_code",
        "process_id",
        "resource_usage",
        "started_at",
        "state",
      ]);
      expect(entry).toMatchObject({ state: "completed", exit_code: 0 });
      expect(new Date(entry.started_at).toISOString()).toBe(entry.started_at);
    }
    expect(await call(processList, { state_filter: "running" })).toMatchObject({
      total: 1,
      processes: [{ process_id: bg.process_id, state: "running" }],
    });
    expect((await call(processList, {})).total).toBe(4);
    expect((await call(processList, { state_filter: "all" })).total).toBe(4);
    expect(await refused(processList, { state_filter: "finished" })).toMatchObject({
      code: "invalid_params",
      message: expect.stringMatching(/state/),
    });
  });

  it("monitor gives started_at as an ISO 8601 time, with process_id, command, state and duration", async () => {
    const before = Date.now();
    const id = await startReady(hang);
    const monitored = await call(processMonitor, { process_id: id });
    expect(monitored).toMatchObject({
      process_id: id,
      state: "running",
      exit_code: null,
      command: `${hang.command} ${hang.args.join(" ")}`,
    });
    expect(Date.parse(monitored.started_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(monitored.started_at).toISOString()).toBe(monitored.started_at);
    expect(monitored.duration_ms).toEqual(expect.any(Number));
  });

  it("a command that does not exist is CommandNotFound, and shows as failed_to_start rather than completed with exit_code null", async () => {
    const missing = await refused(processRun, { command: "acp-no-such-command-9f3", args: [] });
    expect(missing).toMatchObject({
      code: "CommandNotFound",
      message: expect.stringMatching(/Command not found: acp-no-such-command-9f3.*process_id run_/),
    });
    const id = /process_id (run_\w+)/.exec(missing.message)![1]!;
    expect(await call(processMonitor, { process_id: id })).toMatchObject({
      state: "failed_to_start",
      error_code: "CommandNotFound",
      exit_code: null,
      started_at: null,
    });
    expect(await call(processList, { state_filter: "failed_to_start" })).toMatchObject({
      total: 1,
      processes: [{ process_id: id }],
    });
    expect((await call(processList, { state_filter: "completed" })).total).toBe(0);
    expect(
      await refused(processRun, { command: "acp-no-such-command-9f3", background: true }),
    ).toMatchObject({ code: "CommandNotFound" });
  });

  it("a command line whose first word the shell cannot find is CommandNotFound, while a missing tool later in the line is that line's exit code", async () => {
    expect(
      await refused(processRun, { command: "acp-no-such-command-9f3 --version" }),
    ).toMatchObject({
      code: "CommandNotFound",
      message: expect.stringMatching(/acp-no-such-command-9f3: (command )?not found.* exited 127/),
    });
    const later = await call(processRun, {
      command: "echo first; acp-no-such-command-9f3 --version",
    });
    expect(later).toMatchObject({
      state: "completed",
      exit_code: 127,
      stdout_summary: expect.stringMatching(
        /^first\n.*acp-no-such-command-9f3: (command )?not found\n$/,
      ),
    });
  });

  it("a command that cannot be started (not executable, missing working directory, refused by the client) is SpawnFailed", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "procapi-")));
    const script = join(dir, "not-executable.sh");
    writeFileSync(script, "#!/bin/sh\necho hi\n");
    chmodSync(script, 0o644);
    expect(await refused(processRun, { command: script, args: [] })).toMatchObject({
      code: "SpawnFailed",
      message: expect.stringMatching(/Permission denied/),
    });
    expect(
      await refused(processRun, { command: "true", working_directory: join(dir, "missing") }),
    ).toMatchObject({
      code: "SpawnFailed",
      message: expect.stringMatching(/Working directory does not exist/),
    });
    expect(await refused(processRun, { command: "echo", args: [DENY_MARKER] })).toMatchObject({
      code: "SpawnFailed",
      message: expect.stringMatching(/Denied/),
    });
    expect((await call(processList, { state_filter: "failed_to_start" })).total).toBe(3);
  });

  it("stdin is written to the command and then closed; without it the command reads end-of-file", async () => {
    expect(await call(processRun, { command: "cat", stdin: "line one\nline two\n" })).toMatchObject(
      { state: "completed", exit_code: 0, stdout_summary: "line one\nline two\n" },
    );
    expect(await call(processRun, { command: "cat" })).toMatchObject({
      exit_code: 0,
      stdout_summary: "",
    });
    expect(
      await refused(processRun, { command: "cat", stdin: "x", background: true }),
    ).toMatchObject({ code: "invalid_params", message: expect.stringMatching(/stdin/) });
  });

  it("stdin that a command never reads stops the command with an error instead of leaving it running unowned", async () => {
    rig = provide({ tuning: { callWaitMs: 500 } });
    const outcome = await refused(processRun, {
      command: hang.command,
      args: hang.args,
      stdin: "x".repeat(1024 * 1024),
    });
    expect(outcome).toMatchObject({
      code: "provider_error",
      message: expect.stringMatching(
        /^stdin could not be written \(.*\); the command was stopped \(process_id run_\w+\)$/,
      ),
    });
    expect(await call(processList, { state_filter: "running" })).toMatchObject({ total: 0 });
    expect((await call(processList, { state_filter: "killed" })).total).toBe(1);
  });

  it("working_directory, environment, process_id and stdout_lines work under the specification's names", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "procapi-")));
    const result = await call(processRun, {
      command: 'pwd; echo "$ACP_CONTRACT_VAR"; printf "1\\n2\\n3\\n"',
      working_directory: dir,
      environment: { ACP_CONTRACT_VAR: "from-environment" },
    });
    expect(result.stdout_summary).toBe(`${dir}\nfrom-environment\n1\n2\n3\n`);
    const short = await call(processRun, { command: 'printf "1\\n2\\n3\\n"', stdout_lines: 2 });
    expect(short).toMatchObject({ stdout_summary: "2\n3\n", stdout_summary_truncated: true });
    expect(await call(processMonitor, { process_id: short.process_id })).toMatchObject({
      process_id: short.process_id,
      state: "completed",
    });
  });

  it("refuses an unknown parameter by name with the nearest accepted one, and says additionalProperties: false", async () => {
    expect(await refused(processRun, { command: "true", workdir: "/" })).toMatchObject({
      code: "invalid_params",
      message: expect.stringMatching(/`workdir` \(did you mean `cwd`\?\)/),
    });
    expect(await refused(processKill, { process_id: "x", force: 1 })).toMatchObject({
      code: "invalid_params",
      message: expect.stringMatching(/unknown parameter `force`/),
    });
    for (const tool of processTools) {
      expect(tool.jsonSchema).toMatchObject({ type: "object", additionalProperties: false });
    }
  });

  it("wait blocks until the exit, a pattern match or (until output) new output, answers like monitor and says which woke it", async () => {
    const id = await startReady(hang);
    // The output written since process.run answered is handed out once, by the first wait.
    const first = await call(processWait, { process_id: id, timeout: 0.2 });
    expect(first).toMatchObject({ state: "running", woke: "timeout", stdout: "ready\n" });
    const quiet = await call(processWait, { process_id: id, timeout: 0.2 });
    expect(quiet).toMatchObject({ process_id: id, state: "running", woke: "timeout", stdout: "" });
    expect(quiet.started_at).toEqual(expect.any(String));
    const waiting = call(processWait, { process_id: id, timeout: 30 });
    await call(processKill, { process_id: id });
    expect(await waiting).toMatchObject({ woke: "exit", state: "killed" });
    const tick = await call(processRun, {
      command: ticker.command,
      args: ticker.args,
      background: true,
    });
    const output = await call(processWait, {
      process_id: tick.process_id,
      since_size: 0,
      until: "output",
      timeout: 10,
    });
    expect(output).toMatchObject({ woke: "output", state: "running" });
    expect(output.stdout).toMatch(/^pid \d+\n/);
    const matched = await call(processWait, {
      process_id: tick.process_id,
      pattern: "tick \\d*7\\b",
      timeout: 10,
    });
    expect(matched).toMatchObject({ woke: "match", match: expect.stringMatching(/^tick \d*7$/) });
    await call(processKill, { process_id: tick.process_id, signal: "SIGKILL" });
    expect(await call(processWait, { process_id: tick.process_id })).toMatchObject({
      woke: "exit",
      state: "killed",
    });
  });

  if (name === "local") {
    it("memory_limit and cpu_limit set kernel limits (RLIMIT_AS, RLIMIT_CPU = cpu_limit × timeout) on a local command", async () => {
      const result = await call(processRun, {
        command: "sh",
        args: ["-c", "ulimit -v; ulimit -S -t"],
        memory_limit: 104_857_600,
        cpu_limit: 0.5,
        timeout: 20,
      });
      expect(result).toMatchObject({
        state: "completed",
        exit_code: 0,
        stdout_summary: "102400\n10\n",
        resource_limits: {
          cpu_seconds: 10,
          cpu_cores: 0.5,
          memory_bytes: 104_857_600,
          whole_tree: treeLimitMechanisms(),
        },
      });
      expect(
        await refused(processRun, { command: "true", cpu_limit: 0.5, background: true }),
      ).toMatchObject({
        code: "invalid_params",
        message: expect.stringMatching(/needs a time window/),
      });
    });

    it("a command past its cpu_limit or memory_limit is ResourceLimitExceeded (CPU: where no cgroup throttles it first)", async () => {
      if (treeLimitMechanisms().cpu === null) {
        const cpu = await refused(processRun, {
          command: "sh",
          args: ["-c", "while :; do :; done", MARKER],
          cpu_limit: 0.1,
          timeout: 10,
        });
        expect(cpu).toMatchObject({
          code: "ResourceLimitExceeded",
          message: expect.stringMatching(/CPU allowance of 1 CPU seconds .*SIGXCPU/),
        });
      }
      const memory = await refused(processRun, {
        command: 'x=$(head -c 200000000 /dev/zero | tr "\\0" a); echo ${#x}',
        memory_limit: 64 * 1024 * 1024,
      });
      expect(memory).toMatchObject({
        code: "ResourceLimitExceeded",
        message: expect.stringMatching(/memory_limit of 67108864 bytes/),
      });
    });

    it("memory_limit binds the whole process tree where a cgroup can be made: of 6 children holding 40 MB each under 160 MB, at most 3 hold", async () => {
      expect(
        treeLimitMechanisms().memory,
        "no cgroup can be made here (run as root on cgroup v1, or with a delegated cgroup v2 subtree): the tree limit cannot be tested",
      ).not.toBeNull();
      const result = await call(processRun, {
        command:
          "for i in 1 2 3 4 5 6; do (x=$(head -c 40000000 /dev/zero | tr '\\0' a); echo held; sleep 3) & done; wait; echo done",
        memory_limit: 160 * 1024 * 1024,
        timeout: 60,
      });
      const held = (result["stdout_summary"] as string).split("\n").filter((l) => l === "held");
      expect(held.length, String(result["stdout_summary"])).toBeLessThanOrEqual(3);
    });

    it("cpu_limit binds the whole process tree where a cgroup can be made: 4 busy children for 2 s under cpu_limit 0.2 use at most 0.2 of a core", async () => {
      expect(
        treeLimitMechanisms().cpu,
        "no cgroup can be made here (run as root on cgroup v1, or with a delegated cgroup v2 subtree): the tree limit cannot be tested",
      ).not.toBeNull();
      const result = await call(processRun, {
        command:
          "for i in 1 2 3 4; do (while :; do :; done) & done; sleep 2; kill $(jobs -p); wait; times",
        cpu_limit: 0.2,
        timeout: 30,
      });
      // `times`: the shell's own user/system time, then its children's, as 0m1.234s pairs.
      const children = (result["stdout_summary"] as string).trim().split("\n").at(-1)!;
      const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
        (sum, [, m, s]) => sum + Number(m) * 60 + Number(s),
        0,
      );
      expect(seconds, children).toBeLessThan(0.2 * 2 * 2);
    });

    it("after a restart over the same SQLite file, monitor still says why a run never started and gives the last resource sample", async () => {
      const path = join(mkdtempSync(join(tmpdir(), "procapi-")), "runs.db");
      const host = new TerminalHost({ killGraceMs: 500 });
      const first = new ProcessManager({
        provider: new LocalTerminalProvider(host),
        store: new SqliteRunStore(path),
        env: {},
        sweepIntervalMs: 0,
      });
      const firstCtx = { manager: first, sessionId: "s" };
      const missing = await runTool(processRun, firstCtx, {
        command: "acp-no-such-command-9f3",
        args: [],
      });
      const missingId = /process_id (run_\w+)/.exec(missing.ok ? "" : missing.error.message)![1]!;
      const started = await runTool(processRun, firstCtx, {
        command: hang.command,
        args: hang.args,
        background: true,
      });
      const bgId = String(
        (started.ok ? (started.result as Record<string, unknown>) : {})["process_id"],
      );
      await until(
        async () => (await first.read(bgId)).items.some((item) => item.text.includes("ready")),
        "ready",
      );
      const killed = await runTool(processKill, firstCtx, { process_id: bgId });
      const sample = killed.ok
        ? (killed.result as Record<string, unknown>)["resource_usage"]
        : undefined;
      expect(sample).toMatchObject({ memory_peak_bytes: expect.any(Number) });
      await first.dispose();
      first.store.close();
      await host.dispose();

      const secondHost = new TerminalHost();
      const reopened = new ProcessManager({
        provider: new LocalTerminalProvider(secondHost),
        store: new SqliteRunStore(path),
        env: {},
        sweepIntervalMs: 0,
      });
      try {
        const again = { manager: reopened, sessionId: "s" };
        expect(await runTool(processMonitor, again, { process_id: missingId })).toMatchObject({
          ok: true,
          result: { state: "failed_to_start", error_code: "CommandNotFound" },
        });
        expect(await runTool(processMonitor, again, { process_id: bgId })).toMatchObject({
          ok: true,
          result: { state: "killed", resource_usage: sample },
        });
      } finally {
        await reopened.dispose();
        reopened.store.close();
        await secondHost.dispose();
      }
    });

    it("resource_usage of a finished run is the last sample taken while it ran, in the specification's fields", async () => {
      const id = await startReady(hang);
      const killed = await call(processKill, { process_id: id });
      expect(killed.resource_usage).toMatchObject({
        cpu_ms: expect.any(Number),
        memory_peak_bytes: expect.any(Number),
        io_read_bytes: expect.any(Number),
        io_write_bytes: expect.any(Number),
      });
      expect(killed.resource_usage.memory_peak_bytes).toBeGreaterThan(1_000_000);
      expect((await call(processMonitor, { process_id: id })).resource_usage).toEqual(
        killed.resource_usage,
      );
      expect(
        (await call(processList, { state_filter: "killed" })).processes[0].resource_usage,
      ).toEqual(killed.resource_usage);
    });
  } else {
    it("cpu_limit and memory_limit are refused over ACP, saying the client cannot apply them", async () => {
      expect(
        await refused(processRun, { command: "true", memory_limit: 104_857_600 }),
      ).toMatchObject({
        code: "unsupported",
        message: expect.stringMatching(/Resource limits .*ACP has no way/),
      });
      expect(await refused(processRun, { command: "true", cpu_limit: 0.5 })).toMatchObject({
        code: "unsupported",
      });
    });

    it("resource_usage over ACP is null with a note saying why, before and after the run ends", async () => {
      const id = await startReady(hang);
      expect(await call(processMonitor, { process_id: id })).toMatchObject({
        resource_usage: null,
        resource_usage_note: expect.stringMatching(/not measurable: .*acp provider/),
      });
      expect(await call(processKill, { process_id: id })).toMatchObject({
        resource_usage: null,
        resource_usage_note: expect.stringMatching(/not measurable/),
      });
    });
  }
});

describe("process.* over an ACP client without the acp-terminal extension (no stdin writes, no signals)", () => {
  let plain: AcpClientRig;
  let manager: ProcessManager;
  beforeAll(async () => {
    plain = await acpClient({ plain: true });
  });
  afterAll(async () => {
    await plain.dispose();
  });
  afterEach(async () => {
    await manager?.dispose();
  });

  it("refuses stdin before starting anything, instead of running the command with its stdin closed", async () => {
    manager = plain.managerFor().manager;
    const outcome = await runTool(
      processRun,
      { manager, sessionId: "s" },
      { command: "cat", stdin: "input" },
    );
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: "unsupported",
        message: expect.stringMatching(
          /stdin cannot be given with the acp terminal provider.*nothing was started/,
        ),
      },
    });
    expect(manager.list()).toEqual([]);
  });

  it("kill says the client's own terminal/kill was used when the client cannot deliver a chosen signal", async () => {
    manager = plain.managerFor().manager;
    const started = await runTool(
      processRun,
      { manager, sessionId: "s" },
      { command: hang.command, args: hang.args, background: true },
    );
    const id = started.ok ? String((started.result as Record<string, unknown>)["process_id"]) : "";
    await until(
      async () => (await manager.read(id)).items.some((item) => item.text.includes("ready")),
      "ready",
    );
    const killed = await runTool(
      processKill,
      { manager, sessionId: "s" },
      { process_id: id, signal: "SIGINT" },
    );
    expect(killed).toMatchObject({
      ok: true,
      result: {
        killed: true,
        state: "killed",
        signal_sent: "terminal/kill",
        signals_sent: ["terminal/kill"],
      },
    });
  });
});
