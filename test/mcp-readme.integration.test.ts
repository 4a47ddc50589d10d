/**
 * Runs every configuration snippet of the `acp-terminal mcp` section of packages/acp-terminal/README.md,
 * read from the file: the MCP host entries with the v2 and v1 SDK clients (launched as a host
 * launches them: command from PATH, the entry's args), the ACP session entry through a real ACP
 * agent's `session/new` and then launched, and the HTTP server command and host entry over
 * 127.0.0.1. Also checks that the tool table names every tool of every surface.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client as acpClient, ndJsonStream } from "@agentclientprotocol/sdk";
import { execTool, processTool, processTools, shellTool } from "acp-process/tools";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { DEMO_AGENT, MARK_VARIABLE, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import {
  connectHttp,
  connectStdio,
  type ClientKind,
  type McpTestClient,
  type ToolCallResult,
} from "./support/mcp-clients.js";
import { CLI, markedEnv, startHttpServer, type HttpServerProcess } from "./support/mcp-server.js";
import { withDeadline } from "./support/until.js";

const README = readFileSync(
  fileURLToPath(new URL("../packages/acp-terminal-cli/README.md", import.meta.url)),
  "utf8",
);
const PLACEHOLDER_WORKSPACE = "/path/to/project";

/** The fenced block after `<!-- mcp-snippet: name -->`. */
function snippet(name: string): string {
  const match = new RegExp(
    `<!-- mcp-snippet: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``,
  ).exec(README);
  if (!match) {
    throw new Error(`README has no snippet ${name}`);
  }
  return match[1]!;
}

let workspace: string;
let shims: string;
let mark: string;
const clients: McpTestClient[] = [];
const servers: HttpServerProcess[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-readme-")));
  // `acp-terminal` on PATH, as after installing the package: the built CLI.
  shims = mkdtempSync(path.join(tmpdir(), "mcp-readme-bin-"));
  writeFileSync(
    path.join(shims, "acp-terminal"),
    `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`,
  );
  chmodSync(path.join(shims, "acp-terminal"), 0o755);
});
afterAll(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(shims, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
  await untilNoneMarked(mark);
});

function hostEnv(): Record<string, string> {
  const env = markedEnv(mark);
  return { ...env, PATH: `${shims}:${env.PATH}` };
}

interface StdioEntry {
  command: string;
  args: string[];
}

function withWorkspace(args: string[]): string[] {
  return args.map((arg) => (arg === PLACEHOLDER_WORKSPACE ? workspace : arg));
}

async function launch(kind: ClientKind, entry: StdioEntry): Promise<McpTestClient> {
  mark = newMark();
  const client = await connectStdio(kind, {
    command: entry.command,
    args: withWorkspace(entry.args),
    env: hostEnv(),
  });
  clients.push(client);
  return client;
}

function structured(result: ToolCallResult): Record<string, unknown> {
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  return result.structuredContent!;
}

describe.each(["v2", "v1"] as const)("with the %s client", (kind) => {
  test("the host-stdio entry serves exec and process in the workspace", async () => {
    const entry = (JSON.parse(snippet("host-stdio")) as { mcpServers: Record<string, StdioEntry> })
      .mcpServers.terminals!;
    const client = await launch(kind, entry);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["exec", "process"]);
    expect(structured(await client.callTool("exec", { command: "pwd" })).output).toBe(
      `${workspace}\n`,
    );
  });

  test("the host-allow entry serves shell, runs what its patterns allow and refuses the rest", async () => {
    const entry = (JSON.parse(snippet("host-allow")) as { mcpServers: Record<string, StdioEntry> })
      .mcpServers.terminals!;
    const client = await launch(kind, entry);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["shell"]);
    expect(structured(await client.callTool("shell", { command: "ls -a" }))).toMatchObject({
      status: "completed",
      exit_code: 0,
    });
    for (const command of ["git status", "git log -1"]) {
      expect(structured(await client.callTool("shell", { command })).error ?? "").not.toContain(
        "Denied",
      );
    }
    for (const command of ["ls; id", "ls $(id)", "git status; id", "git push", "rm -rf x"]) {
      expect(structured(await client.callTool("shell", { command })).error).toContain(
        `Denied by the user: ${command} (no --allow pattern of this server`,
      );
    }
  });

  test("the http-server command and the http-host entry serve the tools with the token, and 401 without", async () => {
    mark = newMark();
    const token = randomUUID().replace(/-/g, "");
    const line = snippet("http-server")
      .replace("<32+ random characters>", token)
      .replace("0.0.0.0:8765", "127.0.0.1:0")
      .replace(PLACEHOLDER_WORKSPACE, workspace);
    const [assignment, command, ...args] = line.split(/\s+/);
    const [variable, value] = assignment!.split("=");
    expect(command).toBe("acp-terminal");
    const server = await startHttpServer(args, mark, { ...hostEnv(), [variable!]: value! }, [
      path.join(shims, command!),
    ]);
    servers.push(server);
    const entry = (
      JSON.parse(snippet("http-host")) as {
        mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
      }
    ).mcpServers.devbox!;
    expect(entry.type).toBe("http");
    const url = entry.url.replace("http://devbox.example:8765/mcp", server.url);
    const headers = Object.fromEntries(
      Object.entries(entry.headers).map(([name, v]) => [name, v.replace("<the token>", token)]),
    );
    const client = await connectHttp(kind, { url, headers });
    clients.push(client);
    expect(structured(await client.callTool("exec", { command: "echo remote" })).output).toBe(
      "remote\n",
    );
    const unauthorized = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: "{}",
      signal: AbortSignal.timeout(10_000),
    });
    expect(unauthorized.status).toBe(401);
  });
});

/** Sends `session/new` with `mcpServers: [entry]` to the demo agent (a real ACP SDK agent, which validates it). */
async function declareInAcpSession(entry: unknown): Promise<string> {
  const child = spawn(process.execPath, [DEMO_AGENT], {
    stdio: ["pipe", "pipe", "ignore"],
    env: { ...process.env, [MARK_VARIABLE]: mark },
  });
  try {
    const connection = acpClient({ name: "mcp-readme-test" }).connect(
      ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
    );
    await withDeadline(
      connection.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: "mcp-readme-test", version: "1.0.0" },
      }),
      10_000,
      "initialize",
    );
    const { sessionId } = (await withDeadline(
      connection.agent.request("session/new", { cwd: workspace, mcpServers: [entry] }),
      10_000,
      "session/new",
    )) as { sessionId: string };
    return sessionId;
  } finally {
    child.kill("SIGTERM");
  }
}

test("the acp-session entry is accepted in session/new by an ACP agent, and launching it as an agent would serves the tools", async () => {
  mark = newMark();
  const entry = JSON.parse(snippet("acp-session")) as StdioEntry & {
    name: string;
    env: { name: string; value: string }[];
  };
  expect(await declareInAcpSession({ ...entry, args: withWorkspace(entry.args) })).toEqual(
    expect.any(String),
  );
  // The agent's SDK validates the declaration: a malformed one is refused, so the check above can fail.
  await expect(declareInAcpSession({ ...entry, args: entry.args.join(" ") })).rejects.toThrow();
  const env = {
    ...hostEnv(),
    ...Object.fromEntries(entry.env.map((variable) => [variable.name, variable.value])),
  };
  const client = await connectStdio("v2", {
    command: entry.command,
    args: withWorkspace(entry.args),
    env,
  });
  clients.push(client);
  expect(structured(await client.callTool("exec", { command: "echo from acp" })).output).toBe(
    "from acp\n",
  );
});

test("the tool table names every tool of every surface, in the surface --tools picks it with", () => {
  const rows = [...README.matchAll(/^\| `(exec|process|shell)` \| `([a-z_]+)` \|/gm)].map(
    (m) => `${m[1]}:${m[2]}`,
  );
  const expected = [
    ...[execTool, processTool].map((tool) => `exec:${tool.functionName}`),
    ...processTools.map((tool) => `process:${tool.functionName}`),
    `shell:${shellTool.functionName}`,
  ];
  expect(rows).toEqual(expected);
});
