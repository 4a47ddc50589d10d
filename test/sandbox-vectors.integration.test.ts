/**
 * What a hostile agent's sandboxed commands could leave for the user or reach, through the real
 * CLI with a real bubblewrap and a real git:
 * - S1: under `--sandbox workspace-write` with a cwd that is not a repository root, `git init`
 *   then `git config core.fsmonitor` fails, and the user's next `git status` there runs nothing
 *   (nor is an empty `.git` left behind once the CLI is gone);
 * - S2: with `--sandbox-network`, the host's abstract unix sockets (which belong to the network
 *   namespace, not to a directory) are reachable, and `--verbose` says so; without it they are not.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, fixtureTurn, killAllStarted } from "./fixtures/cli-process.js";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { connectStdio } from "./support/mcp-clients.js";
import { markedEnv } from "./support/mcp-server.js";

const AGENT = fileURLToPath(new URL("./fixtures/approval-agent.mjs", import.meta.url));

let root: string;
let outside: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "sandbox-vectors-")));
  outside = mkdtempSync("/var/tmp/sandbox-vectors-outside-");
});
afterEach(() => {
  expect(killAllStarted()).toEqual([]);
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** The agent runs each create in turn in `cwd`; resolves with its stdout (one line per create). */
function run(cwd: string, flags: string[], steps: object[]) {
  return fixtureTurn(AGENT, { cwd, flags, mode: "creates", given: steps });
}

describe("S1: --sandbox workspace-write, a cwd that is not a repository root", () => {
  const places = [
    ["a directory in no repository", (): string => path.join(root, "plain")],
    ["a subdirectory of a repository", (): string => path.join(root, "repo", "sub")],
  ] as const;

  it.each(places)(
    "%s: git init and core.fsmonitor fail; the user's git status runs nothing",
    async (_, place) => {
      const cwd = place();
      mkdirSync(cwd, { recursive: true });
      if (cwd.endsWith("sub")) {
        execFileSync("git", ["init", "-q"], { cwd: path.dirname(cwd) });
      }
      const marker = path.join(outside, "FSMONITOR-RAN");
      const { stdout } = await run(
        cwd,
        ["--yes", "--sandbox", "workspace-write"],
        [
          {
            command: "/bin/sh",
            args: [
              "-c",
              `git init -q && git config core.fsmonitor "touch ${marker}"; echo "git: $?"; touch made-here`,
            ],
          },
        ],
      );
      expect(stdout).toMatch(/ran 0: exit 0 ".*Read-only file system/);
      expect(existsSync(path.join(cwd, "made-here")), "the workspace stays writable").toBe(true);
      // The user's (or their editor's) next git status there (outside a repository it just fails).
      spawnSync("git", ["status", "--short"], { cwd, stdio: "ignore" });
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(path.join(cwd, ".git")), "no empty .git is left once the CLI is gone").toBe(
        false,
      );
    },
    90_000,
  );
});

it("S1 through acp-terminal mcp --sandbox workspace-write: git init fails, the user's git status runs nothing, no .git is left", async () => {
  const workspace = path.join(root, "plain");
  mkdirSync(workspace);
  const marker = path.join(outside, "FSMONITOR-RAN");
  const mark = newMark();
  const client = await connectStdio("v2", {
    command: process.execPath,
    args: [CLI, "mcp", "--workspace", workspace, "--sandbox", "workspace-write", "--yes"],
    env: markedEnv(mark),
  });
  try {
    const result = await client.callTool("exec", {
      command: `git init -q && git config core.fsmonitor "touch ${marker}"; echo "git: $?"`,
    });
    expect(String(result.structuredContent?.["output"])).toContain("Read-only file system");
  } finally {
    await client.close();
    await untilNoneMarked(mark);
  }
  spawnSync("git", ["status", "--short"], { cwd: workspace, stdio: "ignore" });
  expect(existsSync(marker)).toBe(false);
  expect(existsSync(path.join(workspace, ".git"))).toBe(false);
}, 60_000);

describe("S2: the host's abstract unix sockets", () => {
  let server: Server;
  let name: string;
  let connections: number;
  beforeEach(async () => {
    name = `\0acp-terminal-test-${randomUUID()}`;
    connections = 0;
    server = createServer((socket) => {
      connections++;
      socket.end("hello from the host\n");
    });
    await new Promise<void>((resolve) => server.listen(name, resolve));
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** A command that connects to the socket by its name (node pads it as the server did). */
  const connect = () => ({
    command: process.execPath,
    args: [
      "-e",
      `require("net").connect(${JSON.stringify(name)}).on("data", (d) => process.stdout.write(String(d))).on("error", (e) => console.log("unreachable: " + e.code))`,
    ],
  });

  it.each([
    ["read-only", ["--sandbox", "read-only"]],
    ["workspace-write", ["--sandbox", "workspace-write"]],
  ])(
    "%s: unreachable without --sandbox-network; with it reachable, and --verbose says so",
    async (mode, flags) => {
      const closed = await run(root, ["--yes", ...flags], [connect()]);
      expect(closed.stdout).toContain("unreachable: ECONNREFUSED");
      expect(connections).toBe(0);
      const { stdout, stderr } = await run(
        root,
        ["--yes", ...flags, "--sandbox-network", "--verbose"],
        [connect()],
      );
      expect(stdout).toContain("hello from the host");
      expect(connections).toBe(1);
      expect(stderr).toMatch(
        new RegExp(
          `acp-terminal: sandbox: ${mode} \\(bubblewrap: .*network allowed, and the host's abstract unix sockets \\(X11, some D-Bus buses\\)`,
        ),
      );
    },
    60_000,
  );
});
