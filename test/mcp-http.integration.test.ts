/**
 * `acp-terminal mcp --http` over real HTTP on 127.0.0.1: the three clients list and call tools
 * across requests (one ProcessManager behind every request), the bearer token gate answers 401,
 * a non-loopback address without a token is refused, and SIGTERM leaves no process.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import {
  CLIENT_KINDS,
  connectHttp,
  MODERN_REVISION,
  type McpTestClient,
  type ToolCallResult,
} from "./support/mcp-clients.js";
import {
  CLI,
  markedEnv,
  pidsWithArg,
  startHttpServer,
  type HttpServerProcess,
} from "./support/mcp-server.js";
import { until } from "./support/until.js";
import { spawnSync } from "node:child_process";

const TOKEN = `t-${randomUUID()}`;
let workspace: string;
let mark: string;
let servers: HttpServerProcess[] = [];
const clients: McpTestClient[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-http-")));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(servers.map((server) => server.stop()));
  servers = [];
  await untilNoneMarked(mark);
});

async function start(args: string[]): Promise<HttpServerProcess> {
  mark = newMark();
  const server = await startHttpServer(["--workspace", workspace, "--yes", ...args], mark);
  servers.push(server);
  return server;
}

function structured(result: ToolCallResult): Record<string, unknown> {
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent);
  return result.structuredContent!;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};

async function post(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(INITIALIZE),
    signal: AbortSignal.timeout(10_000),
  });
}

describe.each(CLIENT_KINDS)("the %s client over Streamable HTTP", (kind) => {
  test("lists the tools and runs a command in the background, polled by later requests", async () => {
    const server = await start(["--http", "127.0.0.1:0"]);
    const client = await connectHttp(kind, { url: server.url });
    clients.push(client);
    if (kind === "v2-modern") {
      expect(client.protocolVersion).toBe(MODERN_REVISION);
    } else {
      expect(client.protocolVersion).toMatch(/^2025-\d\d-\d\d$/);
    }
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["exec", "process"]);
    expect(structured(await client.callTool("exec", { command: "echo over http" })).output).toBe(
      "over http\n",
    );
    const id = structured(
      await client.callTool("exec", { command: "echo later", background: true }),
    ).sessionId as string;
    const done = await until(
      async () => {
        const poll = structured(
          await client.callTool("process", { action: "poll", sessionId: id }),
        );
        return poll.status === "completed" ? poll : undefined;
      },
      { message: "the background run to complete" },
    );
    expect(done.exitCode).toBe(0);
    expect(
      structured(await client.callTool("process", { action: "log", sessionId: id })).lines,
    ).toEqual(["later"]);
  });

  test("a long call reports progress, and cancelling it kills its command", async () => {
    const server = await start(["--http", "127.0.0.1:0", "--progress-interval", "0.05"]);
    const client = await connectHttp(kind, { url: server.url });
    clients.push(client);
    const needle = `mcp-http-cancel-${randomUUID()}`;
    const controller = new AbortController();
    const messages: string[] = [];
    const call = client.callTool(
      "exec",
      {
        command: `exec '${process.execPath}' -e 'setTimeout(() => {}, 30000)' ${needle}`,
        yieldMs: 60_000,
      },
      {
        signal: controller.signal,
        onprogress: (progress) => {
          messages.push(progress.message ?? "");
          // Cancel once the command is seen running, by the host (its progress says so) and here.
          if (/ running, /.test(progress.message ?? "") && pidsWithArg(needle).length > 0) {
            controller.abort();
          }
        },
      },
    );
    await expect(call).rejects.toThrow();
    // The command starts through the host's launcher: a tick may come before it runs (queued).
    const running = messages.findIndex((message) => /running, \d+ bytes of output/.test(message));
    expect(running).toBeGreaterThanOrEqual(0);
    expect(
      messages.slice(0, running).every((message) => / queued, 0 bytes of output/.test(message)),
    ).toBe(true);
    await until(() => pidsWithArg(needle).length === 0, {
      message: "the cancelled command to be gone",
    });
  });

  test("with a token: requests without it or with another get 401, the client with it is served", async () => {
    const server = await start(["--http", "127.0.0.1:0", "--token", TOKEN]);
    expect((await post(server.url)).status).toBe(401);
    expect((await post(server.url, { authorization: "Bearer not-the-token-at-all" })).status).toBe(
      401,
    );
    await expect(connectHttp(kind, { url: server.url })).rejects.toThrow();
    const client = await connectHttp(kind, { url: server.url, token: TOKEN });
    clients.push(client);
    expect(structured(await client.callTool("exec", { command: "echo authorized" })).output).toBe(
      "authorized\n",
    );
  });
});

describe("serving HTTP", () => {
  test("the token can come from ACP_TERMINAL_MCP_TOKEN", async () => {
    mark = newMark();
    const server = await startHttpServer(
      ["--workspace", workspace, "--yes", "--http", "127.0.0.1:0"],
      mark,
      { ACP_TERMINAL_MCP_TOKEN: TOKEN },
    );
    servers.push(server);
    expect((await post(server.url)).status).toBe(401);
    expect((await post(server.url, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  test("a non-loopback address without a token is refused before listening, saying how to give one", () => {
    mark = newMark();
    const result = spawnSync(process.execPath, [CLI, "mcp", "--yes", "--http", "0.0.0.0:0"], {
      env: markedEnv(mark),
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      "--http 0.0.0.0:0 is not a loopback address: give a bearer token with --token or ACP_TERMINAL_MCP_TOKEN",
    );
  });

  test("only /mcp is served, and on loopback a foreign Host header is refused", async () => {
    const server = await start(["--http", "127.0.0.1:0"]);
    expect(
      (await fetch(server.url.replace(/\/mcp$/, "/other"), { signal: AbortSignal.timeout(10_000) }))
        .status,
    ).toBe(404);
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        server.url,
        {
          method: "POST",
          headers: {
            host: "attacker.example",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          timeout: 10_000,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject).end(JSON.stringify(INITIALIZE));
    });
    expect(status).toBe(403);
  });

  test("SIGTERM stops the server and kills the commands it runs", async () => {
    const server = await start(["--http", "127.0.0.1:0"]);
    const client = await connectHttp("v2", { url: server.url });
    clients.push(client);
    const needle = `mcp-http-${randomUUID()}`;
    structured(
      await client.callTool("exec", {
        command: `exec '${process.execPath}' -e 'setTimeout(() => {}, 30000)' ${needle}`,
        background: true,
      }),
    );
    await until(() => pidsWithArg(needle).length === 1, {
      message: "the background command to run",
    });
    expect(await server.stop()).toBe(0);
    await untilNoneMarked(mark);
  });
});
