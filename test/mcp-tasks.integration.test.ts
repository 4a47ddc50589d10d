/**
 * Long calls as MCP Tasks, through `@modelcontextprotocol/ext-tasks` over the SDK v2 client: a
 * 2025-11-25 task-augmented call and a 2026-07-28 call that outlives its yield each become a task
 * whose result is what a direct call would have answered; tasks/cancel kills the command.
 */
import { realpathSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { MCP_MAIN, markedEnv, pidsWithArg } from "./support/mcp-server.js";
import { connectTasksClient, type TasksClient } from "./support/mcp-tasks-client.js";
import { until } from "./support/until.js";

let workspace: string;
let mark: string;
const open: TasksClient[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-tasks-")));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
  await untilNoneMarked(mark);
});

async function tasksClient(revision: "2025" | "2026", args: string[]): Promise<TasksClient> {
  mark = newMark();
  const client = await connectTasksClient(revision, {
    stdio: {
      command: process.execPath,
      args: [MCP_MAIN, "--workspace", workspace, ...args],
      env: markedEnv(mark),
    },
  });
  open.push(client);
  return client;
}

describe.each(["2025", "2026"] as const)("MCP %s with ext-tasks", (revision) => {
  test("a call that outlives its yield becomes a task whose result is the direct call's answer, whole", async () => {
    const client = await tasksClient(revision, ["--yes"]);
    const started = Date.now();
    const execution = await client.session.callTool(
      "exec",
      { command: "sleep 1.5; echo done", yieldMs: 200 },
      { requestTimeoutMs: 1000, task: { preference: "prefer" } },
    );
    const { outcome } = await execution.settle();
    expect(outcome.status, JSON.stringify(outcome)).toBe("completed");
    const result = (outcome as { result: { structuredContent: Record<string, unknown> } }).result;
    expect(result.structuredContent).toMatchObject({
      status: "completed",
      exitCode: 0,
      output: "done\n",
    });
    expect(Date.now() - started).toBeGreaterThan(1400);
  });
});
