/**
 * The second main job: `corepack pnpm demo:v2` — the acp-terminal CLI speaking ACP v2 to
 * demo-agent, whose tour runs as local processes published as agent-owned terminals — run as the
 * root package.json's `demo:v2` script says (with `--json`, so facts are read from the session
 * updates and terminal events rather than from formatting). Checks the same tour facts as the v1
 * main job, what the CLI made of each agent-owned terminal (announced, rendered, exited once), and
 * that nothing is left running afterwards.
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
  protocol?: string;
  command?: string;
  size?: { cols: number; rows: number };
  cancellable?: boolean;
  screen?: string;
  exitStatus?: { exitCode: number | null; signal: string | null };
  work?: { type: string; terminalId?: string }[];
  update?: {
    sessionUpdate: string;
    toolCallId?: string;
    status?: string;
    _meta?: Record<string, Record<string, unknown>>;
  };
  stopReason?: string;
  exitCode?: number;
}

/** The `demo:v2` script's command, without its build step (the suite runs after `tsc -b`), with --json. */
function demoCommand(): string {
  const scripts = (
    JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const [build, command] = scripts["demo:v2"]!.split(" && ");
  expect(build).toBe("tsc -b");
  expect(command).toMatch(/ run --protocol v2 --yes --agent /);
  return command!.replace(" run ", " run --json ");
}

const mark = newMark();
let lines: Line[] = [];
let code: number | null = null;

beforeAll(async () => {
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
    code = await withDeadline(exited, 30_000, `the v2 demo to finish; stderr:\n${stderr}`);
  } finally {
    killSurvivors([child.pid!]);
  }
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
const terminalEvents = (event: string) =>
  lines.filter((l) => l.type === "terminal" && l.event === event);

describe("corepack pnpm demo:v2 (the second main job: ACP v2, agent-owned terminals)", () => {
  it("negotiates v2 and ends the turn with end_turn and exit code 0 after every step", () => {
    expect(code).toBe(0);
    expect(facts()[0]).toEqual({ event: "mode", provider: "local", protocolVersion: 2 });
    expect(facts().at(-1)).toMatchObject({ event: "tour_complete", steps: 8 });
    expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "end_turn", exitCode: 0 });
  });

  it("runs the same tour as v1: foreground, timeouts with partial output, interrupt (exit 130), cursors, watcher, stdin, a killed tree, a truncated flood", () => {
    expect(step("foreground")).toEqual([
      expect.objectContaining({ status: "completed", exitCode: 0 }),
    ]);
    expect(step("timeout")[0]).toMatchObject({ status: "timed_out", cause: "timeout" });
    expect(step("idle")[0]).toMatchObject({ status: "timed_out", cause: "inactivity" });
    expect(step("interrupt")[0]).toMatchObject({ status: "killed", exitCode: 130 });
    const polls = step("build")[0]!.polls as { sinceSeq: number; nextSeq: number }[];
    expect(polls.map((poll) => poll.sinceSeq)).toEqual([0, polls[0]!.nextSeq, polls[1]!.nextSeq]);
    expect(facts().filter((f) => f.event === "watch")).toHaveLength(1);
    expect(step("interactive")[0]).toMatchObject({ output: "name? hello acp\n" });
    const kill = step("kill")[0]!;
    expect(kill).toMatchObject({ status: "killed", alive: [] });
    for (const pid of kill.pids as number[]) {
      expect(isAlive(pid)).toBe(false);
    }
    expect(step("flood")[0]).toMatchObject({ truncated: true, wholeCharacters: true });
  });

  it("shows every agent-owned terminal as the v1 path does: created with its command and size, exited exactly once with its status", () => {
    const created = terminalEvents("create");
    expect(created.length).toBeGreaterThanOrEqual(6);
    for (const terminal of created) {
      expect(terminal).toMatchObject({ protocol: "v2", size: { cols: 80, rows: 24 } });
      expect(terminal.command).toEqual(expect.any(String));
    }
    const ids = created.map((l) => l.terminalId);
    const exited = terminalEvents("exit").map((l) => l.terminalId);
    expect([...exited].sort()).toEqual([...ids].sort());
    const result = lines.at(-1) as { terminals?: { terminalId: string }[] };
    expect(result.terminals?.map((t) => t.terminalId).sort()).toEqual([...ids].sort());
  });

  it("renders each terminal's final screen through the emulator: the foreground command's two lines, the interrupted server's trap", () => {
    const screens = terminalEvents("exit").map((l) => l.screen);
    expect(screens).toContain("hello from the demo tour\nLinux x86_64\n");
    expect(screens).toContain("serving (Ctrl-C stops me)\ninterrupted: cleaning up\n");
    const interrupted = terminalEvents("exit").find((l) => l.screen?.includes("interrupted"));
    expect(interrupted?.exitStatus).toEqual({ exitCode: 130, signal: null });
  });

  it("stops advertising cancel once a terminal has exited, and lists the background build while it runs", () => {
    const exitedIds = new Set(terminalEvents("exit").map((l) => l.terminalId));
    const lastState = new Map<string, boolean>();
    for (const l of lines) {
      if (l.type === "terminal" && l.cancellable !== undefined) {
        lastState.set(l.terminalId!, l.cancellable);
      }
    }
    for (const id of exitedIds) {
      expect(lastState.get(id!)).toBe(false);
    }
    const build = facts().find((f) => f.event === "started")!.id;
    const listed = lines.filter(
      (l) => l.type === "background" && l.work?.some((w) => w.terminalId === build),
    );
    expect(listed.length).toBeGreaterThan(0);
  });

  it("leaves no process running", async () => {
    await untilNoneMarked(mark);
  });
});
