/**
 * Long calls as MCP Tasks, through `@modelcontextprotocol/ext-tasks` over the SDK v2 client on
 * 2025-11-25 and 2026-07-28 (stdio and Streamable HTTP), and through the v1 SDK client's own
 * task API: a call that outlives its yield (2026) or asks for a task (2025) becomes one whose
 * result is what a direct call would have answered, across a client request timeout shorter than
 * the command; tasks/cancel kills the command; approval is asked before the task exists; a
 * command waiting for stdin is asked for it with tasks/update (2026).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import {
  MCP_MAIN,
  markedEnv,
  pidsWithArg,
  startHttpServer,
  type HttpServerProcess,
} from "./support/mcp-server.js";
import { connectTasksClient, type Elicit, type TasksClient } from "./support/mcp-tasks-client.js";
import { until } from "./support/until.js";

let workspace: string;
let mark: string;
const open: { close(): Promise<unknown> }[] = [];
const servers: HttpServerProcess[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-tasks-")));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
  await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
  await untilNoneMarked(mark);
});

type Revision = "2025" | "2026";
type Transport = "stdio" | "http";
const TOKEN = "t".repeat(40);

async function tasksClient(
  revision: Revision,
  transport: Transport,
  args: string[],
  elicit?: Elicit,
): Promise<TasksClient> {
  mark = newMark();
  const serverArgs = ["--workspace", workspace, ...args];
  let client: TasksClient;
  if (transport === "stdio") {
    client = await connectTasksClient(
      revision,
      {
        stdio: { command: process.execPath, args: [MCP_MAIN, ...serverArgs], env: markedEnv(mark) },
      },
      elicit,
    );
  } else {
    const server = await startHttpServer(
      [...serverArgs, "--http", "127.0.0.1:0", "--token", TOKEN],
      mark,
      {},
      [process.execPath, MCP_MAIN],
    );
    servers.push(server);
    client = await connectTasksClient(
      revision,
      { http: { url: server.url, token: TOKEN } },
      elicit,
    );
  }
  open.push(client);
  return client;
}

interface Outcome {
  status: string;
  result?: {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content: { text?: string }[];
  };
}

const prefer = { task: { preference: "prefer" as const } };

describe.each([
  ["2025", "stdio"],
  ["2026", "stdio"],
  ["2025", "http"],
  ["2026", "http"],
] as const)("MCP %s with ext-tasks over %s", (revision, transport) => {
  test("a command longer than the client's request timeout completes through a task, with the direct call's answer whole", async () => {
    const client = await tasksClient(revision, transport, ["--yes"]);
    const started = Date.now();
    const execution = await client.session.callTool(
      "exec",
      { command: "sleep 1.5; echo done", yieldMs: 200 },
      { requestTimeoutMs: 1000, ...prefer },
    );
    expect(execution.kind).toBe("task");
    const { outcome } = (await execution.settle()) as { outcome: Outcome };
    expect(outcome.status, JSON.stringify(outcome)).toBe("completed");
    expect(outcome.result!.structuredContent).toMatchObject({
      status: "completed",
      exitCode: 0,
      output: "done\n",
    });
    expect(JSON.parse(outcome.result!.content[0]!.text!)).toEqual(
      outcome.result!.structuredContent,
    );
    expect(Date.now() - started).toBeGreaterThan(1400);
  });

  test("cancelling the task kills its command, and the task reads cancelled", async () => {
    const client = await tasksClient(revision, transport, ["--yes"]);
    const needle = `mcp-task-cancel-${randomUUID()}`;
    const execution = await client.session.callTool(
      "exec",
      {
        command: `exec '${process.execPath}' -e 'setTimeout(() => {}, 60000)' ${needle}`,
        yieldMs: 100,
      },
      { requestTimeoutMs: 5000, ...prefer },
    );
    expect(execution.kind).toBe("task");
    await until(() => pidsWithArg(needle).length > 0, { message: "the command to run" });
    await execution.cancel();
    await until(() => pidsWithArg(needle).length === 0, {
      message: "the cancelled command to be gone",
    });
    const { outcome } = (await execution.settle()) as { outcome: Outcome };
    expect(outcome.status).toBe("cancelled");
  });

  test("a refused call is an error result: answered directly within the yield (2026), a failed task whose message is the error (2025)", async () => {
    const client = await tasksClient(revision, transport, []);
    const quick = await client.session.callTool(
      "exec",
      { command: "touch never" },
      { requestTimeoutMs: 5000, ...prefer },
    );
    const { outcome } = (await quick.settle()) as {
      outcome: Outcome & { error?: { message: string } };
    };
    if (revision === "2026") {
      // Answered within its yield: the error result itself.
      expect(quick.kind).toBe("immediate");
      expect(outcome.status).toBe("completed");
      expect(outcome.result!.isError).toBe(true);
      expect(outcome.result!.content[0]!.text).toContain("Not run: touch never.");
    } else {
      // A 2025-11-25 task whose result is an error reads failed, with the error as its message.
      expect(outcome.status).toBe("failed");
      expect(outcome.error!.message).toContain("Not run: touch never.");
    }
    expect(existsSync(path.join(workspace, "never"))).toBe(false);
  });
});

describe.each(["2025", "2026"] as const)("MCP %s with ext-tasks and elicitation", (revision) => {
  test.each([
    [200, "sleep 1; echo approved"],
    // However short the yield: approval is decided first, and the yield counts from the start.
    [10, "sleep 0.5; echo approved"],
  ])(
    "a command is approved through the client before its task exists (yield %i ms), then runs to the end as a task",
    async (yieldMs, command) => {
      const questions: string[] = [];
      const client = await tasksClient(revision, "stdio", [], async (params) => {
        questions.push(String(params["message"]));
        return { action: "accept", content: { decision: "once" } };
      });
      const execution = await client.session.callTool(
        "exec",
        { command, yieldMs },
        { requestTimeoutMs: 5000, ...prefer },
      );
      const { outcome } = (await execution.settle()) as { outcome: Outcome };
      expect(outcome.result!.structuredContent).toMatchObject({
        status: "completed",
        output: "approved\n",
      });
      expect(questions).toHaveLength(1);
      expect(questions[0]).toContain(`The agent wants to run: ${command}\n`);
    },
  );
});

test("MCP 2026: a task whose command waits for stdin asks for it; the answer (tasks/update) is what it reads", async () => {
  const asked: string[] = [];
  const client = await tasksClient("2026", "stdio", ["--yes"], async (params) => {
    asked.push(String(params["message"]));
    return { action: "accept", content: { text: `line ${asked.length}`, eof: asked.length === 2 } };
  });
  const execution = await client.session.callTool(
    "exec",
    { command: 'read a; echo "got $a"; read b; echo "got $b"; cat; echo end', yieldMs: 100 },
    { requestTimeoutMs: 5000 },
  );
  expect(execution.kind).toBe("task");
  const { outcome } = (await execution.settle()) as { outcome: Outcome };
  expect(outcome.result!.structuredContent).toMatchObject({
    status: "completed",
    output: "got line 1\ngot line 2\nend\n",
  });
  expect(asked).toHaveLength(2);
  expect(asked[0]).toContain("waits for input on its stdin");
});

describe.each(["stdio", "http"] as const)(
  "the v1 SDK client's own task API over %s",
  (transport) => {
    test("a task-augmented call yields the task, its status, then the direct call's result", async () => {
      mark = newMark();
      const client = new ClientV1({ name: "test-v1-tasks", version: "1.0.0" });
      open.push(client);
      if (transport === "stdio") {
        await client.connect(
          new StdioV1({
            command: process.execPath,
            args: [MCP_MAIN, "--workspace", workspace, "--yes"],
            env: markedEnv(mark),
            stderr: "pipe",
          }),
        );
      } else {
        const server = await startHttpServer(
          ["--workspace", workspace, "--yes", "--http", "127.0.0.1:0", "--token", TOKEN],
          mark,
          {},
          [process.execPath, MCP_MAIN],
        );
        servers.push(server);
        await client.connect(
          new HttpV1(new URL(server.url), {
            requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
          }),
        );
      }
      const kinds: string[] = [];
      let result: unknown;
      for await (const message of client.experimental.tasks.callToolStream(
        { name: "exec", arguments: { command: "sleep 1.2; echo v1" } },
        CallToolResultSchema,
        { task: { ttl: 60_000 }, timeout: 1000 },
      )) {
        kinds.push(message.type);
        if (message.type === "result") {
          result = message.result;
        }
        if (message.type === "error") {
          throw message.error;
        }
      }
      expect(kinds[0]).toBe("taskCreated");
      expect(kinds.at(-1)).toBe("result");
      expect((result as { structuredContent: unknown }).structuredContent).toMatchObject({
        status: "completed",
        output: "v1\n",
      });
    });
  },
);

test("tasks/get, tasks/result and tasks/cancel of an invented 1 MiB task id answer -32602 quoting it cut; the server answers on", async () => {
  mark = newMark();
  const client = new ClientV1({ name: "test-v1-hostile", version: "1.0.0" });
  open.push(client);
  await client.connect(
    new StdioV1({
      command: process.execPath,
      args: [MCP_MAIN, "--workspace", workspace, "--yes"],
      env: markedEnv(mark),
      stderr: "pipe",
    }),
  );
  const invented = "t".repeat(1024 * 1024);
  for (const ask of [
    () => client.experimental.tasks.getTask(invented),
    () => client.experimental.tasks.getTaskResult(invented, CallToolResultSchema),
    () => client.experimental.tasks.cancelTask(invented),
  ]) {
    const error = (await ask().then(
      () => undefined,
      (thrown: unknown) => thrown,
    )) as { code?: number; message: string } | undefined;
    expect(error?.code).toBe(-32602);
    expect(error!.message.length).toBeLessThan(400);
    expect(error!.message).toContain(`No task "${"t".repeat(100)}…"`);
  }
  expect((await client.listTools()).tools.length).toBe(2);
});
