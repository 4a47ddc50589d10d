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
import { pidsWithArg, startHttpServer, type HttpServerProcess } from "./support/mcp-server.js";
import { until } from "./support/until.js";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { TOKEN_ENV } from "acp-terminal-mcp";

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

/** A server; with the test's token unless `token: false` (or the environment gives one). */
async function start(
  args: string[],
  env: Record<string, string> = {},
  { token = true }: { token?: boolean } = {},
): Promise<HttpServerProcess> {
  mark = newMark();
  const given = token && !env[TOKEN_ENV] && !args.includes("--token") ? ["--token", TOKEN] : [];
  const server = await startHttpServer(
    ["--workspace", workspace, "--yes", ...given, ...args],
    mark,
    env,
  );
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
    const client = await connectHttp(kind, { url: server.url, token: TOKEN });
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
    const client = await connectHttp(kind, { url: server.url, token: TOKEN });
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
    const server = await start(["--http", "127.0.0.1:0"], { [TOKEN_ENV]: TOKEN });
    expect((await post(server.url)).status).toBe(401);
    expect((await post(server.url, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  test("on loopback too a token is required: without one the server makes it and prints how to pass it; requests without it get 401", async () => {
    const server = await start(["--http", "127.0.0.1:0"], {}, { token: false });
    const made = /this server made the token (\S+) /.exec(server.stderr())?.[1];
    expect(made).toMatch(/^[\w-]{43}$/);
    expect(server.stderr()).toContain(
      "every request needs the header Authorization: Bearer <token>",
    );
    expect((await post(server.url)).status).toBe(401);
    expect((await post(server.url, { authorization: `Bearer ${made}` })).status).toBe(200);
  });

  test("--token-file writes the made token readable by its owner only (not printed), and the server removes it when it stops", async () => {
    const file = path.join(workspace, `token-${randomUUID()}`);
    writeFileSync(file, "stale", { mode: 0o644 });
    const server = await start(
      ["--http", "127.0.0.1:0", "--token-file", file],
      {},
      { token: false },
    );
    const token = readFileSync(file, "utf8").trim();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(server.stderr()).toContain(`the token this server made is in ${file} (mode 0600)`);
    expect(server.stderr()).not.toContain(token);
    expect((await post(server.url, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect(await server.stop()).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  test("a wrong token is refused before the body is read: 200 unfinished 4 MiB bodies leave the server's memory as it was", async () => {
    const server = await start(["--http", "127.0.0.1:0"]);
    const port = Number(new URL(server.url).port);
    const rssBefore = rssKiB(server.child.pid!);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () =>
        unfinishedPost(port, "Bearer wrong-token-0123456789", 4 * 1024 * 1024),
      ),
    );
    // Each is answered 401 before its body, or (past 64 waiting at once) closed unanswered.
    expect(statuses.filter((status) => status !== 401 && status !== 0)).toEqual([]);
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThan(0);
    expect(rssKiB(server.child.pid!) - rssBefore).toBeLessThan(64 * 1024);
    const client = await connectHttp("v2", { url: server.url, token: TOKEN });
    clients.push(client);
    expect(structured(await client.callTool("exec", { command: "echo served" })).output).toBe(
      "served\n",
    );
  });

  test("300 idle connections without a token cannot lock out a client with one; at most 64 are kept, each at most 10 s", async () => {
    const server = await start(["--http", "127.0.0.1:0"]);
    const port = Number(new URL(server.url).port);
    const idle = await Promise.all(Array.from({ length: 300 }, () => idleConnection(port)));
    const client = await connectHttp("v2", { url: server.url, token: TOKEN });
    clients.push(client);
    expect(structured(await client.callTool("exec", { command: "echo in" })).output).toBe("in\n");
    await until(() => idle.filter((socket) => !socket.closed).length <= 64, {
      message: "connections beyond the bound to be closed",
    });
    await until(() => idle.every((socket) => socket.closed), {
      timeoutMs: 15_000,
      message: "idle connections to be closed after 10 s",
    });
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
            authorization: `Bearer ${TOKEN}`,
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
    const client = await connectHttp("v2", { url: server.url, token: TOKEN });
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

/** Resident memory of a process, KiB (Linux /proc). */
function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

/**
 * A POST announcing `bytes` of body that sends its headers and 64 KiB of it; resolves with the
 * status, or 0 when the server closed the connection without an answer.
 */
function unfinishedPost(port: number, authorization: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${authorization}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${bytes}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(64 * 1024, 0x20));
    });
    let head = "";
    socket.setEncoding("latin1").on("data", (chunk: string) => {
      head += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      if (status) {
        socket.destroy();
        resolve(Number(status));
      }
    });
    socket.on("error", () => undefined /* reset after the answer: the answer is what counts */);
    socket.on("close", () => resolve(0)); // no-op once resolved with a status
    socket.setTimeout(10_000, () => reject(new Error("no answer within 10 s")));
  });
}

/** A connection that sends nothing. */
function idleConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
    socket.on("error", () => undefined /* closed by the server: what is tested */);
  });
}
