// A run's output holds only the command's bytes: acp-process's own words (a read that failed, a
// loss, a fallback) are notices, in a field of their own beside the output on every tool surface.
import { afterEach, describe, expect, it } from "vitest";
import { LocalTerminalProvider, ProcessManager, type TerminalProvider } from "../src/index.js";
import {
  execTool,
  processTool,
  runTool,
  shellTool,
  unifiedExecTools,
  type ToolDefinition,
} from "../src/tools.js";
import { until, useLocalRigs } from "./support.js";

const localRig = useLocalRigs();
const managers: ProcessManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
});

/**
 * The local provider read by polling, as over ACP (no pushed output), with `answer` deciding how
 * each `terminal/output` is answered.
 */
function polledProvider(
  answer: (
    read: () => ReturnType<TerminalProvider["output"]>,
  ) => ReturnType<TerminalProvider["output"]>,
): { provider: TerminalProvider; exited: () => boolean } {
  const rig = localRig();
  let exited = false;
  rig.host.on("exit", () => (exited = true));
  const local = new LocalTerminalProvider(rig.host);
  const provider = Object.assign(Object.create(local) as LocalTerminalProvider, {
    stream: undefined,
    output: (...args: Parameters<TerminalProvider["output"]>) =>
      answer(() => local.output(...args)),
  });
  return { provider, exited: () => exited };
}

function managerOf(provider: TerminalProvider, tuning = {}): ProcessManager {
  const manager = new ProcessManager({ provider, env: {}, sweepIntervalMs: 0, tuning });
  managers.push(manager);
  return manager;
}

type Answer = Record<string, unknown> & { output?: string; status?: string; notices?: string[] };

async function call(
  manager: ProcessManager,
  tool: ToolDefinition,
  input: unknown,
): Promise<Answer> {
  const outcome = await runTool(tool, { manager, sessionId: "s" }, input);
  if (!outcome.ok) {
    throw new Error(`${tool.name}: ${outcome.error.message}`);
  }
  return outcome.result as Answer;
}

/** `process wait` until the run completes: all the output and notices its answers gave. */
async function waitToTheEnd(
  manager: ProcessManager,
  id: unknown,
): Promise<{ output: string; notices: string[] }> {
  let output = "";
  const notices: string[] = [];
  for (let answer: Answer | undefined; answer?.status !== "completed";) {
    answer = await call(manager, processTool, { action: "wait", sessionId: id, waitMs: 10_000 });
    output += answer.output ?? "";
    notices.push(...(answer.notices ?? []));
  }
  return { output, notices };
}

describe("a slow client", () => {
  it("an output answer held past the drain's deadline while the run is polled: the output is exactly the command's bytes, and no notice is made", async () => {
    // Every answer comes on the client's next turn; the first read after the exit, 300 ms late
    // (past exitDrainMs). A poll queued behind it used to reach the released terminal, fail, and
    // leave "[acp-process] reading the output failed (…); retrying" in the output.
    let holding = false;
    const { provider, exited } = polledProvider(async (read) => {
      if (exited() && !holding) {
        holding = true;
        await new Promise<void>((release) => setTimeout(release, 300).unref());
      }
      await new Promise<void>((turn) => setImmediate(turn));
      return read();
    });
    const manager = managerOf(provider, { exitDrainMs: 50 });
    const started = await call(manager, execTool, {
      command: "read answer; printf 'answer was %s\\n' \"$answer\"",
      yieldMs: 10,
    });
    expect(started.status).toBe("running");
    const id = started["sessionId"];
    await call(manager, processTool, { action: "write", sessionId: id, data: "yes\n" });
    await until(() => holding, "the held read");
    const { output, notices } = await waitToTheEnd(manager, id);
    expect(output).toBe("answer was yes\n");
    expect(notices).toEqual([]);
    expect(manager.get(id as string).notices).toBeUndefined();
  });
});

describe("a read that fails once", () => {
  const failingOnce = () => {
    let failed = false;
    return polledProvider(async (read) => {
      if (!failed) {
        failed = true;
        throw new Error("connection reset");
      }
      return read();
    });
  };
  const NOTICE = "[acp-process] reading the output failed (connection reset); retrying";

  it("exec then process wait: the output is exactly the command's bytes, the failure is in notices beside it", async () => {
    const manager = managerOf(failingOnce().provider, { pollMinMs: 1, pollMaxMs: 2 });
    const started = await call(manager, execTool, {
      command: "read line; printf 'got %s\\n' \"$line\"",
      yieldMs: 10,
    });
    const id = started["sessionId"];
    await call(manager, processTool, { action: "write", sessionId: id, data: "it\n" });
    const { output, notices } = await waitToTheEnd(manager, id);
    expect(output).toBe("got it\n");
    // Said once: in the answer of the exec that started it, or of the wait that followed.
    expect([...(started.notices ?? []), ...notices]).toEqual([NOTICE]);
  });

  it("exec, shell and exec_command answers carry it in notices, their output the command's bytes alone", async () => {
    const [execCommand] = unifiedExecTools;
    for (const [tool, input, field] of [
      [execTool, { command: "printf hi", yieldMs: 10_000 }, "output"],
      [shellTool, { command: "printf hi" }, "output"],
      [execCommand, { cmd: "printf hi", yield_time_ms: 10_000 }, "output"],
    ] as const) {
      const manager = managerOf(failingOnce().provider, { pollMinMs: 1, pollMaxMs: 2 });
      const answer = await call(manager, tool, input);
      expect([tool.name, answer[field]]).toEqual([tool.name, "hi"]);
      expect([tool.name, answer.notices]).toEqual([tool.name, [NOTICE]]);
    }
  });
});

describe("a client's remarks about a command", () => {
  it("come once each as the run's notices, cut to 1000 characters, never in its output", async () => {
    const long = `the connection to where it ran was lost ${"x".repeat(5000)}`;
    const { provider } = polledProvider(async (read) => {
      // Every answer carries all the remarks so far, as acp-terminal's host sends them.
      const answer = await read();
      return { ...answer, notices: ["[acp-terminal] first", long] };
    });
    const manager = managerOf(provider, { pollMinMs: 1, pollMaxMs: 2 });
    const answer = await call(manager, execTool, {
      command: "printf 'a\\n'; sleep 0.1; printf 'b\\n'",
      yieldMs: 10_000,
    });
    expect(answer.output).toBe("a\nb\n");
    expect(answer.notices).toEqual(["[acp-terminal] first", `${long.slice(0, 999)}…`]);
  });
});
