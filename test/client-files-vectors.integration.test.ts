/**
 * The agent's file requests (`fs/read_text_file`, `fs/write_text_file`) against a hostile agent,
 * through the real CLI:
 * - F1, F2: while `ws/sub` is swapped atomically (renameat2 RENAME_EXCHANGE) between a directory
 *   and a symlink to a directory outside, no write lands outside and no read returns the outside
 *   file. The swapper is the agent's own terminal where its commands may write the workspace
 *   (`--yes --sandbox workspace-write`), else another process of the same user;
 * - F3, G3: a write into `.git` or to a dotfile at the top of the cwd (`~/.gitconfig` with the cwd
 *   at home) is never approved by a `write:` pattern, and under a sandbox a write into `.git` is
 *   refused whoever approved it, so the user's next `git status` runs nothing the agent wrote.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  fixtureTurn,
  killAllStarted,
  nodeAgent,
  saidResult,
  startCli,
} from "./fixtures/cli-process.js";
import { until } from "./support/until.js";

const AGENT = fileURLToPath(new URL("./fixtures/hostile-client-agent.mjs", import.meta.url));
/** renameat2's number (x86_64, arm64): perl has no call of its own for RENAME_EXCHANGE. */
const RENAMEAT2 = process.arch === "arm64" ? 276 : 316;
/** Swaps `sub` and `subl` (a symlink to outside) in its cwd as fast as it can, once it said so. */
const SWAPPER = `$| = 1; my ($a, $b) = qw(sub subl); print "swapping\\n"; syscall(${RENAMEAT2}, -100, $a, -100, $b, 2) while 1`;

let workspace: string;
let outside: string;
let swapper: ChildProcess | undefined;

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "files-ws-")));
  // Under /var/tmp: no sandbox hides it, so a write that escaped would be seen there.
  outside = mkdtempSync("/var/tmp/files-outside-");
  mkdirSync(path.join(workspace, "sub"));
  writeFileSync(path.join(workspace, "sub", "secret"), "inside\n");
  writeFileSync(path.join(outside, "secret"), "OUTSIDE\n");
  symlinkSync(outside, path.join(workspace, "subl"));
});
afterEach(async () => {
  await stopSwapper();
  expect(killAllStarted()).toEqual([]);
  rmSync(workspace, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

interface Said {
  contents?: Record<string, number>;
  refused?: Record<string, number>;
  said?: string[];
  failed?: string;
}

/** Runs the agent's one turn under `flags`; resolves with what it said. */
async function turn(flags: string[], mode: string, given: unknown): Promise<Said> {
  return saidResult(
    await fixtureTurn(AGENT, { cwd: workspace, flags, mode, given }, 90_000),
  ) as Said;
}

/** A swapper run by another process of the user (the test): the race needs no agent terminal. */
async function swapFromOutside(): Promise<void> {
  swapper = spawn("perl", ["-e", SWAPPER], { cwd: workspace, stdio: ["ignore", "pipe", "ignore"] });
  let said = "";
  swapper.stdout!.setEncoding("utf8").on("data", (chunk: string) => (said += chunk));
  await until(() => said.includes("swapping"), { message: "the swapper to start" });
}

async function stopSwapper(): Promise<void> {
  if (swapper !== undefined && swapper.exitCode === null && swapper.signalCode === null) {
    const exited = once(swapper, "exit");
    swapper.kill("SIGKILL");
    await exited;
  }
  swapper = undefined;
}

/** The workspace's own directory, under whichever of its two names the swapper left it. */
function insideDirectory(): string {
  const sub = path.join(workspace, "sub");
  return lstatSync(sub).isDirectory() ? sub : path.join(workspace, "subl");
}

const RACE_MODES = [
  { mode: "patterns only", flags: ["--allow", "write:*"], agentSwaps: false },
  { mode: "read-only", flags: ["--yes", "--sandbox", "read-only"], agentSwaps: false },
  { mode: "workspace-write", flags: ["--yes", "--sandbox", "workspace-write"], agentSwaps: true },
];

/** The agent's `count` reads or writes through `file` while `sub` is swapped (by its terminal or not). */
async function race(
  flags: string[],
  agentSwaps: boolean,
  op: "read" | "write",
  file: string,
  count: number,
): Promise<Said> {
  if (!agentSwaps) {
    await swapFromOutside();
  }
  const swap = agentSwaps ? { swap: { command: "perl", args: ["-e", SWAPPER] } } : {};
  const said = await turn(flags, "race", { ...swap, op, path: file, count });
  expect(said.failed).toBeUndefined();
  await stopSwapper();
  // What was refused says why: outside the session's directory (a symlink was there).
  for (const message of Object.keys(said.refused ?? {})) {
    expect(message).toMatch(/is outside the session's directory/);
  }
  return said;
}

describe("a directory swapped for a symlink to outside while the agent reads and writes through it", () => {
  for (const { mode, flags, agentSwaps } of RACE_MODES) {
    it(`${mode}: none of 1000 writes lands outside (F1)`, async () => {
      const said = await race(
        flags,
        agentSwaps,
        "write",
        path.join(workspace, "sub", "pwn-{i}"),
        1000,
      );
      const landed = readdirSync(outside).filter((name) => name !== "secret");
      expect(landed, `landed outside: ${landed.length} of 1000`).toEqual([]);
      const written = readdirSync(insideDirectory()).filter((name) => name.startsWith("pwn-"));
      expect(written.length).toBe(said.contents?.["written"] ?? 0);
      expect(written.length).toBeGreaterThan(0);
    }, 120_000);

    it(`${mode}: none of 2000 reads returns the file outside (F2)`, async () => {
      const said = await race(
        flags,
        agentSwaps,
        "read",
        path.join(workspace, "sub", "secret"),
        2000,
      );
      expect(said.contents?.["OUTSIDE\n"], "reads that returned the outside file").toBeUndefined();
      expect(said.contents?.["inside\n"]).toBeGreaterThan(0);
    }, 120_000);
  }
});

describe("writes honour what the sandbox protects", () => {
  let repo: string;
  let marker: string;
  beforeEach(() => {
    repo = path.join(workspace, "repo");
    mkdirSync(repo);
    execFileSync("git", ["init", "-q"], { cwd: repo });
    marker = path.join(outside, "FSMONITOR-RAN");
  });

  const fsmonitorConfig = () =>
    `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch ${marker}\n`;
  const hook = () => `#!/bin/sh\ntouch ${marker}\n`;
  const gitWrites = () => [
    { write: path.join(repo, ".git", "config"), content: fsmonitorConfig() },
    { write: path.join(repo, ".git", "hooks", "pre-commit"), content: hook() },
  ];

  /** The user's next `git status` in the repository: did it run what the agent wrote? */
  const userGitStatusRanIt = () => {
    execFileSync("git", ["status", "--short"], { cwd: repo, stdio: "ignore" });
    return existsSync(marker);
  };

  it.each([
    ["read-only", ["--yes", "--sandbox", "read-only"]],
    ["workspace-write", ["--yes", "--sandbox", "workspace-write"]],
  ])(
    "--yes --sandbox %s: a write into .git is refused, saying the sandbox keeps it read-only (F3)",
    async (mode, flags) => {
      const said = await turn(flags, "files", gitWrites());
      expect(said.said).toEqual([
        `refused: -32603 fs/write_text_file: ${repo}/.git/config is protected: it is inside .git (git runs what its config and hooks there say, outside any sandbox), and the ${mode} sandbox keeps it read-only for commands too; write it yourself if it must change`,
        `refused: -32603 fs/write_text_file: ${repo}/.git/hooks/pre-commit is protected: it is inside .git (git runs what its config and hooks there say, outside any sandbox), and the ${mode} sandbox keeps it read-only for commands too; write it yourself if it must change`,
      ]);
      expect(readFileSync(path.join(repo, ".git", "config"), "utf8")).not.toContain("fsmonitor");
      expect(userGitStatusRanIt()).toBe(false);
    },
    60_000,
  );

  it("patterns only: --allow 'write:*' approves neither .git nor a top dotfile, nor a symlink to one; other files it does (F3)", async () => {
    symlinkSync(path.join(repo, ".git", "config"), path.join(workspace, "innocent.txt"));
    const said = await turn(["--allow", "write:*"], "files", [
      ...gitWrites(),
      { write: path.join(workspace, "innocent.txt"), content: fsmonitorConfig() },
      { write: path.join(workspace, ".envrc"), content: `touch ${marker}\n` },
      { write: path.join(workspace, "notes.txt"), content: "fine\n" },
    ]);
    expect(said.said?.slice(0, 4)).toEqual([
      expect.stringContaining(`Denied by the user: ${repo}/.git/config (`),
      expect.stringContaining(`Denied by the user: ${repo}/.git/hooks/pre-commit (`),
      expect.stringContaining(`Denied by the user: ${repo}/.git/config (`),
      expect.stringContaining(`Denied by the user: ${workspace}/.envrc (`),
    ]);
    expect(said.said?.[4]).toBe("ok: ");
    expect(readFileSync(path.join(workspace, "notes.txt"), "utf8")).toBe("fine\n");
    expect(existsSync(path.join(workspace, ".envrc"))).toBe(false);
    expect(userGitStatusRanIt()).toBe(false);
  }, 60_000);

  it("--yes without a sandbox: a person's answer writes .git, as it would run a command (the control)", async () => {
    const said = await turn(["--yes"], "files", gitWrites().slice(0, 1));
    expect(said.said).toEqual(["ok: "]);
    expect(userGitStatusRanIt()).toBe(true);
  }, 60_000);

  it("G3: with the session's cwd at $HOME, --allow 'write:*' does not approve ~/.gitconfig; ~/notes.txt it does", async () => {
    const home = path.join(workspace, "home");
    mkdirSync(home);
    const cli = startCli(
      [
        "run",
        "--cwd",
        home,
        "--allow",
        "write:*",
        "--agent",
        nodeAgent(
          AGENT,
          "files",
          JSON.stringify([
            {
              write: path.join(home, ".gitconfig"),
              content: `[diff]\n\texternal = touch ${marker}\n`,
            },
            { write: path.join(home, "notes.txt"), content: "fine\n" },
          ]),
        ),
        "go",
      ],
      { env: { ...process.env, HOME: home } },
    );
    const { stdout, stderr, code } = await cli.result(60_000);
    expect(code, stderr).toBe(0);
    const said = JSON.parse(/result: (.*)/.exec(stdout)![1]!) as Said;
    expect(said.said?.[0]).toContain(`Denied by the user: ${home}/.gitconfig (`);
    expect(said.said?.[1]).toBe("ok: ");
    expect(existsSync(path.join(home, ".gitconfig"))).toBe(false);
  }, 60_000);
});
