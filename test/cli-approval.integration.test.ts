/**
 * No command runs without approval: the CLI's one policy for `terminal/create`, stdin writes and
 * signals, through the real CLI and a real fixture agent. Without --yes and without a TTY nothing
 * is spawned; --allow patterns approve only commands they can see in full; on a TTY the person
 * picks allow once, allow for the session, or deny.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FIXTURE_AGENT, killAllStarted, nodeAgent, runCli, track } from "./fixtures/cli-process.js";
import { startCliOnTty } from "./fixtures/cli-pty.js";
import { until, withDeadline } from "./support/until.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-approval-"));
});
afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

const create = (params: Record<string, unknown>, times = 1) =>
  nodeAgent(FIXTURE_AGENT, "create", JSON.stringify(params), String(times));
const file = (name: string) => path.join(dir, name);

describe("acp-terminal run: approving the agent's commands", () => {
  it("without --yes and without a TTY, refuses terminal/create naming --yes, and nothing runs", async () => {
    const { code, stdout } = await runCli([
      "run",
      "--agent",
      create({ command: "touch", args: [file("FILE")] }),
      "go",
    ]);
    expect(stdout).toBe(
      `refused: -32603 Denied by the user: touch ${file("FILE")} (no terminal to ask on: pass --yes to allow every command, or --allow PATTERN to allow the ones that match)\n`,
    );
    expect(existsSync(file("FILE"))).toBe(false);
    expect(code).toBe(0);
  });

  it("refuses a shell command line too, and writes, signals and kills with a chosen signal", async () => {
    const line = await runCli([
      "run",
      "--agent",
      create({ command: `touch ${file("LINE")}` }),
      "go",
    ]);
    expect(line.stdout).toMatch(
      /^refused: -32603 Denied by the user: touch .*LINE \(no terminal to ask on: pass --yes/,
    );
    expect(existsSync(file("LINE"))).toBe(false);
    const { stdout } = await runCli([
      "run",
      "--allow",
      "cat",
      "--agent",
      nodeAgent(FIXTURE_AGENT, "stdin"),
      "go",
    ]);
    expect(stdout.split("\n")).toEqual([
      expect.stringMatching(
        /^write: refused: -32603 Denied by the user: a 3-byte write to the stdin of cat \(no terminal to ask on: pass --yes/,
      ),
      expect.stringMatching(
        /^signal: refused: -32603 Denied by the user: SIGINT to cat \(no terminal to ask on: pass --yes/,
      ),
      expect.stringMatching(
        /^kill-with-signal: refused: -32603 Denied by the user: SIGUSR1 to cat \(/,
      ),
      "",
    ]);
  });

  it("--yes allows the command, its stdin writes and its signals", async () => {
    const { stdout } = await runCli([
      "run",
      "--yes",
      "--agent",
      create({ command: "touch", args: [file("FILE")] }),
      "go",
    ]);
    expect(stdout).toBe("ran: exit 0\n");
    expect(existsSync(file("FILE"))).toBe(true);
    const stdin = await runCli([
      "run",
      "--yes",
      "--agent",
      nodeAgent(FIXTURE_AGENT, "stdin"),
      "go",
    ]);
    expect(stdin.stdout).toBe("write: ok\nsignal: ok\nkill-with-signal: ok\n");
  });

  it.each<[string, string, Record<string, unknown>]>([
    ["the args form", "touch *", { command: "touch", args: ["A"] }],
    ["a shell line of plain words", "touch *", { command: "touch A" }],
    ["an exact pattern", "touch A", { command: "touch", args: ["A"] }],
    ["a * inside a word", "touch A*", { command: "touch", args: ["ABC"] }],
    ["metacharacters as literal args (no shell)", "touch *", { command: "touch", args: ["A;B"] }],
  ])(
    "--allow approves %s, and it runs confined: touch cannot write",
    async (_, pattern, params) => {
      const { stdout } = await runCli([
        "run",
        "--cwd",
        dir,
        "--allow",
        pattern,
        "--agent",
        create({ ...params, cwd: dir }),
        "go",
      ]);
      expect(stdout).toBe("ran: exit 1\n");
      expect(existsSync(file("A"))).toBe(false);
    },
  );

  it.each<[string, string, Record<string, unknown>]>([
    ["another command", "git *", { command: "touch", args: ["A"] }],
    ["more words than an exact pattern", "touch A", { command: "touch", args: ["A", "B"] }],
    ["a * in a word that does not fit", "touch A*", { command: "touch", args: ["BA"] }],
    ["a ; after an allowed command", "touch *", { command: "touch A; touch B" }],
    ["&& after an allowed command", "touch *", { command: "touch A && touch B" }],
    ["a pipe", "touch *", { command: "touch A | touch B" }],
    ["a command substitution", "touch *", { command: "touch $(touch B)" }],
    ["backquotes", "touch *", { command: "touch `touch B`" }],
    ["a newline", "touch *", { command: "touch A\ntouch B" }],
    ["a redirection", "touch *", { command: "touch A > B" }],
    ["a variable assignment in front", "touch *", { command: "B=1 touch A" }],
    [
      "env set by the agent",
      "touch *",
      { command: "touch", args: ["A"], env: [{ name: "PATH", value: "/tmp" }] },
    ],
  ])("--allow does not approve %s", async (_, pattern, params) => {
    const { stdout } = await runCli([
      "run",
      "--allow",
      pattern,
      "--agent",
      create({ ...params, cwd: dir }),
      "go",
    ]);
    expect(stdout).toMatch(
      /^refused: -32603 Denied by the user: .*\(no terminal to ask on: pass --yes/s,
    );
    expect(existsSync(file("A"))).toBe(false);
    expect(existsSync(file("B"))).toBe(false);
  });

  it("--allow is repeatable, and a bad pattern is a usage error naming it", async () => {
    const { stdout } = await runCli([
      "run",
      "--allow",
      "git *",
      "--allow",
      "touch *",
      "--agent",
      create({ command: "touch", args: [file("A")] }),
      "go",
    ]);
    expect(stdout).toBe("ran: exit 1\n"); // approved, confined
    expect(existsSync(file("A"))).toBe(false);
    const bad = await runCli([
      "run",
      "--allow",
      "* x",
      "--agent",
      create({ command: "true" }),
      "go",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^Invalid --allow: "\* x": the command \(first word\) must be written out, without \*/,
    );
  });
});

describe("acp-terminal run on a TTY: asking about the agent's commands", () => {
  const question = (screen: string) => screen.split("The agent wants to run: ").length - 1;

  it("shows the command line, cwd and env the agent set; 1 allows it once", async () => {
    const params = {
      command: "touch",
      args: [file("A")],
      cwd: dir,
      env: [{ name: "GREETING", value: "hi\x1b[2J" }],
    };
    const cli = startCliOnTty(["run", "--agent", create(params), "go"]);
    track(cli.pty.pid);
    await cli.waitFor("Choose 1-3 (Enter denies): ");
    expect(cli.screen()).toContain(
      [
        `The agent wants to run: touch ${file("A")}`,
        `  program: ${execFileSync("sh", ["-c", "command -v touch"], { encoding: "utf8" }).trim()}`,
        `  cwd: ${dir}`,
        "  env: GREETING=hi\\x1b[2J",
        "  sandbox: off (it can write wherever you can)",
        "  1) Allow once",
        "  2) Allow for the rest of this session, confined (read-only, no network)",
        "  3) Deny",
      ].join("\r\n"),
    );
    cli.pty.write("1\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    expect(cli.screen()).toContain("ran: exit 0");
    expect(existsSync(file("A"))).toBe(true);
  });

  it("3 (and Enter) deny: nothing runs", async () => {
    const cli = startCliOnTty([
      "run",
      "--agent",
      create({ command: "touch", args: [file("A")] }, 2),
      "go",
    ]);
    track(cli.pty.pid);
    await cli.waitFor("Choose 1-3 (Enter denies): ");
    cli.pty.write("3\r");
    await cli.waitFor("refused: -32603 Denied by the user: touch");
    await until(() => question(cli.screen()) === 2, {
      timeoutMs: 10_000,
      message: "the second question",
    });
    cli.pty.write("\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    expect(cli.screen().split("refused: -32603 Denied by the user: touch").length - 1).toBe(2);
    expect(existsSync(file("A"))).toBe(false);
  });

  it("2 allows the same command for the rest of the session without asking again, confined after the first", async () => {
    const cli = startCliOnTty([
      "run",
      "--agent",
      create({ command: "touch", args: [file("A")] }, 3),
      "go",
    ]);
    track(cli.pty.pid);
    await cli.waitFor("Choose 1-3 (Enter denies): ");
    cli.pty.write("2\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    // The person's answer runs it as asked; the session's memory, a rule, runs it read-only.
    expect(cli.screen().split("ran: exit 0").length - 1).toBe(1);
    expect(cli.screen().split("ran: exit 1").length - 1).toBe(2);
    expect(question(cli.screen())).toBe(1);
  });

  it("asks about stdin writes and signals, showing the data, with the same three choices", async () => {
    const cli = startCliOnTty([
      "run",
      "--allow",
      "cat",
      "--agent",
      nodeAgent(FIXTURE_AGENT, "stdin"),
      "go",
    ]);
    track(cli.pty.pid);
    await cli.waitFor(
      "The agent wants to send: a 3-byte write to the stdin of cat\r\n  data: hi\\x0a\r\n",
    );
    await cli.waitFor("Choose 1-3 (Enter denies): ");
    cli.pty.write("1\r");
    await cli.waitFor("The agent wants to send: SIGINT to cat");
    cli.pty.write("3\r");
    await cli.waitFor("The agent wants to send: SIGUSR1 to cat");
    cli.pty.write("1\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    const screen = cli.screen();
    expect(screen).toContain("write: ok");
    expect(screen).toContain("signal: refused: -32603 Denied by the user: SIGINT to cat");
    expect(screen).toContain("kill-with-signal: ok");
  });

  it("Ctrl-C while asking denies and cancels the turn", async () => {
    const cli = startCliOnTty([
      "run",
      "--agent",
      create({ command: "touch", args: [file("A")] }),
      "go",
    ]);
    track(cli.pty.pid);
    await cli.waitFor("Choose 1-3 (Enter denies): ");
    cli.pty.write("\x03");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(3);
    expect(existsSync(file("A"))).toBe(false);
  });
});
