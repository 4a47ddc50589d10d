/**
 * The main job: `corepack pnpm demo` — the acp-terminal CLI running demo-agent's tour — run as the
 * root package.json's `demo` script says (with `--json`, so facts are read from the session updates
 * rather than from formatting). Checks each step's status and exit code, the cursors, the watcher,
 * the single exit notification per background run, the truncation facts, and that nothing is left
 * running afterwards.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, killSurvivors } from "./support/processes.js";
import { withDeadline } from "./support/until.js";
import {
  MARK_VARIABLE,
  markedPids,
  newMark,
  REPO,
  untilNoneMarked,
} from "./fixtures/demo-processes.js";

interface Line {
  type: string;
  event?: string;
  terminalId?: string;
  update?: {
    sessionUpdate: string;
    toolCallId?: string;
    status?: string;
    title?: string;
    rawInput?: Record<string, unknown>;
    rawOutput?: Record<string, unknown>;
    _meta?: Record<string, Record<string, unknown>>;
  };
  stopReason?: string;
  exitCode?: number;
}

/** The `demo` script's command, without its build step (the suite runs after `tsc -b`), with --json. */
function demoCommand(): string {
  const scripts = (
    JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const [build, command] = scripts["demo"]!.split(" && ");
  expect(build).toBe("tsc -b");
  expect(command).toMatch(/ run --protocol v1 --yes --agent /);
  return command!.replace(" run ", " run --json ");
}

const mark = newMark();
let lines: Line[] = [];
let code: number | null = null;
let elapsedMs = 0;

beforeAll(async () => {
  const started = Date.now();
  const child = spawn("sh", ["-c", demoCommand()], {
    cwd: REPO,
    env: { ...process.env, [MARK_VARIABLE]: mark },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  try {
    code = await withDeadline(exited, 30_000, `the demo to finish; stderr:\n${stderr}`);
  } finally {
    killSurvivors([child.pid!]);
  }
  elapsedMs = Date.now() - started;
  lines = stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
}, 40_000);

afterAll(() => {
  killSurvivors(markedPids(mark));
});

const updates = () => lines.flatMap((l) => (l.type === "session_update" ? [l.update!] : []));
const facts = () =>
  updates().flatMap((u) =>
    u.sessionUpdate === "agent_message_chunk" && u._meta?.["demo-agent"]
      ? [u._meta["demo-agent"]]
      : [],
  );
const step = (name: string) => facts().filter((f) => f.step === name);

describe("corepack pnpm demo (the main job)", () => {
  it("ends the turn with end_turn and exit code 0, well under 30 s, after every step", () => {
    expect(code).toBe(0);
    expect(facts().at(-1)).toMatchObject({ event: "tour_complete", steps: 8 });
    expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "end_turn", exitCode: 0 });
    expect(elapsedMs).toBeLessThan(20_000);
  });

  it("says first that it uses the client's terminals", () => {
    expect(facts()[0]).toEqual({ event: "mode", provider: "acp" });
  });

  it("runs a foreground command (completed, exit 0), and timed-out ones (hard limit, inactivity) that keep their partial output", () => {
    expect(step("foreground")).toEqual([
      expect.objectContaining({ status: "completed", exitCode: 0 }),
    ]);
    const [timeout] = step("timeout");
    expect(timeout).toMatchObject({ status: "timed_out", cause: "timeout", exitCode: null });
    expect(timeout!.output).toContain("compiling");
    expect(timeout!.output).not.toContain("never printed");
    const [idle] = step("idle");
    expect(idle).toMatchObject({ status: "timed_out", cause: "inactivity", exitCode: null });
    expect(idle!.output).toContain("waiting for a server");
    expect(idle!.output).not.toContain("never printed");
  });

  it("interrupts a command with SIGINT (the client's signal extension): its trap cleans up, then it exits 130", () => {
    const [interrupt] = step("interrupt");
    expect(interrupt).toMatchObject({ skipped: false, status: "killed", exitCode: 130 });
    expect(interrupt!.output).toMatch(/serving .*\ninterrupted: cleaning up\n$/);
  });

  it("polls the background build by cursor: each since_seq is the previous next_seq", () => {
    const [build] = step("build");
    expect(build).toMatchObject({ status: "completed", exitCode: 0, done: true });
    const polls = build!.polls as { sinceSeq: number; nextSeq: number; lines: number }[];
    expect(polls).toHaveLength(3);
    // The job pauses after steps 2 and 4 until the tour lets it go on: two lines per poll, then the rest.
    expect(polls.map((poll) => poll.lines)).toEqual([2, 2, 3]);
    expect(polls[0]!.sinceSeq).toBe(0);
    for (const [i, poll] of polls.entries()) {
      if (i > 0) {
        expect(poll.sinceSeq).toBe(polls[i - 1]!.nextSeq);
      }
    }
    for (const poll of polls) {
      expect(poll.nextSeq).toBeGreaterThan(poll.sinceSeq);
    }
  });

  it("fires the watcher once and reports each background exit exactly once", () => {
    const watches = facts().filter((f) => f.event === "watch");
    expect(watches).toEqual([expect.objectContaining({ pattern: "ERROR|done", match: "done" })]);
    // The watcher is given with the start (no window for a line to slip past), not added after it.
    const calls = updates().filter((u) => u.sessionUpdate === "tool_call");
    expect(calls.filter((u) => u.title!.startsWith("watch "))).toEqual([]);
    expect(calls.filter((u) => (u.rawInput?.watch as unknown[] | undefined)?.length)).toEqual([
      expect.objectContaining({
        title: expect.stringMatching(/^bg: .* \(watching \/ERROR\|done\/\)$/),
        rawInput: expect.objectContaining({
          watch: [{ regex: "ERROR|done", event: "ERROR|done" }],
        }),
      }),
    ]);
    const started = facts()
      .filter((f) => f.event === "started")
      .map((f) => f.id);
    const exits = facts()
      .filter((f) => f.event === "exit")
      .map((f) => f.id);
    expect(started).toHaveLength(4); // the build, the interactive prompt, the process tree, the interrupted command
    expect(exits.sort()).toEqual([...started].sort());
  });

  it("answers an interactive prompt through stdin (the client's write extension)", () => {
    const [interactive] = step("interactive");
    expect(interactive).toMatchObject({ skipped: false, status: "completed", exitCode: 0 });
    expect(interactive!.output).toBe("name? hello acp\n");
  });

  it("kills a process tree: the pids its shell printed ($$, $!) are its shell and sleep on the agent's machine, then both are gone", () => {
    const [kill] = step("kill");
    expect(kill).toMatchObject({
      status: "killed",
      signal: "SIGTERM",
      aliveBefore: [true, true],
      alive: [],
    });
    const [parent, child] = kill!.commands as string[];
    expect(parent).toMatch(/sh -c .*child pid \$!/);
    expect(child).toBe("sleep 30");
    const pids = kill!.pids as number[];
    expect(pids).toHaveLength(2);
    for (const pid of pids) {
      expect(isAlive(pid)).toBe(false);
    }
  });

  it("truncates a 200 KB multi-byte flood to the limit on a character boundary", () => {
    const [flood] = step("flood");
    expect(flood).toMatchObject({
      exitCode: 0,
      printedBytes: 204_804,
      totalBytes: 204_804,
      limit: 4096,
      truncated: true,
      wholeCharacters: true,
    });
    expect(flood!.bytes).toBeLessThanOrEqual(4096);
    expect(flood!.bytes).toBeGreaterThan(4096 - 4); // loses less than one character
    expect(["é", "✓", "🚀"]).toContain(flood!.firstChar);
  });

  it("releases everything: no run is left running, every terminal released, every tool call finished", () => {
    // Checked by the agent: every run's terminalId is null (released); the client's terminals, below.
    expect(step("release")).toEqual([
      expect.objectContaining({ running: 0, unreleased: [], localTerminals: null, released: true }),
    ]);
    const terminalEvents = lines.filter((l) => l.type === "terminal");
    const created = terminalEvents.filter((l) => l.event === "create").map((l) => l.terminalId);
    const released = terminalEvents.filter((l) => l.event === "release").map((l) => l.terminalId);
    expect(created.length).toBeGreaterThanOrEqual(6);
    expect(released.sort()).toEqual([...created].sort());
    const finalStatus = new Map<string, string>();
    for (const u of updates()) {
      if (u.toolCallId !== undefined && u.status) {
        finalStatus.set(u.toolCallId, u.status);
      }
    }
    expect([...finalStatus.values()].filter((s) => s !== "completed" && s !== "failed")).toEqual(
      [],
    );
  });

  it("leaves no process running", async () => {
    await untilNoneMarked(mark);
  });
});
