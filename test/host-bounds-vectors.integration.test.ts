/**
 * What one hostile agent can do to the host's other work, through the real CLI and the real MCP
 * server:
 * - S3: a descriptor the server inherited (fd 240, open on a host file) is closed in every command,
 *   whatever the containment, sandbox or PTY;
 * - D1: a `terminal/create` with 60,000 variables is refused at once (-32602 naming `env`), and a
 *   plain `echo` started beside it is not held up (it took 10–20 s before the bound);
 * - C1: 100,000 `terminal/output` requests sent at once leave the CLI's memory bounded, and
 *   100,000 `terminal/wait_for_exit` too: past the bound on requests in flight, each is answered
 *   at once with an error saying why;
 * - L1: a command that kills its own relay at once was started, and its create says so.
 */
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CLI,
  fixtureTurn,
  killAllStarted,
  nodeAgent,
  saidResult,
  startCli,
} from "./fixtures/cli-process.js";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { connectStdio, type McpTestClient } from "./support/mcp-clients.js";
import { markedEnv } from "./support/mcp-server.js";

const HOSTILE = fileURLToPath(new URL("./fixtures/hostile-client-agent.mjs", import.meta.url));
const CREATES = fileURLToPath(new URL("./fixtures/approval-agent.mjs", import.meta.url));

let dir: string;
let hostFile: string;
let mark: string | undefined;
let client: McpTestClient | undefined;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "host-bounds-")));
  hostFile = path.join(dir, "host-file.txt");
  writeFileSync(hostFile, "the user's file\n");
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  if (mark !== undefined) {
    await untilNoneMarked(mark);
    mark = undefined;
  }
  expect(killAllStarted()).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the hostile agent's one turn with --yes; resolves with what it said. */
async function hostileTurn(
  flags: string[],
  mode: string,
  given: unknown,
): Promise<Record<string, any>> {
  return saidResult(
    await fixtureTurn(HOSTILE, { cwd: dir, flags: ["--yes", ...flags], mode, given }, 120_000),
  );
}

/** The command S3's agent runs: it writes through fd 240 if it can, and lists what it holds. */
const THROUGH_240 = {
  command: "/bin/bash",
  args: ["-c", "(echo WRITTEN THROUGH 240 >&240) 2>&1; ls /proc/self/fd | tr '\\n' ' '"],
};

describe("S3: a descriptor the server inherited never reaches a command", () => {
  it.each([
    ["patterns only", ["--allow", "/bin/bash *"]],
    ["read-only", ["--yes", "--sandbox", "read-only"]],
    ["workspace-write", ["--yes", "--sandbox", "workspace-write"]],
    ["--no-contain", ["--yes", "--no-contain"]],
    ["--pid-namespace", ["--yes", "--pid-namespace"]],
    ["--pty", ["--yes", "--pty"]],
    ["--pty --no-contain", ["--yes", "--pty", "--no-contain"]],
  ])(
    "%s",
    async (_, flags) => {
      const fd = openSync(hostFile, "r+");
      try {
        const cli = startCli(
          [
            "run",
            "--cwd",
            dir,
            ...flags,
            "--agent",
            nodeAgent(CREATES, "creates", JSON.stringify([THROUGH_240])),
            "go",
          ],
          { inherit: { fd, at: 240 } },
        );
        const { code, stdout, stderr } = await cli.result(60_000);
        expect(code, stderr).toBe(0);
        expect(stdout).toMatch(/ran 0: exit 0 ".*240: Bad file descriptor/);
        expect(stdout).not.toMatch(/ran 0: exit 0 "[^"]*\b240\b[^"]*\b240\b/); // not listed either
      } finally {
        closeSync(fd);
      }
      expect(readFileSync(hostFile, "utf8")).toBe("the user's file\n");
    },
    90_000,
  );

  it("acp-terminal mcp", async () => {
    mark = newMark();
    client = await connectStdio("v2", {
      command: "/bin/bash",
      args: [
        "-c",
        'exec 240<>"$0"; exec "$@"',
        hostFile,
        process.execPath,
        CLI,
        "mcp",
        "--workspace",
        dir,
        "--yes",
      ],
      env: markedEnv(mark),
    });
    const result = await client.callTool("exec", {
      command: "(echo WRITTEN THROUGH 240 >&240) 2>&1; ls /proc/self/fd | tr '\\n' ' '",
    });
    expect(String(result.structuredContent?.["output"])).toContain("240: Bad file descriptor");
    expect(readFileSync(hostFile, "utf8")).toBe("the user's file\n");
  }, 60_000);
});

describe("D1: one create's environment cannot hold up the others", () => {
  it("60,000 variables: refused at once naming env; 1024 of 1000 bytes (the bound) run; an echo beside either is not held up", async () => {
    const said = await hostileTurn([], "env", {
      variables: 60_000,
      alongside: { command: "echo", args: ["beside"] },
    });
    expect(said["big"]).toBe(
      "refused: -N Invalid params for terminalPATH: env: expected at most N variables, received N",
    );
    expect(said["alongsideOutput"]).toBe("beside\n");
    // Before the bound the echo waited 10–20 s for the launcher (a generous deadline, not a figure).
    expect(said["bigMs"]).toBeLessThan(5_000);
    expect(said["alongsideMs"]).toBeLessThan(5_000);
    const atBound = await hostileTurn([], "env", {
      variables: 1024,
      valueBytes: 1000,
      alongside: { command: "echo", args: ["beside"] },
    });
    expect(atBound["big"]).toBe("ok");
    expect(atBound["alongsideOutput"]).toBe("beside\n");
    expect(atBound["alongsideMs"]).toBeLessThan(5_000);
  }, 90_000);

  it("acp-terminal mcp: 60,000 variables are refused naming env; the next exec runs", async () => {
    mark = newMark();
    client = await connectStdio("v2", {
      command: process.execPath,
      args: [CLI, "mcp", "--workspace", dir, "--yes"],
      env: markedEnv(mark),
    });
    const env = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`BIG_${i}`, "v"]));
    const refused = await client.callTool("exec", { command: "true", env });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("env: expected at most 1024 variables");
    const next = await client.callTool("exec", { command: "echo next" });
    expect(String(next.structuredContent?.["output"])).toBe("next\n");
  }, 90_000);
});

describe("C1: requests in flight are bounded per connection", () => {
  it("100,000 terminal/output at once (2000 NUL bytes of output each): every one answered, the CLI's peak RSS bounded", async () => {
    const said = await hostileTurn([], "flood", {
      count: 100_000,
      command: "head",
      args: ["-c", "2000", "/dev/zero"],
    });
    expect(said["answered"]).toBe(100_000);
    // Before the bound: 567 MB. An idle run peaks at ~90 MB, 1000 requests at ~120 MB.
    expect(said["clientPeakKiB"]).toBeLessThan(300 * 1024);
  }, 180_000);

  it("100,000 terminal/wait_for_exit at once: past 1024 in flight, each answered at once with an error saying why", async () => {
    const stop = path.join(dir, "STOP");
    const said = await hostileTurn([], "flood", {
      count: 100_000,
      method: "terminal/wait_for_exit",
      command: "/bin/sh",
      args: ["-c", `while [ ! -e ${stop} ]; do sleep 0.05; done`],
      // The waits past the bound are refused at once; then the command ends, and the rest with it.
      stop,
      stopAfter: 100_000 - 1024,
    });
    const errors = said["errors"] as Record<string, number>;
    expect(Object.keys(errors)).toEqual([
      "-N Too many requests in flight: N of this agent's requests are not answered yet; wait for answers before sending more (not handled: terminalPATH)",
    ]);
    expect(said["answered"] + errors[Object.keys(errors)[0]!]!).toBe(100_000);
    expect(said["answered"]).toBe(1024);
    expect(said["clientPeakKiB"]).toBeLessThan(300 * 1024);
  }, 180_000);
});

describe("L1: a command that kills its relay at once", () => {
  it("500 of them, 25 at a time: every create says it started", async () => {
    const said = await hostileTurn(["--max-terminals", "100"], "starts", {
      command: "/bin/sh",
      args: ["-c", "kill -9 $PPID"],
      count: 500,
      batch: 25,
    });
    expect(said["refused"]).toEqual({});
    expect(said["started"]).toBe(500);
  }, 120_000);
});
