/** The working directory is looked at only when a spawn fails, to say whether it or the command was missing. */
import { stat } from "node:fs/promises";
import { beforeEach, expect, it, vi } from "vitest";
import { TerminalError } from "../src/core/errors.js";
import { spawnProcess } from "../src/spawn/spawn.js";
import type { SpawnRequest } from "../src/spawn/types.js";

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, stat: vi.fn(actual.stat) };
});

const controller = new AbortController();

function request(file: string, cwd: string, pty?: SpawnRequest["pty"]): SpawnRequest {
  return {
    file,
    args: [],
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdin: false,
    ...(pty ? { pty } : {}),
    exitDrainGraceMs: 100,
    maxPendingStdinBytes: 1024,
    onData: () => {},
    signal: controller.signal,
  };
}

async function failure(promise: Promise<unknown>): Promise<TerminalError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

beforeEach(() => {
  vi.mocked(stat).mockClear();
});

it("does not stat the cwd when a pipe spawn succeeds", async () => {
  const spawned = await spawnProcess(request("true", "/"));
  expect(await spawned.settled).toEqual({ exitCode: 0, signal: null });
  expect(stat).not.toHaveBeenCalled();
});

it("says which was missing when a pipe spawn fails: the cwd or the command", async () => {
  const missingCwd = await failure(spawnProcess(request("true", "/nonexistent/acp-terminal")));
  expect(missingCwd.message).toBe("Working directory does not exist: /nonexistent/acp-terminal");
  const relativeInMissingCwd = await failure(
    spawnProcess(request("./run.sh", "/nonexistent/acp-terminal")),
  );
  expect(relativeInMissingCwd.message).toBe(
    "Working directory does not exist: /nonexistent/acp-terminal",
  );
  const notADirectory = await failure(spawnProcess(request("true", "/etc/hostname")));
  expect(notADirectory.message).toMatch(
    /^Working directory (is not a directory|does not exist): \/etc\/hostname$/,
  );
  const missingCommand = await failure(spawnProcess(request("acp-terminal-no-such-command", "/")));
  expect(missingCommand.message).toBe(
    "Command not found: acp-terminal-no-such-command (ENOENT). Check the command name and PATH.",
  );
});

it("checks a PTY's cwd before spawning (node-pty cannot report it)", async () => {
  const missingCwd = await failure(
    spawnProcess(request("true", "/nonexistent/acp-terminal", { cols: 80, rows: 24 })),
  );
  expect(missingCwd.message).toBe("Working directory does not exist: /nonexistent/acp-terminal");
});
