/**
 * demo-agent driven by a tiny SDK client that does not advertise the terminal capability: commands
 * run as local processes (acp-process's local provider), the agent says so, and background exits
 * are reported once, even after the turn that started them has ended.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "./support/until.js";
import {
  facts,
  messageText,
  startDemoClient,
  type DemoClient,
  type Update,
} from "./fixtures/demo-client.js";
import { markedPids, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";

let demo: DemoClient | undefined;
let mark = "";
let dir: string | undefined;

afterEach(async () => {
  await demo?.stop();
  demo = undefined;
  // Everything the agent started carries the mark; none of it may outlive the agent.
  await untilNoneMarked(mark);
  if (dir !== undefined) {
    await rm(dir, { recursive: true, force: true });
  }
  dir = undefined;
});

async function start(): Promise<DemoClient> {
  mark = newMark();
  demo = await startDemoClient({ fs: { readTextFile: false, writeTextFile: false } }, mark);
  return demo;
}

const toolUpdates = (updates: Update[], toolCallId: string) =>
  updates.filter(
    (u) =>
      (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") &&
      u.toolCallId === toolCallId,
  );
const contentText = (update: Update) =>
  ((update.content ?? []) as { type: string; content?: { text: string } }[])
    .map((c) => c.content?.text ?? "")
    .join("");
const exitFacts = (updates: Update[], id: string) =>
  facts(updates).filter((f) => f.event === "exit" && f.id === id);

describe("demo-agent without a terminal-capable client", () => {
  it("runs a command as a local process and says so in its first message", async () => {
    const client = await start();
    expect(markedPids(mark)).toContain(client.pid); // the orphan check in afterEach can see the agent
    expect(await client.prompt("run echo hello-local")).toBe("end_turn");
    expect(facts(client.updates)[0]).toEqual({ event: "mode", provider: "local" });
    expect(messageText(client.updates)).toContain(
      "does not advertise the terminal capability, so commands run as local processes",
    );

    const call = client.updates.find((u) => u.sessionUpdate === "tool_call")!;
    expect(call).toMatchObject({
      kind: "execute",
      status: "pending",
      title: "run: echo hello-local",
    });
    const steps = toolUpdates(client.updates, call.toolCallId as string);
    // Repeated in_progress updates (the output so far, throttled) may come between on a slow machine.
    expect(steps.map((u) => u.status).filter((status, i, all) => status !== all[i - 1])).toEqual([
      "pending",
      "in_progress",
      "completed",
    ]);
    expect(
      steps
        .flatMap((u) => (u.content ?? []) as { type: string }[])
        .some((c) => c.type === "terminal"),
    ).toBe(false);
    expect(contentText(steps.at(-1)!)).toContain("hello-local");
    expect(steps.at(-1)!.rawOutput).toMatchObject({ status: "completed", exitCode: 0 });
    expect(client.terminalRequests).toEqual([]);
  });

  it("reports a background exit once, after the turn that started it has ended", async () => {
    const client = await start();
    dir = await mkdtemp(path.join(tmpdir(), "demo-local-"));
    const gate = path.join(dir, "go");
    expect(
      await client.prompt(`bg while [ ! -e '${gate}' ]; do sleep 0.02; done; echo finished-later`),
    ).toBe("end_turn");
    const id = facts(client.updates).find((f) => f.event === "started")!.id as string;
    expect(exitFacts(client.updates, id)).toEqual([]);

    await writeFile(gate, "");
    const exit = await client.waitFor(
      (u) => facts([u])[0]?.event === "exit",
      "the background exit message",
    );
    expect(facts([exit])[0]).toMatchObject({ id, status: "completed", exitCode: 0 });
    const bgCall = client.updates.find((u) => u.sessionUpdate === "tool_call")!;
    expect(toolUpdates(client.updates, bgCall.toolCallId as string).at(-1)).toMatchObject({
      status: "completed",
    });
    expect(contentText(toolUpdates(client.updates, bgCall.toolCallId as string).at(-1)!)).toContain(
      "finished-later",
    );

    expect(await client.prompt("list")).toBe("end_turn");
    expect(exitFacts(client.updates, id)).toHaveLength(1);
  });

  it("watches, polls by cursor and kills a background run over several turns", async () => {
    const client = await start();
    dir = await mkdtemp(path.join(tmpdir(), "demo-local-"));
    const gate = path.join(dir, "go");
    await client.prompt(
      `bg echo "tick 1"; while [ ! -e '${gate}' ]; do sleep 0.02; done; echo "tick 2"; echo "ERROR: disk full"; sleep 30`,
    );
    const id = facts(client.updates).find((f) => f.event === "started")!.id as string;
    const polled = async (text: string) => {
      await client.prompt(`poll ${id}`);
      return contentText(client.updates.at(-1)!).includes(text);
    };
    await until(() => polled("tick 1"), { timeoutMs: 10_000, message: '"tick 1" in a poll' });

    await client.prompt(`watch ${id} /ERROR/`);
    await writeFile(gate, "");
    const hit = await client.waitFor(
      (u) => facts([u])[0]?.event === "watch",
      "the watcher to fire",
    );
    expect(facts([hit])[0]).toMatchObject({ runId: id, pattern: "ERROR", match: "ERROR" });
    await until(() => polled("disk full"), { timeoutMs: 10_000, message: '"disk full" in a poll' });

    const polls = client.updates.flatMap((u) =>
      (u.rawOutput as { nextSeq?: number } | undefined)?.nextSeq === undefined
        ? []
        : [u.rawOutput as { sinceSeq: number; nextSeq: number }],
    );
    for (const [i, poll] of polls.entries()) {
      expect(poll.sinceSeq).toBe(i === 0 ? 0 : polls[i - 1]!.nextSeq);
    }
    expect(polls.at(-1)!.nextSeq).toBeGreaterThan(polls[0]!.nextSeq);

    expect(await client.prompt(`kill ${id}`)).toBe("end_turn");
    await client.waitFor((u) => facts([u])[0]?.event === "exit", "the exit of the killed run");
    expect(exitFacts(client.updates, id)).toEqual([expect.objectContaining({ status: "killed" })]);
    expect(facts(client.updates).filter((f) => f.event === "watch")).toHaveLength(1);
    expect(client.terminalRequests).toEqual([]);
  });

  it("answers a prompt with send and closes stdin with send --eof; a run without open stdin says so", async () => {
    const client = await start();
    await client.prompt(`bg --stdin read a; echo "got $a"; cat; echo "eof seen"`);
    const id = facts(client.updates).find((f) => f.event === "started")!.id as string;
    expect(await client.prompt(`send ${id} first line`)).toBe("end_turn");
    expect(client.updates.at(-1)).toMatchObject({
      status: "completed",
      rawOutput: { id, bytes: 11, eof: false },
    });
    expect(await client.prompt(`send --eof ${id} last`)).toBe("end_turn");
    const exit = await client.waitFor(
      (u) => facts([u])[0]?.event === "exit",
      "the exit once stdin is closed",
    );
    expect(facts([exit])[0]).toMatchObject({ id, status: "completed", exitCode: 0 });
    await client.prompt(`poll ${id}`);
    expect(contentText(client.updates.at(-1)!)).toContain("got first line\nlast\neof seen\n");

    await client.prompt("bg sleep 30");
    const closed = facts(client.updates)
      .filter((f) => f.event === "started")
      .at(-1)!.id as string;
    expect(await client.prompt(`send ${closed} hello`)).toBe("end_turn");
    expect(
      client.updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1),
    ).toMatchObject({ status: "failed" });
    expect(messageText(client.updates)).toContain(`stdin of run ${closed} is closed`);
  });

  it("types named keys into a PTY run: y Enter answers a prompt, C-c interrupts it, a mistyped name is refused", async () => {
    const client = await start();
    await client.prompt(`bg --pty printf "continue? "; read a; echo "answer $a"; sleep 30`);
    const id = facts(client.updates).find((f) => f.event === "started")!.id as string;
    const polled = async (text: string) => {
      await client.prompt(`poll ${id}`);
      return contentText(client.updates.at(-1)!).includes(text);
    };
    await until(() => polled("continue?"), { timeoutMs: 10_000, message: '"continue?" in a poll' });
    expect(await client.prompt(`keys ${id} y Enter`)).toBe("end_turn");
    expect(client.updates.at(-1)).toMatchObject({
      status: "completed",
      rawOutput: { id, keys: ["y", "Enter"], bytes: "y\r" },
    });
    await until(() => polled("answer y"), { timeoutMs: 10_000, message: '"answer y" in a poll' });

    expect(await client.prompt(`keys ${id} Entr`)).toBe("end_turn");
    expect(
      client.updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1),
    ).toMatchObject({ status: "failed" });
    expect(messageText(client.updates)).toMatch(/keys failed: .*Entr.*Enter/);

    expect(await client.prompt(`keys ${id} C-c`)).toBe("end_turn");
    const exit = await client.waitFor((u) => facts([u])[0]?.event === "exit", "the exit after C-c");
    const ended = facts([exit])[0]!;
    expect(ended).toMatchObject({ id, status: "failed" });
    expect(ended.signal === "SIGINT" || ended.exitCode === 130, JSON.stringify(ended)).toBe(true);
  });

  it("kill --signal sends the chosen signal (a name acp-process does not know is refused); run --idle stops a silent command", async () => {
    const client = await start();
    await client.prompt(
      `bg trap 'echo "caught INT"; exit 130' INT; echo ready; while :; do sleep 0.05; done`,
    );
    const id = facts(client.updates).find((f) => f.event === "started")!.id as string;
    expect(await client.prompt(`kill --signal SIGBOGUS ${id}`)).toBe("end_turn");
    expect(
      client.updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1),
    ).toMatchObject({ status: "failed" });
    expect(messageText(client.updates)).toMatch(/kill failed: .*SIGBOGUS/);
    expect(await client.prompt(`kill --signal sigint ${id}`)).toBe("end_turn");
    const exit = await client.waitFor(
      (u) => facts([u])[0]?.event === "exit",
      "the exit after SIGINT",
    );
    expect(facts([exit])[0]).toMatchObject({ id, status: "killed", exitCode: 130 });
    await client.prompt(`poll ${id}`);
    expect(contentText(client.updates.at(-1)!)).toContain("caught INT");

    expect(await client.prompt("run --idle 0.3 echo started; sleep 10")).toBe("end_turn");
    expect(
      client.updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1),
    ).toMatchObject({
      status: "failed",
      rawOutput: { status: "timed_out", cause: "inactivity" },
    });
  });

  it("stops the tour and its runs on session/cancel (stop reason cancelled)", async () => {
    const client = await start();
    const turn = client.prompt("demo");
    await client.waitFor(
      (u) => facts([u])[0]?.event === "started",
      "the tour's background build to start",
    );
    await client.cancel();
    expect(await turn).toBe("cancelled");
    const started = facts(client.updates)
      .filter((f) => f.event === "started")
      .map((f) => f.id);
    await client.waitFor(
      (u) => facts([u])[0]?.event === "exit",
      "the build's exit after the cancel",
    );
    expect(
      facts(client.updates)
        .filter((f) => f.event === "exit")
        .map((f) => f.id),
    ).toEqual(started);
    expect(facts(client.updates).some((f) => f.event === "tour_complete")).toBe(false);
  });

  it("stops its local processes when it is terminated by a signal", async () => {
    const client = await start();
    await client.prompt("bg sleep 30");
    expect(markedPids(mark).length).toBeGreaterThan(1); // the agent and its sleep
    expect(await client.signal("SIGTERM")).toBe(143);
    // afterEach: nothing marked is left, though the sleep led a process group of its own
  });

  it("answers an unknown command with the list of commands (end_turn, not an error)", async () => {
    const client = await start();
    expect(await client.prompt("make coffee")).toBe("end_turn");
    const text = messageText(client.updates);
    expect(text).toContain("Unknown command: make.");
    for (const name of [
      "run",
      "bg",
      "send",
      "keys",
      "poll",
      "log",
      "kill",
      "list",
      "watch",
      "help",
      "demo",
    ]) {
      expect(text).toMatch(new RegExp(`^${name}\\b`, "m"));
    }
  });

  it("says what is wrong with an unknown run id, as a failed tool call", async () => {
    const client = await start();
    expect(await client.prompt("poll run_nope")).toBe("end_turn");
    expect(client.updates.find((u) => u.sessionUpdate === "tool_call_update")).toMatchObject({
      status: "failed",
    });
    expect(messageText(client.updates)).toContain('No run "run_nope"');
  });
});
