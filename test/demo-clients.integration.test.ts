/**
 * demo-agent against the two other kinds of client: one that advertises only
 * `clientCapabilities.terminal: true` (the five v1 calls, no acp-terminal extension), and one with
 * no terminal capability at all, which gets the whole tour with local processes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isAlive } from "./support/processes.js";
import {
  facts,
  messageText,
  startDemoClient,
  type DemoClient,
  type Update,
} from "./fixtures/demo-client.js";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";

let demo: DemoClient | undefined;
let mark = "";

afterEach(async () => {
  await demo?.stop();
  demo = undefined;
  await untilNoneMarked(mark);
});

async function start(
  capabilities: Record<string, unknown>,
  hostTerminals: boolean,
): Promise<DemoClient> {
  mark = newMark();
  demo = await startDemoClient(capabilities, mark, { hostTerminals });
  return demo;
}

const step = (updates: Update[], name: string) => facts(updates).filter((f) => f.step === name);

describe("demo-agent with other clients", () => {
  it("uses a plain client's terminals through the five v1 calls, and embeds them in tool calls", async () => {
    const client = await start({ terminal: true }, true);
    expect(await client.prompt("run echo via-client-terminal")).toBe("end_turn");
    expect(facts(client.updates)[0]).toEqual({ event: "mode", provider: "acp" });
    expect(messageText(client.updates)).toContain("the five terminal/* calls only");
    const last = client.updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1)!;
    expect(last).toMatchObject({
      status: "completed",
      rawOutput: { status: "completed", exitCode: 0 },
    });
    const content = last.content as {
      type: string;
      terminalId?: string;
      content?: { text: string };
    }[];
    expect(content[0]).toMatchObject({ type: "terminal", terminalId: expect.any(String) });
    expect(content[1]!.content!.text).toContain("via-client-terminal");
  });

  it("skips the interactive and interrupt steps with a plain client's terminals, saying why, and completes the tour", async () => {
    const client = await start({ terminal: true }, true);
    expect(await client.prompt("demo")).toBe("end_turn");
    expect(step(client.updates, "interactive")).toEqual([
      { step: "interactive", skipped: true, reason: "no stdin extension" },
    ]);
    expect(step(client.updates, "interrupt")).toEqual([
      { step: "interrupt", skipped: true, reason: "no signal extension" },
    ]);
    expect(messageText(client.updates)).toContain("Skipped: this client's terminals take no input");
    for (const name of ["foreground", "timeout", "idle", "build", "kill", "release"]) {
      expect(step(client.updates, name), name).toEqual([
        expect.not.objectContaining({ status: "failed" }),
      ]);
    }
    expect(step(client.updates, "release")).toEqual([
      expect.objectContaining({ unreleased: [], localTerminals: null, released: true }),
    ]);
    expect(facts(client.updates).at(-1)).toMatchObject({ event: "tour_complete", steps: 8 });

    // Asked directly, input is refused before anything runs, with the reason.
    expect(await client.prompt("bg --stdin cat")).toBe("end_turn");
    expect(
      client.updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1),
    ).toMatchObject({ status: "failed" });
    expect(messageText(client.updates)).toContain(
      "bg failed: stdin is not available with the acp terminal provider: this client's terminals take no input",
    );
  });

  it("runs the whole tour with local processes when the client has no terminals", async () => {
    const client = await start({}, false);
    expect(await client.prompt("demo")).toBe("end_turn");
    const all = facts(client.updates);
    expect(all[0]).toEqual({ event: "mode", provider: "local" });
    expect(step(client.updates, "foreground")).toEqual([
      expect.objectContaining({ status: "completed", exitCode: 0 }),
    ]);
    expect(step(client.updates, "timeout")).toEqual([
      expect.objectContaining({
        status: "timed_out",
        output: expect.stringContaining("compiling"),
      }),
    ]);
    expect(step(client.updates, "idle")).toEqual([
      expect.objectContaining({ status: "timed_out", cause: "inactivity" }),
    ]);
    expect(step(client.updates, "interrupt")).toEqual([
      expect.objectContaining({
        skipped: false,
        status: "killed",
        exitCode: 130,
        output: expect.stringContaining("interrupted: cleaning up"),
      }),
    ]);
    expect(step(client.updates, "build")).toEqual([
      expect.objectContaining({ status: "completed", exitCode: 0, done: true }),
    ]);
    expect(all.filter((f) => f.event === "watch")).toHaveLength(1);
    const started = all.filter((f) => f.event === "started").map((f) => f.id);
    expect(
      all
        .filter((f) => f.event === "exit")
        .map((f) => f.id)
        .sort(),
    ).toEqual([...started].sort());
    const [kill] = step(client.updates, "kill");
    expect(kill).toMatchObject({ status: "killed", alive: [] });
    for (const pid of kill!.pids as number[]) {
      expect(isAlive(pid)).toBe(false);
    }
    const [flood] = step(client.updates, "flood");
    expect(flood).toMatchObject({ truncated: true, wholeCharacters: true, totalBytes: 204_804 });
    expect(flood!.bytes).toBeLessThanOrEqual(4096);
    expect(step(client.updates, "interactive")).toEqual([
      expect.objectContaining({
        skipped: false,
        status: "completed",
        exitCode: 0,
        output: "name? hello acp\n",
      }),
    ]);
    // Checked by the agent: every run's terminalId is null, and its local host holds no terminal.
    expect(step(client.updates, "release")).toEqual([
      expect.objectContaining({ running: 0, unreleased: [], localTerminals: [], released: true }),
    ]);
    expect(all.at(-1)).toMatchObject({ event: "tour_complete", steps: 8 });
    const toolContent = client.updates.flatMap((u) =>
      u.sessionUpdate.startsWith("tool_call") ? ((u.content ?? []) as { type: string }[]) : [],
    );
    expect(toolContent.filter((c) => c.type === "terminal")).toEqual([]);
    expect(client.terminalRequests).toEqual([]);
  });
});
