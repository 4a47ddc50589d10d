/**
 * `acp-terminal run --mcp-tools`: the CLI offers its terminals as MCP tools over the ACP
 * connection to an agent that takes them (the demo agent, an SDK agent calling them through
 * `McpOverAcpCaller`). The demo tour runs through them in the CLI's own host: its commands show as
 * the CLI's terminals, pass the CLI's approval policy, and nothing is left running. To an agent
 * that does not advertise `mcpCapabilities.acp` it declares the stdio server instead, with the
 * session's cwd and policy, which the agent launches (a fixture agent with the MCP SDK 1.x client,
 * on the ACP SDK 2.x and on the old 0.4.5 SDK).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import {
  CLI,
  FIXTURE_AGENT,
  killAllStarted,
  LEGACY_AGENT,
  nodeAgent,
  REPO,
  runCli,
} from "./fixtures/cli-process.js";
import { facts, messageText, type Update } from "./fixtures/demo-client.js";
import { DEMO_AGENT, MARK_VARIABLE, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { pidsWithArg } from "./support/mcp-server.js";
import { until, withDeadline } from "./support/until.js";

let mark = "";
let dir: string | undefined;

afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  if (mark !== "") {
    await untilNoneMarked(mark);
  }
  mark = "";
  if (dir !== undefined) {
    await rm(dir, { recursive: true, force: true });
  }
  dir = undefined;
});

interface JsonLine {
  type: string;
  event?: string;
  update?: Update;
  exitCode?: number;
  command?: string;
}

/** `acp-terminal run --json --mcp-tools ...` with the demo agent, marked; resolves with its JSON lines once it exits. */
async function runDemo(
  flags: string[],
  prompt: string,
  onStdout?: (stdout: string, child: ChildProcess) => void,
): Promise<{ code: number | null; lines: JsonLine[]; stderr: string }> {
  mark = newMark();
  const child = spawn(
    process.execPath,
    // v1's MCP-over-ACP (the demo agent speaks v2 too, which the default would pick).
    [
      CLI,
      "run",
      "--json",
      "--mcp-tools",
      "--protocol",
      "v1",
      ...flags,
      "--agent",
      nodeAgent(DEMO_AGENT),
      prompt,
    ],
    {
      cwd: REPO,
      env: { ...process.env, [MARK_VARIABLE]: mark },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    onStdout?.(stdout, child);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await withDeadline(
    new Promise<number | null>((resolve) => child.once("close", resolve)),
    60_000,
    "acp-terminal run to exit",
  ).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw new Error(`${String(error)}; stderr:\n${stderr}`);
  });
  return {
    code,
    lines: stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as JsonLine),
    stderr,
  };
}

const updatesOf = (lines: JsonLine[]) =>
  lines.filter((line) => line.type === "session_update").map((line) => line.update!);
const terminalEvents = (lines: JsonLine[], event: string) =>
  lines.filter((line) => line.type === "terminal" && line.event === event);

it("runs the demo tour through the CLI's terminals offered as MCP tools over ACP; each command shows as a terminal, and all are released", async () => {
  const { code, lines, stderr } = await runDemo(["--yes"], "demo");
  expect(code, stderr).toBe(0);
  const updates = updatesOf(lines);
  expect(facts(updates)[0]).toEqual({ event: "mode", provider: "mcp" });
  expect(messageText(updates)).toContain(
    "This client offers its terminals as an MCP server over ACP (terminals",
  );
  expect(facts(updates).at(-1)).toMatchObject({ event: "tour_complete", steps: 8 });
  for (const f of facts(updates).filter((fact) => typeof fact.step === "string")) {
    expect(f.status, JSON.stringify(f)).not.toBe("failed");
  }
  // The tour's commands ran in the CLI's host: the CLI showed each as a terminal, and released each.
  const created = terminalEvents(lines, "create");
  expect(created.length).toBeGreaterThanOrEqual(8);
  expect(terminalEvents(lines, "release")).toHaveLength(created.length);
  expect(lines.at(-1)).toMatchObject({ type: "result", exitCode: 0 });
});

it("the tools pass the CLI's approval policy: without --yes and without a TTY the command is refused and nothing runs", async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-mcp-tools-"));
  const target = path.join(dir, "FILE");
  const { lines, stderr } = await runDemo([], `run touch ${target}`);
  expect(existsSync(target), stderr).toBe(false);
  expect(terminalEvents(lines, "create")).toEqual([]);
  expect(JSON.stringify(updatesOf(lines))).toContain(
    "no terminal to ask on: pass --yes to allow every command, or --allow PATTERN",
  );
  // An --allow pattern approves it, as for v1 terminals: it runs, confined (read-only).
  const allowed = await runDemo(["--allow", "touch *"], `run touch ${target}`);
  expect(allowed.code, allowed.stderr).toBe(0);
  expect(terminalEvents(allowed.lines, "create")).toEqual([
    expect.objectContaining({ command: expect.stringContaining("touch") }),
  ]);
  expect(existsSync(target)).toBe(false);
});

it("to an agent without mcpCapabilities.acp it declares the stdio server acp-terminal mcp with the session's cwd and --allow patterns, which refuses what they do not approve", async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-mcp-stdio-"));
  const { code, stdout, stderr } = await runCli([
    "run",
    "--mcp-tools",
    "--cwd",
    dir,
    "--allow",
    "pwd",
    "--allow",
    "echo *",
    "--agent",
    nodeAgent(FIXTURE_AGENT, "mcp-stdio"),
    `pwd\necho allowed\ntouch ${dir}/FILE\necho x; touch ${dir}/FILE`,
  ]);
  expect(code, stderr).toBe(0);
  expect(stdout.split("\n")).toEqual([
    "mcp: pwd",
    `exec: completed ${dir}`,
    "",
    "mcp: echo allowed",
    "exec: completed allowed",
    "",
    `mcp: touch ${dir}/FILE`,
    expect.stringMatching(
      /^exec: error Not run: touch .*FILE\. It needs approval: no --allow pattern of this server matches it \(pwd, echo \*\)/,
    ),
    `mcp: echo x; touch ${dir}/FILE`,
    expect.stringMatching(
      /^exec: error Not run: echo x; touch .*FILE\. It needs approval: no --allow pattern of this server matches it \(pwd, echo \*\)/,
    ),
    "",
  ]);
  expect(existsSync(path.join(dir, "FILE"))).toBe(false);
  // The server the agent launched (its command line names the workspace) went with the agent.
  await until(() => pidsWithArg(dir!).length === 0, { message: "the stdio MCP server to be gone" });
});

it("to an agent on the 0.4.5 SDK it declares the stdio server, which the agent launches as declared: commands run in the CLI's cwd, an --allow pattern approves what it names and refuses the rest, and the server is gone afterwards", async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-mcp-legacy-"));
  const { code, stdout, stderr } = await runCli([
    "run",
    "--mcp-tools",
    "--cwd",
    dir,
    "--allow",
    "pwd",
    "--allow",
    "echo ALLOWED",
    "--agent",
    nodeAgent(LEGACY_AGENT, "mcp-stdio"),
    "pwd\necho ALLOWED\ntouch REFUSED",
  ]);
  expect(code, stderr).toBe(0);
  expect(stdout.split("\n")).toEqual([
    "mcp: pwd",
    `exec: completed ${dir}`,
    "",
    "mcp: echo ALLOWED",
    "exec: completed ALLOWED",
    "",
    "mcp: touch REFUSED",
    expect.stringMatching(
      /^exec: error Not run: touch REFUSED\. It needs approval: no --allow pattern of this server matches it \(pwd, echo ALLOWED\)/,
    ),
    "",
  ]);
  expect(existsSync(path.join(dir, "REFUSED"))).toBe(false);
  // The server the agent launched (its command line names the workspace) is gone afterwards.
  await until(() => pidsWithArg(dir!).length === 0, { message: "the stdio MCP server to be gone" });
});

it("SIGTERM of the CLI while a command runs through the MCP tools kills it: nothing is left behind", async () => {
  let signalled = false;
  const { code, lines, stderr } = await runDemo(["--yes"], "run sleep 300", (stdout, child) => {
    if (!signalled && stdout.includes('"event":"create"')) {
      signalled = true;
      child.kill("SIGTERM");
    }
  });
  expect(signalled, stderr).toBe(true);
  expect(code).toBe(3);
  expect(terminalEvents(lines, "create")).toHaveLength(1);
  // afterEach: no process carrying this run's mark (the agent, the sleep) is left.
});
