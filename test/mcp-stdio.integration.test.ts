/**
 * `acp-terminal mcp` over real stdio, driven by the MCP SDK v2 client (2025 handshake and
 * 2026-07-28), and the v1 SDK client: every tool of every surface listed and called, progress,
 * cancellation, the workspace and the approval policy; no process outlives a test.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  execTool,
  processTool,
  processTools,
  shellTool,
  unifiedExecTools,
  type ToolDefinition,
} from "acp-process/tools";
import { MCP_USAGE } from "acp-terminal-mcp";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import {
  CLIENT_KINDS,
  MODERN_REVISION,
  type McpTestClient,
  type ToolCallResult,
} from "./support/mcp-clients.js";
import { CLI, connectServer, pidsWithArg } from "./support/mcp-server.js";
import { until } from "./support/until.js";

let workspace: string;
let mark: string;
const open: McpTestClient[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-stdio-")));
  mkdirSync(path.join(workspace, "sub"));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
  await untilNoneMarked(mark);
});

async function server(kind: (typeof CLIENT_KINDS)[number], args: string[]): Promise<McpTestClient> {
  mark = newMark();
  const client = await connectServer(kind, ["--workspace", workspace, ...args], mark);
  open.push(client);
  return client;
}

/** A successful call's structured result, checked to be what the text content says. */
function structured(result: ToolCallResult): Record<string, unknown> {
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  expect(result.structuredContent).toBeDefined();
  expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent);
  return result.structuredContent!;
}

const SURFACES: Record<string, readonly ToolDefinition[]> = {
  exec: [execTool, processTool] as readonly ToolDefinition[],
  process: processTools as readonly ToolDefinition[],
  shell: [shellTool] as readonly ToolDefinition[],
  unified: unifiedExecTools as readonly ToolDefinition[],
};

describe.each(CLIENT_KINDS)("the %s client", (kind) => {
  test("negotiates the revision it asks for: 2026-07-28 when pinned, a 2025 revision otherwise", async () => {
    const client = await server(kind, ["--yes"]);
    if (kind === "v2-modern") {
      expect(client.protocolVersion).toBe(MODERN_REVISION);
    } else {
      expect(client.protocolVersion).toMatch(/^2025-\d\d-\d\d$/);
    }
  });

  test.each(Object.keys(SURFACES))(
    "lists the %s surface with the tools' own names, descriptions and JSON Schemas",
    async (surface) => {
      const client = await server(kind, ["--yes", "--tools", surface]);
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        SURFACES[surface]!.map((tool) => tool.functionName),
      );
      for (const tool of SURFACES[surface]!) {
        const listed = tools.find((t) => t.name === tool.functionName)!;
        expect(listed.description).toBe(tool.description);
        expect(listed.inputSchema).toEqual(tool.jsonSchema);
      }
    },
  );

  test("--tools unified: exec_command yields a session at a prompt, write_stdin answers it, in the workspace", async () => {
    const client = await server(kind, ["--yes", "--tools", "unified"]);
    const started = structured(
      await client.callTool("exec_command", {
        cmd: "pwd; printf 'name? '; read name; echo \"hello $name\"",
        login: false,
        yield_time_ms: 8000,
      }),
    );
    expect(started).toMatchObject({
      session_id: expect.any(Number),
      output: `${workspace}\nname? `,
      input_required: { prompt: "name? ", detected_by: "proc" },
    });
    expect(started.wall_time_seconds).toBeLessThan(4);
    const answered = structured(
      await client.callTool("write_stdin", { session_id: started.session_id, chars: "mcp\n" }),
    );
    expect(answered).toMatchObject({ exit_code: 0, output: "hello mcp\n" });
  });

  test("calls exec and every process action, each answer with text and structuredContent", async () => {
    const client = await server(kind, ["--yes"]);
    const done = structured(await client.callTool("exec", { command: "echo hello; pwd" }));
    expect(done).toMatchObject({
      status: "completed",
      exitCode: 0,
      output: `hello\n${workspace}\n`,
      truncated: false,
    });
    const bg = structured(
      await client.callTool("exec", { command: "read line; echo got $line", background: true }),
    );
    expect(bg.status).toBe("running");
    const id = bg.sessionId as string;
    expect(structured(await client.callTool("process", { action: "list" })).processes).toEqual(
      expect.arrayContaining([expect.objectContaining({ sessionId: id })]),
    );
    expect(
      structured(
        await client.callTool("process", {
          action: "write",
          sessionId: id,
          data: "x\n",
          eof: true,
        }),
      ),
    ).toMatchObject({ written: 2 });
    const polled = await until(
      async () => {
        const poll = structured(
          await client.callTool("process", { action: "poll", sessionId: id }),
        );
        return poll.status === "completed" ? poll : undefined;
      },
      { message: "the background run to finish" },
    );
    expect(polled.exitCode).toBe(0);
    expect(
      structured(await client.callTool("process", { action: "log", sessionId: id })).lines,
    ).toEqual(["got x"]);
    const sleeper = structured(
      await client.callTool("exec", { command: "sleep 30", background: true }),
    ).sessionId as string;
    expect(
      structured(await client.callTool("process", { action: "kill", sessionId: sleeper })).status,
    ).toBe("killed");
    expect(
      structured(await client.callTool("process", { action: "remove", sessionId: sleeper })),
    ).toEqual({ sessionId: sleeper, removed: true });
    expect(
      structured(await client.callTool("process", { action: "clear" })).cleared,
    ).toBeGreaterThanOrEqual(2);
  });

  test("calls process_run, process_monitor, process_list, process_wait, process_logs and process_kill", async () => {
    const client = await server(kind, ["--yes", "--tools", "process"]);
    expect(structured(await client.callTool("process_run", { command: "echo one" }))).toMatchObject(
      { state: "completed", exit_code: 0, stdout_summary: "one\n" },
    );
    const started = structured(
      await client.callTool("process_run", { command: "echo started; sleep 30", background: true }),
    );
    expect(started).toMatchObject({ state: "running" });
    const id = started.process_id as string;
    expect(structured(await client.callTool("process_monitor", { process_id: id }))).toMatchObject({
      process_id: id,
      state: "running",
    });
    expect(
      structured(await client.callTool("process_list", { state: "running" })).processes,
    ).toEqual([expect.objectContaining({ process_id: id, state: "running" })]);
    expect(
      structured(
        await client.callTool("process_wait", {
          id,
          since_size: 0,
          until: "output",
          timeout: 10,
        }),
      ),
    ).toMatchObject({ process_id: id, woke: "output", stdout: "started\n" });
    expect(structured(await client.callTool("process_logs", { id }))).toMatchObject({
      process_id: id,
      stdout: "started\n",
      stdout_size: 8,
      truncated: false,
    });
    expect(structured(await client.callTool("process_kill", { id }))).toMatchObject({
      process_id: id,
      state: "killed",
      killed: true,
    });
  });

  test("calls shell one-shot, spawn, poll, log, send_keys and kill", async () => {
    const client = await server(kind, ["--yes", "--tools", "shell"]);
    expect(structured(await client.callTool("shell", { command: "echo once" }))).toMatchObject({
      status: "completed",
      exit_code: 0,
      output: "once\n",
    });
    const spawned = structured(
      await client.callTool("shell", {
        action: "spawn",
        command: "read a; echo typed $a; sleep 30",
      }),
    );
    expect(spawned).toMatchObject({ status: "running", next_seq: 0 });
    const id = spawned.id as string;
    expect(
      structured(
        await client.callTool("shell", { action: "send_keys", id, keys: [{ text: "abc\n" }] }),
      ),
    ).toEqual({ id, sent: 1 });
    await until(
      async () =>
        JSON.stringify(
          structured(await client.callTool("shell", { action: "poll", id })).items,
        ).includes("typed abc"),
      { message: "typed output in a poll" },
    );
    // Items are numbered from 1: the first is the one after since_seq 0.
    const log = structured(await client.callTool("shell", { action: "log", id, since_seq: 0 }));
    expect(log.items).toEqual([
      expect.objectContaining({ seq: 1, kind: "output", text: "typed abc\n" }),
    ]);
    expect(log.next_seq).toBe(1);
    expect(
      structured(await client.callTool("shell", { action: "log", id, offset: 0 })).lines,
    ).toEqual(["typed abc"]);
    expect(structured(await client.callTool("shell", { action: "kill", id })).status).toBe(
      "killed",
    );
  });

  test("reports progress during a long call, and cancelling the call kills its command", async () => {
    const client = await server(kind, ["--yes", "--progress-interval", "0.05"]);
    const needle = `mcp-cancel-${randomUUID()}`;
    const controller = new AbortController();
    const messages: string[] = [];
    let runId: string | undefined;
    const call = client.callTool(
      "exec",
      {
        command: `echo ready; exec '${process.execPath}' -e 'setTimeout(() => {}, 30000)' ${needle}`,
        yieldMs: 60_000,
      },
      {
        signal: controller.signal,
        onprogress: (progress) => {
          messages.push(progress.message ?? "");
          runId ??= /^(\S+) running/.exec(progress.message ?? "")?.[1];
          // Cancel once the command is seen running, by the host (its progress says so) and here.
          if (runId !== undefined && pidsWithArg(needle).length > 0) {
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
    // A foreground run is not listed (process list shows background sessions); its id, from the progress message, still reads it.
    expect(runId).toBeDefined();
    expect(structured(await client.callTool("process", { action: "list" })).processes).toEqual([]);
    await until(
      async () =>
        structured(await client.callTool("process", { action: "log", sessionId: runId })).status ===
        "killed",
      { message: "the run to read as killed" },
    );
  });
});

describe("the workspace and the approval policy", () => {
  test("commands start in the workspace; a working directory inside it is used, one outside it (or a symlink out) is refused", async () => {
    const client = await server("v2", ["--yes"]);
    expect(
      structured(
        await client.callTool("exec", { command: "pwd", workdir: path.join(workspace, "sub") }),
      ).output,
    ).toBe(`${workspace}/sub\n`);
    symlinkSync("/", path.join(workspace, "escape"));
    for (const workdir of ["/", path.join(workspace, ".."), path.join(workspace, "escape")]) {
      const refused = await client.callTool("exec", { command: "pwd", workdir });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain(`is outside the workspace ${workspace}`);
    }
    const relative = await client.callTool("exec", { command: "pwd", workdir: "sub" });
    expect(relative.isError).toBe(true);
    expect(relative.content[0]!.text).toContain("must be an absolute path inside the workspace");
    // A start refused is not kept: there is nothing to poll.
    expect(structured(await client.callTool("process", { action: "list" })).processes).toEqual([]);
  });

  test("without --yes or --allow, and a client without elicitation, no command runs: the answer is an error naming the command once and the flags that allow it", async () => {
    const client = await server("v2", []);
    const needle = `mcp-denied-${randomUUID()}`;
    const command = `echo ${needle} > ${workspace}/${needle}`;
    const refused = await client.callTool("exec", { command });
    expect(refused.isError).toBe(true);
    const text = refused.content[0]!.text!;
    expect(text).toBe(
      `Not run: ${command}. It needs approval: this server runs nothing without --yes or a matching --allow, and this client cannot be asked (it does not take MCP elicitation). To allow it, restart the server with --allow PATTERN matching it, or --yes; a pattern never matches shell syntax or a command that sets environment variables.`,
    );
    expect(text).not.toContain("Denied by the user");
    expect(text.split(needle)).toHaveLength(3); // the command once (it names the needle twice)
    expect(existsSync(path.join(workspace, needle))).toBe(false);
    const shell = await server("v2", ["--tools", "shell"]);
    const refusedShell = await shell.callTool("shell", { command: "true" });
    expect(refusedShell.isError).toBe(true);
    expect(refusedShell.content[0]!.text).toContain("--yes");
  });

  test("--allow takes acp-terminal run's patterns: it runs what a pattern approves, and refuses a shell line with metacharacters even under 'git *'", async () => {
    const client = await server("v2", ["--allow", "git *", "--allow", "pwd"]);
    expect(structured(await client.callTool("exec", { command: "git --version" })).output).toMatch(
      /^git version /,
    );
    expect(structured(await client.callTool("exec", { command: "pwd" })).output).toBe(
      `${workspace}\n`,
    );
    const needle = `mcp-allow-${randomUUID()}`;
    for (const command of [
      `git status; touch ${needle}`,
      `git log $(touch ${needle})`,
      `git status && touch ${needle}`,
      `pwd -P`,
      `touch ${needle}`,
    ]) {
      const refused = await client.callTool("exec", { command });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain(
        `Not run: ${command}. It needs approval: no --allow pattern of this server matches it (git *, pwd)`,
      );
    }
    expect(existsSync(path.join(workspace, needle))).toBe(false);
  });

  test("under --allow a command starts with stdin closed (no write could be approved): it reads end-of-file, and a write is refused saying why", async () => {
    const client = await server("v2", ["--allow", "cat", "--allow", "sleep *"]);
    expect(
      structured(await client.callTool("exec", { command: "cat", yieldMs: 10_000 })),
    ).toMatchObject({ status: "completed", exitCode: 0, output: "" });
    const id = structured(await client.callTool("exec", { command: "sleep 30", background: true }))
      .sessionId as string;
    const write = await client.callTool("process", { action: "write", sessionId: id, data: "x\n" });
    expect(write.isError).toBe(true);
    expect(write.content[0]!.text).toBe(
      "Not done: a 2-byte write to the stdin of sleep 30. Only --yes allows stdin writes and signals (an --allow pattern approves starting a command, nothing else), and this client cannot be asked (it does not take MCP elicitation).",
    );
    expect(
      structured(await client.callTool("process", { action: "kill", sessionId: id })).status,
    ).toBe("killed");
  });

  test("--allow never approves a command that sets environment variables (BASH_ENV runs what it names)", async () => {
    const client = await server("v2", ["--allow", "echo [a-z]+"]);
    const pwned = path.join(workspace, `mcp-env-${randomUUID()}`);
    const refused = await client.callTool("exec", {
      command: "echo hi",
      env: { BASH_ENV: `$(touch ${pwned})` },
    });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain("sets environment variables");
    expect(existsSync(pwned)).toBe(false);
    const withYes = await server("v2", ["--yes"]);
    expect(
      structured(await withYes.callTool("exec", { command: "echo $X", env: { X: "set" } })).output,
    ).toBe("set\n");
  });

  test("closing the client ends the server and kills the commands it still runs", async () => {
    const client = await server("v1", ["--yes"]);
    const needle = `mcp-close-${randomUUID()}`;
    structured(
      await client.callTool("exec", {
        command: `exec '${process.execPath}' -e 'setTimeout(() => {}, 30000)' ${needle}`,
        background: true,
      }),
    );
    await until(() => pidsWithArg(needle).length === 1, {
      message: "the background command to run",
    });
    await client.close();
    await untilNoneMarked(mark);
    expect(pidsWithArg(needle)).toEqual([]);
  });
});

describe("the command line", () => {
  test("acp-terminal mcp --help prints the usage; a bad option exits 2 naming it, a missing workspace 1", () => {
    const help = spawnSync(process.execPath, [CLI, "mcp", "--help"], {
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(MCP_USAGE);
    const bad = spawnSync(process.execPath, [CLI, "mcp", "--tools", "bash"], {
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      'Invalid --tools: expected one of exec, process, shell, unified, received "bash"\nRun "acp-terminal mcp --help" for usage.\n',
    );
    const missing = spawnSync(
      process.execPath,
      [CLI, "mcp", "--workspace", "/no/such/dir", "--yes"],
      { encoding: "utf8", timeout: 10_000, input: "" },
    );
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("Invalid --workspace: /no/such/dir does not exist");
  });
});
