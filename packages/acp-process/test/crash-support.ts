import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { TerminalHost } from "acp-terminal";
import {
  LocalTerminalProvider,
  ProcessManager,
  type RunEvent,
  type RunItem,
} from "../src/index.js";
import { SqliteRunStore } from "../src/sqlite.js";
import { FIXTURES } from "./support.js";

/** Cleanups of one test file, run in reverse after each test. */
export type Cleanups = (() => Promise<void> | void)[];

export type CrashPoint = "streaming" | "beside-finished" | "with-queued";

export interface Crashed {
  path: string;
  marker: string;
  runId: string;
  /** Highest seq a read() in the agent returned before it died. */
  ackedSeq: number;
  lines: string[];
}

/** An agent fixture in a child process, its stdout collected line by line. */
export interface AgentProcess {
  lines: string[];
  /** The first line matching `predicate`, waiting for it up to `timeoutMs`. */
  waitFor(predicate: (line: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** SIGKILL; resolves once it has exited and every line it printed is in `lines`. */
  kill(): Promise<void>;
}

export function startAgent(cleanups: Cleanups, fixture: string, args: string[]): AgentProcess {
  const agent: ChildProcess = spawn(process.execPath, [`${FIXTURES}${fixture}`, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => agent.once("exit", resolve));
  const lines: string[] = [];
  const ended = new Promise<void>((resolve) =>
    createInterface({ input: agent.stdout! })
      .on("line", (line) => lines.push(line))
      .on("close", resolve),
  );
  const kill = async (): Promise<void> => {
    agent.kill("SIGKILL");
    await exited;
    await ended;
  };
  cleanups.push(kill);
  return {
    lines,
    kill,
    async waitFor(predicate, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = lines.find(predicate);
        if (line !== undefined) {
          return line;
        }
        if (agent.exitCode !== null || agent.signalCode !== null) {
          throw new Error(
            `${fixture} exited before ${what}; it printed: ${lines.slice(-5).join(" | ")}`,
          );
        }
        if (Date.now() > deadline) {
          throw new Error(
            `${fixture} did not print ${what} within ${timeoutMs} ms; it printed: ${lines.slice(-5).join(" | ")}`,
          );
        }
        // eslint-disable-next-line no-restricted-syntax -- an until() by hand: a poll with its own deadline and a message naming what it saw
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
  };
}

/** Runs the crash fixture until it has acknowledged `wanted` items, then SIGKILLs it mid-read. */
export async function crashAgent(
  cleanups: Cleanups,
  point: CrashPoint,
  wanted: number,
): Promise<Crashed> {
  const dir = mkdtempSync(join(tmpdir(), "acp-process-crash-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "runs.db");
  const marker = `acp-crash-marker-${basename(dir)}`;
  const agent = startAgent(cleanups, "process-agent-sqlite-crash.mjs", [
    path,
    point,
    String(wanted),
    marker,
  ]);
  await agent.waitFor((line) => line === "READY", `READY (${wanted} items acknowledged)`);
  await agent.kill(); // every ACK the agent printed before it died is in agent.lines
  const acks = agent.lines.filter((l) => l.startsWith("ACK ")).map((l) => l.split(" "));
  return {
    path,
    marker,
    runId: acks[0]![1]!,
    ackedSeq: Math.max(...acks.map((a) => Number(a[2]))),
    lines: agent.lines,
  };
}

export function reopen(
  cleanups: Cleanups,
  path: string,
  events: RunEvent[],
): { manager: ProcessManager; store: SqliteRunStore } {
  const host = new TerminalHost();
  const store = new SqliteRunStore(path);
  const manager = new ProcessManager({
    provider: new LocalTerminalProvider(host),
    store,
    env: {},
    sweepIntervalMs: 0,
    onEvent: (e) => events.push(e),
  });
  cleanups.push(async () => {
    await manager.dispose();
    await host.dispose();
    store.close();
  });
  return { manager, store };
}

/** Pids of processes whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) {
        pids.push(Number(entry));
      }
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/** The ticker the dead agent started is in its own process group: the agent cannot kill it any more, so we do. */
export async function killOrphans(marker: string): Promise<void> {
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone: its stdout broke when the agent died
    }
  }
  const deadline = Date.now() + 5000;
  while (processesWith(marker).length > 0) {
    if (Date.now() > deadline) {
      throw new Error(
        `processes with ${marker} still alive after SIGKILL: ${processesWith(marker).join(", ")}`,
      );
    }
    // eslint-disable-next-line no-restricted-syntax -- an until() by hand: a poll with its own deadline and a message naming what it saw
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every item of a run through the public read path, page by page from seq 0. */
export async function readAll(manager: ProcessManager, runId: string): Promise<RunItem[]> {
  const items: RunItem[] = [];
  for (let cursor = 0, pages = 0; pages < 10_000; pages++) {
    const page = await manager.read(runId, { sinceSeq: cursor });
    items.push(...page.items);
    if (page.done || page.items.length === 0) {
      return items;
    }
    cursor = page.nextSeq;
  }
  throw new Error(`run ${runId} did not end within 10000 pages`);
}
