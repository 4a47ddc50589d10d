/**
 * `acp-terminal sessions`' own argument errors: each is exit 2 with a line saying what to give,
 * and no agent is started (the agent named does not exist).
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { runSessionsCommand, SESSIONS_USAGE } from "../src/sessions/sessions-command.js";

async function sessions(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => out.push(chunk));
  stderr.on("data", (chunk: Buffer) => err.push(chunk));
  const code = await runSessionsCommand(argv, {
    stdout,
    stderr,
    cwd: "/",
    env: { HOME: "/nonexistent-home" },
    version: "0.0.0",
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

const AGENT = ["--agent", "/nonexistent/agent-that-is-never-started"];

describe("acp-terminal sessions: argument errors", () => {
  it.each([
    [["frobnicate", ...AGENT], "Unknown sessions command: frobnicate (expected list or show ID)"],
    [["list", "x", "y", ...AGENT], "Unknown sessions command: list x y"],
    [["show", ...AGENT], "sessions show: give the session's id or name"],
    [["list", "abc", ...AGENT], 'sessions list takes no argument, received "abc"'],
    [["list"], "Missing --agent: give the agent's name or command line"],
    [["list", "--all", "--cwd", "/tmp", ...AGENT], "--all and --cwd exclude each other"],
    [["list", "--init-timeout", "soon", ...AGENT], "--init-timeout"],
    [["list", "--bogus", ...AGENT], "--bogus"],
  ])("%j is a usage error saying %j", async (argv, said) => {
    const { code, stdout, stderr } = await sessions(argv);
    expect(code).toBe(ExitCode.usage);
    expect(stdout).toBe("");
    expect(stderr).toContain(said);
    expect(stderr).toContain('Run "acp-terminal sessions --help" for usage.');
  });

  it("--help prints the usage on stdout and exits 0", async () => {
    const { code, stdout, stderr } = await sessions(["--help"]);
    expect(code).toBe(ExitCode.ok);
    expect(stdout).toBe(SESSIONS_USAGE);
    expect(stderr).toBe("");
  });
});
