/**
 * `acp-terminal run` when nobody reads its stdout: a real CLI whose stdout pipe is left unread
 * while its agent floods a terminal. Its memory must stay bounded (live output waits in the
 * host's buffer, which keeps only the newest bytes), and once stdout is read, every final fact
 * (tool call status, exit status, stop reason, summary) must be there.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  CLI,
  FIXTURE_AGENT,
  killAllStarted,
  nodeAgent,
  REPO,
  track,
} from "./fixtures/cli-process.js";
import { until, withDeadline } from "./support/until.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

const FLOOD_BYTES = 300_000_000;
/**
 * A generous bound on the CLI's resident memory, not a figure (bench/cli-throughput.bench.mjs
 * measures that): before backpressure, 300 MB of output unread took it from 50 MB to 999 MB.
 */
const MAX_RSS_MIB = 200;

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match === null ? 0 : Number(match[1]) / 1024;
}

describe("acp-terminal run with a stalled stdout reader", () => {
  for (const json of [true, false]) {
    it(`${json ? "--json" : "text"}: memory stays bounded while stdout is unread, and every final fact arrives once it is read`, async () => {
      const agent = nodeAgent(FIXTURE_AGENT, "flood", String(FLOOD_BYTES));
      const child = spawn(
        process.execPath,
        [
          CLI,
          "run",
          "--agent-stderr",
          "--yes",
          "--agent",
          agent,
          ...(json ? ["--json"] : []),
          "go",
        ],
        { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] },
      );
      track(child.pid!);
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const closed = new Promise<number | null>((resolve) =>
        child.once("close", (code) => resolve(code)),
      );
      // stdout has no reader yet: once the pipe is full, everything the CLI writes waits in its memory.
      let peakMiB = 0;
      await until(
        () => {
          peakMiB = Math.max(peakMiB, rssMiB(child.pid!));
          return stderr.includes("flood exited");
        },
        {
          timeoutMs: 90_000,
          intervalMs: 20,
          message: "the flood to end (its exit is known once its output went through the CLI)",
        },
      );
      peakMiB = Math.max(peakMiB, rssMiB(child.pid!));
      expect(stderr).toContain("flood exited 0");
      expect(peakMiB).toBeLessThan(MAX_RSS_MIB);

      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      expect(await withDeadline(closed, 30_000, "the CLI to exit once stdout is read")).toBe(0);
      if (json) {
        const lines = stdout
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line) as Record<string, any>);
        const updates = lines.filter((l) => l.type === "session_update").map((l) => l.update);
        expect(updates.at(-1)).toMatchObject({
          sessionUpdate: "tool_call_update",
          toolCallId: "flood",
          status: "completed",
        });
        expect(lines.find((l) => l.event === "exit")).toMatchObject({
          exitStatus: { exitCode: 0, signal: null },
        });
        expect(lines.at(-1)).toMatchObject({
          type: "result",
          stopReason: "end_turn",
          exitCode: 0,
          terminals: [{ exitStatus: { exitCode: 0 } }],
        });
        expect(
          lines
            .filter((l) => l.type !== "turn")
            .map((l) => l.event ?? l.type)
            .slice(-3),
        ).toEqual(["release", "session_update", "result"]);
      } else {
        expect(stdout).toContain("✓ flood [completed]\n");
        expect(stdout.endsWith("  └ exit 0\n")).toBe(true);
        expect(stderr).toMatch(/── end_turn · 1 terminal: 1 exit 0 · .* · exit code 0\n$/);
      }
    }, 120_000);
  }
});
