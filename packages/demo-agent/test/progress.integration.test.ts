/**
 * A running tool call gets status updates with its output — throttled to one per
 * PROGRESS_INTERVAL_MS, none for an instant command, none after it is finished — for foreground
 * and background runs. Real commands on an in-process TerminalHost (local mode, where the client
 * has no terminal to watch); the command runs until the test opens a gate file.
 */
import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import { LocalTerminalProvider } from "acp-process";
import { TerminalHost } from "acp-terminal";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../test/support/until.js";
import { bgCommand } from "../src/commands/bg.js";
import { runCommand } from "../src/commands/run.js";
import { FileGate } from "../src/demo/steps/gate.js";
import { PROGRESS_INTERVAL_MS } from "../src/progress.js";
import type { DemoSession } from "../src/session.js";
import { testSession, type TestSession } from "./session-fixture.js";

interface Update {
  sessionUpdate: string;
  toolCallId?: string;
  status?: string;
  content?: { type: string; content?: { text: string } }[];
}

let host: TerminalHost | undefined;
let fixture: TestSession | undefined;
let gate: FileGate | undefined;

afterEach(async () => {
  await fixture?.dispose();
  await host?.dispose();
  await gate?.dispose();
});

/** A local session whose client records each tool call update with the time it was sent. */
function recordingSession(): { session: DemoSession; updates: { atMs: number; update: Update }[] } {
  const updates: { atMs: number; update: Update }[] = [];
  host = new TerminalHost();
  const provider = new LocalTerminalProvider(host, {
    owner: { connectionId: "test", sessionId: "s1" },
  });
  const client = {
    async notify(_method: string, params: { update: Update }) {
      if (params.update.sessionUpdate.startsWith("tool_call")) {
        updates.push({ atMs: performance.now(), update: params.update });
      }
    },
  } as unknown as AgentContext;
  fixture = testSession(provider, client);
  const session = fixture.session;
  return { session, updates };
}

/** Prints a numbered line every 20 ms until the gate file exists, then "done". */
async function tickingCommand(): Promise<string> {
  gate = await FileGate.create();
  return `i=0; until [ -e '${gate.prefix}go' ]; do i=$((i+1)); echo "tick $i"; sleep 0.02; done; echo done`;
}

const text = (update: Update): string =>
  (update.content ?? []).map((c) => c.content?.text ?? "").join("");
const progressOf = (updates: { atMs: number; update: Update }[]) =>
  updates.filter(({ update }) => update.status === "in_progress" && /tick \d+/.test(text(update)));

/** Checks the updates of one tool call: throttled progress with the output, and nothing after the end. */
function expectThrottledProgress(
  updates: { atMs: number; update: Update }[],
  finalStatus: string,
): void {
  const progress = progressOf(updates);
  expect(progress.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < progress.length; i++) {
    expect(progress[i]!.atMs - progress[i - 1]!.atMs).toBeGreaterThanOrEqual(
      PROGRESS_INTERVAL_MS - 5,
    ); // timer granularity
  }
  const ticks = progress.map(({ update }) =>
    Math.max(...[...text(update).matchAll(/tick (\d+)/g)].map((m) => Number(m[1]))),
  );
  expect([...ticks].sort((a, b) => a - b)).toEqual(ticks); // each shows the newest output so far
  expect(updates.at(-1)!.update.status).toBe(finalStatus);
  expect(updates.filter(({ update }) => update.status === finalStatus)).toHaveLength(1);
}

describe("status updates while a command runs", () => {
  it("run: the output so far, at most one update per interval, none after the end", async () => {
    const { session, updates } = recordingSession();
    const result = runCommand(session, await tickingCommand(), 30);
    await until(() => progressOf(updates).length >= 3, {
      timeoutMs: 10_000,
      message: "three progress updates",
    });
    await gate!.open("go");
    expect((await result).run).toMatchObject({ status: "completed", exitCode: 0 });
    expectThrottledProgress(updates, "completed");
  });

  it("bg: the same until its exit is reported, and its start text is kept above the output", async () => {
    const { session, updates } = recordingSession();
    const run = await bgCommand(session, await tickingCommand());
    await until(() => progressOf(updates).length >= 3, {
      timeoutMs: 10_000,
      message: "three progress updates",
    });
    expect(text(progressOf(updates)[0]!.update)).toMatch(
      new RegExp(`^Started ${run.id} in the background\\. .*\\n\`\`\`\\ntick 1\\n`),
    );
    await gate!.open("go");
    expect(await session.background.reported(run.id)).toMatchObject({
      status: "completed",
      exitCode: 0,
    });
    expectThrottledProgress(updates, "completed");
  });
});
