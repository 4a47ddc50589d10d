/**
 * `--allow` on a v2 agent's own command (a `command` permission subject), through the real CLI
 * and a real agent process on the SDK's v2: a piped run, no person, no --yes.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAllStarted, nodeAgent, startCli } from "./fixtures/cli-process.js";

const AGENT = fileURLToPath(new URL("./fixtures/approval-agent.mjs", import.meta.url));

let dir = "";
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "cli-permission-rules-")));
});
afterEach(() => {
  killAllStarted();
  rmSync(dir, { recursive: true, force: true });
});

/** A piped v2 run whose agent asks about `subject`, with these flags. */
async function ask(subject: object, ...flags: string[]) {
  const params = { title: "Run a command", subject };
  const cli = startCli([
    "run",
    "--protocol",
    "v2",
    "--cwd",
    dir,
    ...flags,
    "--agent",
    nodeAgent(AGENT, "v2-permission", JSON.stringify(params)),
    "go",
  ]);
  return cli.result();
}

describe("--allow on a v2 command subject", () => {
  it("a matching command in the session's directory is allowed once, and the CLI says by which pattern and that it runs unconfined", async () => {
    const { code, stdout, stderr } = await ask(
      { type: "command", command: "touch made.txt", cwd: dir },
      "--allow",
      "touch *",
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("permission: allow");
    expect(stderr).toContain(
      `acp-terminal: allowed the command "touch made.txt" (--allow 'touch *'; the agent runs it itself, unconfined)`,
    );
  });

  it("the same command elsewhere, or with shell syntax after it, is refused, saying why", async () => {
    const outside = await ask(
      { type: "command", command: "touch made.txt", cwd: "/" },
      "--allow",
      "touch *",
    );
    expect(outside.stdout).toContain("permission: reject");
    expect(outside.stderr).toMatch(
      /--allow 'touch \*' matches, but it runs in "\/", outside the session's directory/,
    );
    const chained = await ask(
      { type: "command", command: "touch made.txt; rm -rf ~", cwd: dir },
      "--allow",
      "touch *",
    );
    expect(chained.stdout).toContain("permission: reject");
    expect(chained.stderr).toContain(
      'Permission denied for the command "touch made.txt; rm -rf ~"',
    );
  });
});
