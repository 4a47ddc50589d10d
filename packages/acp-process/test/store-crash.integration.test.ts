import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { TerminalHost } from "acp-terminal";
import { afterEach, describe, expect, it } from "vitest";
import { LocalTerminalProvider, ProcessManager, SqliteRunStore, type RunEvent, type RunItem } from "../src/index.js";
import { FIXTURES } from "./support.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type CrashPoint = "streaming" | "beside-finished" | "with-queued";

interface Crashed {
  path: string;
  marker: string;
  runId: string;
  /** Highest seq a read() in the agent returned before it died. */
  ackedSeq: number;
  lines: string[];
}

/** Runs the crash fixture until it has acknowledged `wanted` items, then SIGKILLs it mid-read. */
async function crashAgent(point: CrashPoint, wanted: number): Promise<Crashed> {
  const dir = mkdtempSync(join(tmpdir(), "acp-process-crash-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "runs.db");
  const marker = `acp-crash-marker-${basename(dir)}`;
  const agent = spawn(process.execPath, [`${FIXTURES}process-agent-sqlite-crash.mjs`, path, point, String(wanted), marker], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => agent.once("exit", resolve));
  cleanups.push(async () => {
    agent.kill("SIGKILL");
    await exited;
  });
  const lines: string[] = [];
  const ended = new Promise<void>((resolve) => createInterface({ input: agent.stdout! }).on("line", (line) => lines.push(line)).on("close", resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the agent did not acknowledge ${wanted} items within 20000 ms; it printed: ${lines.slice(-5).join(" | ")}`)), 20_000);
    const check = setInterval(() => lines.includes("READY") && (clearInterval(check), clearTimeout(timer), resolve()), 2);
  });
  agent.kill("SIGKILL");
  await exited;
  await ended; // every ACK the agent printed before it died
  const acks = lines.filter((l) => l.startsWith("ACK ")).map((l) => l.split(" "));
  return { path, marker, runId: acks[0]![1]!, ackedSeq: Math.max(...acks.map((a) => Number(a[2]))), lines };
}

function reopen(path: string, events: RunEvent[]): { manager: ProcessManager; store: SqliteRunStore } {
  const host = new TerminalHost();
  const store = new SqliteRunStore(path);
  const manager = new ProcessManager({ provider: new LocalTerminalProvider(host), store, env: {}, sweepIntervalMs: 0, onEvent: (e) => events.push(e) });
  cleanups.push(async () => {
    await manager.dispose();
    await host.dispose();
    store.close();
  });
  return { manager, store };
}

/** Pids of processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/** The ticker the dead agent started is in its own process group: the agent cannot kill it any more, so we do. */
async function killOrphans(marker: string): Promise<void> {
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone: its stdout broke when the agent died
    }
  }
  const deadline = Date.now() + 5000;
  while (processesWith(marker).length > 0) {
    if (Date.now() > deadline) throw new Error(`processes with ${marker} still alive after SIGKILL: ${processesWith(marker).join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every item of a run through the public read path, page by page from seq 0. */
async function readAll(manager: ProcessManager, runId: string): Promise<RunItem[]> {
  const items: RunItem[] = [];
  for (let cursor = 0, pages = 0; pages < 10_000; pages++) {
    const page = await manager.read(runId, { sinceSeq: cursor });
    items.push(...page.items);
    if (page.done || page.items.length === 0) return items;
    cursor = page.nextSeq;
  }
  throw new Error(`run ${runId} did not end within 10000 pages`);
}

describe("after a SIGKILL of the agent, recover() keeps every acknowledged item readable", () => {
  for (const [point, wanted] of [["streaming", 500], ["beside-finished", 750], ["with-queued", 1050]] as const) {
    it(`crash point ${point}: every item a read() returned before the kill is readable after reopen, recover() and read`, async () => {
      const crashed = await crashAgent(point, wanted);
      const events: RunEvent[] = [];
      const { manager, store } = reopen(crashed.path, events);
      await killOrphans(crashed.marker);
      const before = store.allItems(crashed.runId);
      expect(before.length).toBeGreaterThan(crashed.ackedSeq);

      const report = await manager.recover();
      expect(report.lost).toContain(crashed.runId);

      const after = await readAll(manager, crashed.runId);
      const acked = after.filter((item) => item.seq <= crashed.ackedSeq);
      console.log(`[store-crash] ${point}: acknowledged items readable after recover(): ${acked.length}/${crashed.ackedSeq + 1}`);
      expect(acked.map((item) => item.seq)).toEqual([...Array(crashed.ackedSeq + 1).keys()]);
      // Nothing stored was changed or dropped: the history is what was there before, plus the notice.
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.slice(before.length)).toEqual([expect.objectContaining({ kind: "notice", text: expect.stringContaining("the agent restarted while this run was running") })]);
      expect(after.map((item) => item.text).join("")).toMatch(/^pid \d+\ntick 0\ntick 1\n/);
      expect(manager.get(crashed.runId).status).toBe("lost");

      if (point === "beside-finished") {
        const [, finishedId, nextSeq] = crashed.lines.find((l) => l.startsWith("FINISHED "))!.split(" ");
        const finished = await readAll(manager, finishedId!);
        expect(finished).toHaveLength(Number(nextSeq));
        expect(finished.map((i) => i.text).join("")).toBe(Array.from({ length: 300 }, (_, i) => `${i + 1}\n`).join(""));
        expect(manager.get(finishedId!)).toMatchObject({ status: "completed", exitCode: 0 });
        expect(events.filter((e) => e.type === "exit" && e.run.id === finishedId)).toHaveLength(0);
      }
      if (point === "with-queued") {
        const [, queuedId, status] = crashed.lines.find((l) => l.startsWith("QUEUED "))!.split(" ");
        expect(status).toBe("queued");
        expect(report.lost).toEqual(expect.arrayContaining([crashed.runId, queuedId]));
        expect((await readAll(manager, queuedId!)).map((i) => i.text)).toEqual([expect.stringContaining("the agent restarted while this run was queued")]);
      }
      expect(processesWith(crashed.marker)).toEqual([]);
    });
  }
});
