/**
 * Runs every configuration snippet of packages/acp-terminal-mcp/README.md, read from the file: the
 * MCP host entries with the v2 and v1 SDK clients (launched as a host launches them: the entry's
 * absolute node and script, its args), the ACP session entry through a real ACP agent's
 * `session/new` and then launched, and the HTTP server command and host entry over 127.0.0.1;
 * Claude Code's: its `claude mcp add` line (the same entry), its settings, and its Elicitation hook
 * answering the server's real questions. Also checks that the tool table names every tool of
 * every surface.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client as acpClient, ndJsonStream } from "@agentclientprotocol/sdk";
import {
  execTool,
  processTool,
  processTools,
  shellTool,
  unifiedExecTools,
} from "acp-process/tools";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { DEMO_AGENT, MARK_VARIABLE, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import {
  connectHttp,
  connectStdio,
  type ClientKind,
  type ClientOptions,
  type McpTestClient,
  type ToolCallResult,
} from "./support/mcp-clients.js";
import {
  MCP_MAIN,
  markedEnv,
  startHttpServer,
  type HttpServerProcess,
} from "./support/mcp-server.js";
import { withDeadline } from "./support/until.js";

const README = readFileSync(
  fileURLToPath(new URL("../packages/acp-terminal-mcp/README.md", import.meta.url)),
  "utf8",
);
const PLACEHOLDER_WORKSPACE = "/path/to/project";
const PLACEHOLDER_NODE = "/path/to/node";
const PLACEHOLDER_MAIN = "/path/to/acp-terminal-mcp/dist/main.js";

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
let mark: string;
const clients: McpTestClient[] = [];
const servers: HttpServerProcess[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-readme-")));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
  await untilNoneMarked(mark);
});

function hostEnv(): Record<string, string> {
  return markedEnv(mark);
}

interface StdioEntry {
  command: string;
  args: string[];
}

/** The README's placeholders made real: this Node, this build, a temporary workspace. */
function real(word: string): string {
  return word === PLACEHOLDER_WORKSPACE
    ? workspace
    : word === PLACEHOLDER_NODE
      ? process.execPath
      : word === PLACEHOLDER_MAIN
        ? MCP_MAIN
        : word;
}

function withWorkspace(args: string[]): string[] {
  return args.map(real);
}

async function launch(
  kind: ClientKind,
  entry: StdioEntry,
  options: ClientOptions = {},
): Promise<McpTestClient> {
  mark = newMark();
  const client = await connectStdio(
    kind,
    { command: real(entry.command), args: withWorkspace(entry.args), env: hostEnv() },
    options,
  );
  clients.push(client);
  return client;
}

function structured(result: ToolCallResult): Record<string, unknown> {
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  return result.structuredContent!;
}

describe.each(["v2", "v1"] as const)("with the %s client", (kind) => {
  test("the host-stdio entry serves exec and process in the workspace, asking through the host before a command runs; a host that cannot be asked is refused", async () => {
    const entry = (JSON.parse(snippet("host-stdio")) as { mcpServers: Record<string, StdioEntry> })
      .mcpServers.terminals!;
    const questions: string[] = [];
    const client = await launch(kind, entry, {
      elicit: async ({ message }) => {
        questions.push(message);
        return { action: "accept", content: { decision: "once" } };
      },
    });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["exec", "process"]);
    expect(structured(await client.callTool("exec", { command: "pwd" })).output).toBe(
      `${workspace}\n`,
    );
    expect(questions).toEqual([expect.stringContaining("The agent wants to run: pwd\n")]);
    const unasked = await launch(kind, entry);
    const refused = await unasked.callTool("exec", { command: "pwd" });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain(
      "restart the server with --allow PATTERN matching it, or --yes",
    );
  });

  test("the host-allow entry serves shell in a read-only sandbox, runs what its patterns allow and refuses the rest", async () => {
    const entry = (JSON.parse(snippet("host-allow")) as { mcpServers: Record<string, StdioEntry> })
      .mcpServers.terminals!;
    const client = await launch(kind, entry);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["shell"]);
    expect(structured(await client.callTool("shell", { command: "ls -a" }))).toMatchObject({
      status: "completed",
      exit_code: 0,
    });
    expect(structured(await client.callTool("shell", { command: "pwd" }))).toMatchObject({
      status: "completed",
    });
    for (const command of ["ls; id", "ls $(id)", "rm -rf x"]) {
      const refused = await client.callTool("shell", { command });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain(
        `Not run: ${command}. It needs approval: no --allow pattern of this server matches it`,
      );
    }
    // git's own rules: a pattern matches `git log`, never with an option that writes a file.
    const output = await client.callTool("shell", { command: "git log --output=x" });
    expect(output.isError).toBe(true);
    expect(output.content[0]!.text).toContain("Not run: git log --output=x.");
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
    expect(command).toBe(PLACEHOLDER_NODE);
    const server = await startHttpServer(
      withWorkspace(args).slice(1),
      mark,
      { ...hostEnv(), [variable!]: value! },
      [real(command!), real(args[0]!)],
    );
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
    command: real(entry.command),
    args: withWorkspace(entry.args),
    env,
  });
  clients.push(client);
  expect(structured(await client.callTool("exec", { command: "echo from acp" })).output).toBe(
    "from acp\n",
  );
});

test("the tool table names every tool of every surface, in the surface --tools picks it with", () => {
  const rows = [...README.matchAll(/^\| `(exec|process|shell|unified)` \| `([a-z_]+)` \|/gm)].map(
    (m) => `${m[1]}:${m[2]}`,
  );
  const expected = [
    ...[execTool, processTool].map((tool) => `exec:${tool.functionName}`),
    ...processTools.map((tool) => `process:${tool.functionName}`),
    `shell:${shellTool.functionName}`,
    ...unifiedExecTools.map((tool) => `unified:${tool.functionName}`),
  ];
  expect(rows).toEqual(expected);
});

describe("the Claude Code section", () => {
  test("claude mcp add declares the host-stdio entry: the same program and arguments", () => {
    const entry = (JSON.parse(snippet("host-stdio")) as { mcpServers: Record<string, StdioEntry> })
      .mcpServers["terminals"]!;
    const words = snippet("claude-mcp-add").split(/\s+/);
    expect(words.slice(0, 5)).toEqual(["claude", "mcp", "add", "--scope", "project"]);
    expect(words[5]).toBe("terminals");
    expect(words.slice(words.indexOf("--") + 1)).toEqual([entry.command, ...entry.args]);
  });

  test("the settings declare the hook for the terminals server and turn tool search off", () => {
    const settings = JSON.parse(snippet("claude-code-settings")) as {
      hooks: { Elicitation: { matcher: string; hooks: { type: string; command: string }[] }[] };
      env: Record<string, string>;
    };
    expect(settings.hooks.Elicitation).toEqual([
      {
        matcher: "terminals",
        hooks: [{ type: "command", command: "node /path/to/approve-listed.mjs" }],
      },
    ]);
    expect(settings.env).toEqual({ ENABLE_TOOL_SEARCH: "false" });
  });

  test("the Elicitation hook approves once a listed command line of the server's real question, and leaves others unanswered", async () => {
    const hook = path.join(workspace, "approve-listed.mjs");
    writeFileSync(hook, snippet("claude-code-hook"));
    const approved = path.join(workspace, "approved.txt");
    writeFileSync(approved, "echo listed; echo 'fine'\n");
    /** What Claude Code does with the hook: runs it on the question, answers with its output or, headless, cancel. */
    const claudeCode =
      (server: string) =>
      async ({ message }: { message: string }) => {
        const event = { hook_event_name: "Elicitation", mcp_server_name: server, message };
        const printed = execFileSync(process.execPath, [hook], {
          input: JSON.stringify(event),
          env: { ...process.env, TERMINALS_APPROVED: approved },
        }).toString();
        if (printed.trim() === "") {
          return { action: "cancel" as const };
        }
        const output = JSON.parse(printed) as {
          hookSpecificOutput: {
            hookEventName: string;
            action: "accept";
            content: { decision: string };
          };
        };
        expect(output.hookSpecificOutput.hookEventName).toBe("Elicitation");
        return {
          action: output.hookSpecificOutput.action,
          content: output.hookSpecificOutput.content,
        };
      };
    const entry = (JSON.parse(snippet("host-stdio")) as { mcpServers: Record<string, StdioEntry> })
      .mcpServers["terminals"]!;
    const client = await launch("v2-modern", entry, { elicit: claudeCode("terminals") });
    expect(
      structured(await client.callTool("exec", { command: "echo listed; echo 'fine'" })).output,
    ).toBe("listed\nfine\n");
    const other = await client.callTool("exec", { command: "echo unlisted" });
    expect(other.isError).toBe(true);
    expect(other.content[0]!.text).toContain('{"action":"cancel"}');
    const elsewhere = await launch("v2-modern", entry, { elicit: claudeCode("another-server") });
    expect(
      (await elsewhere.callTool("exec", { command: "echo listed; echo 'fine'" })).isError,
    ).toBe(true);
  });
});
