/**
 * What a person sees and answers on the TTY is what runs: a hostile agent cannot hide part of a
 * command behind blanks, have an answer typed ahead approve the next question, show only a v2
 * permission's title over its real subject, or flood the TTY with options. The real CLI on a real
 * pseudo-terminal, a real fixture agent, real files.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAllStarted, nodeAgent, track } from "./fixtures/cli-process.js";
import { startCliOnTty, type CliOnTty } from "./fixtures/cli-pty.js";
import { withDeadline } from "./support/until.js";

const AGENT = fileURLToPath(new URL("./fixtures/approval-agent.mjs", import.meta.url));

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "approval-question-")));
});
afterEach(() => {
  expect(killAllStarted()).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

function onTty(args: string[]): CliOnTty {
  const cli = startCliOnTty(["run", "--cwd", dir, ...args, "go"]);
  track(cli.pty.pid);
  return cli;
}
const creates = (...steps: object[]) => nodeAgent(AGENT, "creates", JSON.stringify(steps));
const PROMPT = "Choose 1-3 (Enter denies): ";

describe("acp-terminal run on a TTY: the question shows what will run", () => {
  it("a command line padded with 600 blanks is shown whole, the run of blanks counted, so '; touch M' is in sight", async () => {
    const line = `ls -la --color=never${" ".repeat(600)}; touch M`;
    const cli = onTty(["--agent", creates({ command: line, cwd: dir })]);
    await cli.waitFor(PROMPT);
    expect(cli.screen()).toContain(
      "The agent wants to run: ls -la --color=never⟨600 spaces⟩; touch M",
    );
    expect(cli.screen()).toContain("runs: the line above, by ");
    cli.pty.write("3\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    expect(existsSync(path.join(dir, "M"))).toBe(false);
  });

  it("Q1: a command line padded with 7,000 braille blanks shows the run counted, so '; touch M' is in sight", async () => {
    const line = `ls -la${"\u2800".repeat(7000)}; touch M`;
    const cli = onTty(["--agent", creates({ command: line, cwd: dir })]);
    await cli.waitFor(PROMPT);
    expect(cli.screen()).toContain("The agent wants to run: ls -la⟨7000 × \\u{2800}⟩; touch M");
    expect(cli.screen()).not.toContain("\u2800");
    cli.pty.write("3\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    expect(existsSync(path.join(dir, "M"))).toBe(false);
  });

  it("control and invisible characters are escaped, a line break continues on a marked line", async () => {
    const cli = onTty([
      "--agent",
      creates({ command: "echo", args: ["a\u202eb\u200bc\u00a0d\nGREAT\tx\r"], cwd: dir }),
    ]);
    await cli.waitFor(PROMPT);
    expect(cli.screen()).toContain(
      "The agent wants to run: echo 'a\\u{202e}b\\u{200b}c\\xa0d\\x0a\r\n    │ GREAT\\x09x\\x0d'",
    );
    cli.pty.write("3\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
  });

  it("a request too long to show whole is refused without a question", async () => {
    const cli = onTty([
      "--agent",
      creates({ command: "echo", args: ["x".repeat(9000)], cwd: dir }),
    ]);
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    expect(cli.screen()).not.toContain(PROMPT);
    // The message may be wrapped on the TTY: compared without blanks and line breaks.
    expect(cli.screen().replace(/\s+/g, "")).toMatch(
      /refused0:-32603Deniedbytheuser:echox{295}…\(9005chars\)\(notasked:ittakes9\d{3}characterstoshowwhole/,
    );
  });

  it("an answer typed before the question is shown does not answer it", async () => {
    const cli = onTty(["--agent", creates({ command: "touch", args: [path.join(dir, "M")] })]);
    cli.pty.write("1\r"); // typed ahead: the CLI has not asked anything yet
    await cli.waitFor(PROMPT);
    await cli.waitFor("(1 line typed before this question ignored)");
    expect(existsSync(path.join(dir, "M"))).toBe(false);
    cli.pty.write("3\r");
    await cli.waitFor("refused 0: -32603 Denied by the user: touch");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
    expect(existsSync(path.join(dir, "M"))).toBe(false);
  });

  it("the sandbox a command would run in is in the question", async () => {
    const cli = onTty(["--sandbox", "read-only", "--agent", creates({ command: "true" })]);
    await cli.waitFor(PROMPT);
    expect(cli.screen()).toContain(
      "  sandbox: read-only (it can write nothing but a private /tmp; no network)",
    );
    cli.pty.write("1\r");
    await cli.waitFor("ran 0: exit 0");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
  });
});

describe("acp-terminal run on a TTY: permission requests", () => {
  it("a v2 permission titled 'Read README.md' shows its subject, the command rm -rf \"$HOME\" in /", async () => {
    const params = {
      title: "Read README.md",
      subject: { type: "command", command: 'rm -rf "$HOME"', cwd: "/" },
    };
    const cli = onTty([
      "--protocol",
      "v2",
      "--agent",
      nodeAgent(AGENT, "v2-permission", JSON.stringify(params)),
    ]);
    await cli.waitFor("Choose 1-2 (Enter rejects): ");
    expect(cli.screen()).toContain(
      'The agent asks permission for "Read README.md":\r\n  command: rm -rf "$HOME"\r\n  cwd: /\r\n',
    );
    cli.pty.write("\r");
    await cli.waitFor("permission: reject");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
  });

  it.each([
    ["v1", []],
    ["v2", ["--protocol", "v2"]],
  ])(
    "%s: 1000 options of 480 characters are not listed: the request is cancelled at once, the TTY gets a few lines",
    async (version, flags) => {
      const json = path.join(dir, "permission.json");
      writeFileSync(
        json,
        JSON.stringify({
          title: "pick one",
          options: Array.from({ length: 1000 }, (_, i) => ({
            optionId: `o${i}`,
            name: `${i} `.padEnd(480, "x"),
            kind: "allow_once",
          })),
        }),
      );
      const agent =
        version === "v1"
          ? nodeAgent(AGENT, "options", "1000", "480")
          : nodeAgent(AGENT, "v2-permission", `@${json}`); // 480 KB: too long for an argument
      const cli = onTty([...flags, "--agent", agent]);
      expect(await withDeadline(cli.exited, 20_000, "the CLI to exit")).toBe(0);
      expect(cli.screen()).toMatch(/permission: (cancelled|error -32602)/);
      expect(cli.screen()).not.toContain("Choose 1-");
      expect(cli.screen().length).toBeLessThan(16_384);
    },
  );
});
