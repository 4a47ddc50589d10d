import { describe, expect, it } from "vitest";
import { LocalTerminalProvider } from "../src/index.js";
import { useLocalRigs, nodeScript, until } from "./support.js";

const localRig = useLocalRigs();

describe("ProcessManager over the local TerminalHost", () => {
  it("runs a command in the foreground, keeps its output and releases the terminal", async () => {
    const rig = localRig();
    const { run, yielded } = await rig.manager.run({
      sessionId: "s",
      command: "printf 'one\\ntwo\\n'",
    });
    expect(yielded).toBe(false);
    expect(run.status).toBe("completed");
    expect(run.exitCode).toBe(0);
    expect(run.terminalId).toBeNull();
    expect(rig.host.list()).toHaveLength(0);
    const lines = await rig.manager.lines(run.id);
    expect(lines.lines).toEqual(["one", "two"]);
    expect(lines.totalLines).toBe(2);
  });

  it("reports a non-zero exit as failed with the code and the command", async () => {
    const rig = localRig();
    const { run } = await rig.manager.run({ sessionId: "s", command: "exit 3" });
    expect(run.status).toBe("failed");
    expect(run.exitCode).toBe(3);
    expect(run.error).toBe("exited with code 3: exit 3");
  });

  it("reports a command that cannot start as failed, and notifies its end once", async () => {
    const rig = localRig();
    const started = await rig.manager.start({
      sessionId: "s",
      command: "/nonexistent/program",
      args: [],
    });
    const run = await rig.manager.wait(started.id);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/could not start .*\/nonexistent\/program/);
    expect(rig.events.filter((e) => e.type === "exit")).toHaveLength(1);
  });

  it("times out on the injected clock: a state with the partial output, terminal released", async () => {
    const rig = localRig({ manualClock: true });
    const started = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ready-then-hang.mjs"),
      timeoutMs: 1500,
    });
    await until(
      async () => (await rig.manager.read(started.id)).items.some((i) => i.text.includes("ready")),
      "ready",
    );
    rig.clock!.advance(1499);
    expect(rig.manager.get(started.id).status).toBe("running");
    rig.clock!.advance(1);
    const run = await rig.manager.wait(started.id);
    expect(run.status).toBe("timed_out");
    expect(run.error).toMatch(/^timed out after 1500 ms: .*process-ready-then-hang\.mjs$/);
    expect(rig.manager.tail(run.id).text).toBe("ready\n");
    expect(rig.host.list()).toHaveLength(0);
  });

  it("times out on inactivity, measured from the last output", async () => {
    const rig = localRig({ manualClock: true });
    const started = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ready-then-hang.mjs"),
      idleTimeoutMs: 1000,
      timeoutMs: 0,
    });
    await until(async () => (await rig.manager.read(started.id)).items.length > 0, "first output");
    rig.clock!.advance(1000);
    const run = await rig.manager.wait(started.id);
    expect(run.status).toBe("timed_out");
    expect(run.cause).toBe("inactivity");
    expect(run.error).toMatch(/^no output for 1000 ms: /);
  });

  it("auto-backgrounds after yieldMs and notifies the exit exactly once", async () => {
    const rig = localRig({ manualClock: true });
    const pending = rig.manager.run({
      sessionId: "s",
      ...nodeScript("process-split-word.mjs"),
      stdin: true,
      yieldMs: 200,
    });
    await until(() => rig.manager.list().find((r) => r.status === "running"), "a running run");
    rig.clock!.advance(200);
    const { run, yielded } = await pending;
    expect(yielded).toBe(true);
    expect(run.status).toBe("running");
    await rig.manager.write(run.id, "go\n");
    const done = await rig.manager.wait(run.id);
    expect(done.status).toBe("completed");
    await rig.manager.wait(run.id);
    await rig.manager.kill(run.id);
    expect(rig.events.filter((e) => e.type === "exit" && e.run.id === run.id)).toHaveLength(1);
  });

  it("kills with a chosen signal and reports it", async () => {
    const rig = localRig();
    const started = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ready-then-hang.mjs"),
    });
    await until(
      async () =>
        rig.manager.tail(started.id).text.includes("ready") ||
        (await rig.manager.read(started.id)).items.length > 0,
      "ready",
    );
    const run = await rig.manager.kill(started.id, { signal: "SIGINT" });
    expect(run.status).toBe("killed");
    expect(run.signal).toBe("SIGINT");
    expect(run.error).toMatch(/^killed \(SIGINT\): /);
  });

  it("reads incrementally by seq cursor without gaps or repeats", async () => {
    const rig = localRig();
    const started = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-chatty.mjs", "3000", "30"),
    });
    let cursor = 0;
    let text = "";
    for (;;) {
      const page = await rig.manager.read(started.id, { sinceSeq: cursor, limit: 7 });
      expect(page.missedItems).toBe(0);
      text += page.items
        .filter((i) => i.kind === "output")
        .map((i) => i.text)
        .join("");
      cursor = page.nextSeq;
      if (page.done) {
        break;
      }
      // The local provider answers synchronously: let the host read the child's pipe.
      if (page.items.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const lines = text.split("\n").filter(Boolean);
    expect(lines).toHaveLength(3001);
    expect(lines[2999]).toMatch(/^00002999 /);
    expect(lines[3000]).toBe("DONE");
  });

  it("matches a watcher across a chunk boundary", async () => {
    const rig = localRig();
    const started = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-split-word.mjs"),
      stdin: true,
      watch: [
        { regex: "READY", event: "ready", scope: "stream", once: true },
        { regex: "^READY$", event: "line" },
      ],
    });
    await until(
      () => rig.events.some((e) => e.type === "output" && e.item.text === "RE"),
      "the first half as its own chunk",
    );
    await rig.manager.write(started.id, "go\n");
    await rig.manager.wait(started.id);
    const hits = rig.events.filter((e) => e.type === "watch");
    expect(hits.map((h) => h.type === "watch" && h.event)).toEqual(["ready", "line"]);
  });

  it("runs one at a time per session when asked, queueing the rest", async () => {
    const rig = localRig({ limits: { maxConcurrentPerSession: 1 } });
    const first = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-split-word.mjs"),
      stdin: true,
    });
    const second = await rig.manager.start({ sessionId: "s", command: "echo second" });
    const other = await rig.manager.start({ sessionId: "t", command: "echo other" });
    expect(first.status).toBe("running");
    expect(second.status).toBe("queued");
    expect(other.status).toBe("running");
    await rig.manager.write(first.id, "go\n");
    const done = await rig.manager.wait(second.id);
    expect(done.status).toBe("completed");
    expect(done.startedAtMs!).toBeGreaterThanOrEqual(rig.manager.get(first.id).endedAtMs!);
  });

  it("expires finished runs after the TTL on the injected clock", async () => {
    const rig = localRig({ manualClock: true, ttlMs: 60_000 });
    const { run } = await rig.manager.run({ sessionId: "s", command: "true" });
    rig.clock!.advance(59_999);
    expect(rig.manager.sweep()).toBe(0);
    rig.clock!.advance(1);
    expect(rig.manager.sweep()).toBe(1);
    expect(() => rig.manager.get(run.id)).toThrow(/No run/);
  });

  it("reads output by byte offset and limit, in UTF-8", async () => {
    const rig = localRig();
    const { run } = await rig.manager.run({ sessionId: "s", command: "printf 'aé€z'" });
    expect(run.outputBytes).toBe(7);
    expect(await rig.manager.bytes(run.id, { offset: 1, limit: 5 })).toMatchObject({
      text: "é€",
      offset: 1,
      totalBytes: 7,
    });
  });

  it("treats a kill after the exit as a no-op and keeps the first cause", async () => {
    const rig = localRig();
    const { run } = await rig.manager.run({ sessionId: "s", command: "exit 0" });
    const again = await rig.manager.kill(run.id, { signal: "SIGINT" });
    expect(again).toMatchObject({ status: "completed", cause: null });
    expect(rig.events.filter((e) => e.type === "exit")).toHaveLength(1);
  });

  it("does not release the terminal before onStart has finished (time to embed it in a tool call)", async () => {
    const rig = localRig();
    let embedded!: () => void;
    const seen: string[] = [];
    const started = await rig.manager.start({
      sessionId: "s",
      command: "true",
      onStart: (run) => {
        seen.push(run.terminalId!);
        return new Promise<void>((resolve) => (embedded = resolve));
      },
    });
    expect(seen).toEqual([started.terminalId]);
    await until(() => rig.events.some((e) => e.type === "exit"), "the exit");
    expect(rig.host.list().map((t) => t.terminalId)).toEqual([started.terminalId]);
    embedded();
    const run = await rig.manager.wait(started.id);
    expect(run.terminalId).toBeNull();
    expect(rig.host.list()).toHaveLength(0);
  });

  it("keeps stdin closed unless asked, so readers see end-of-file, and says how to open it", async () => {
    const rig = localRig();
    const { run } = await rig.manager.run({ sessionId: "s", command: "cat; echo after-eof" });
    expect(run).toMatchObject({ status: "completed", stdin: false });
    expect(rig.manager.tail(run.id).text).toBe("after-eof\n");
    const hang = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ready-then-hang.mjs"),
    });
    await expect(rig.manager.write(hang.id, "x")).rejects.toThrow(
      /stdin of run .* is closed: start it with stdin: true/,
    );
  });

  it("notifies exactly one exit per run when kills race exits", async () => {
    const rig = localRig();
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        rig.manager.start({ sessionId: "s", command: `echo ${i}` }),
      ),
    );
    const ended = await Promise.all(
      runs.map((run, i) =>
        i % 2 === 0 ? rig.manager.kill(run.id, { signal: "SIGTERM" }) : rig.manager.wait(run.id),
      ),
    );
    for (const run of ended) {
      expect(["completed", "killed"]).toContain(run.status);
    }
    await Promise.all(runs.map((run) => rig.manager.kill(run.id)));
    const exits = rig.events
      .filter((e) => e.type === "exit")
      .map((e) => e.type === "exit" && e.run.id);
    expect(exits.sort()).toEqual(runs.map((r) => r.id).sort());
    expect(rig.host.list()).toHaveLength(0);
  });

  it("does not hang a writer when the command never reads its input", async () => {
    const rig = localRig({ tuning: { callWaitMs: 500 } });
    const started = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ready-then-hang.mjs"),
      stdin: true,
    });
    const chunk = "x".repeat(1 << 20);
    const outcome = await (async () => {
      for (let i = 0; i < 64; i++) {
        await rig.manager.write(started.id, chunk);
      }
      return "all written";
    })().catch((error: Error) => error.message);
    expect(outcome).not.toBe("all written");
    expect(rig.manager.get(started.id).status).toBe("running");
    // Bounded by callWaitMs (500 ms) on a full pipe; room for a loaded machine.
  }, 20_000);

  it("sweeps on its own on the clock, and evicts the oldest finished run beyond maxRuns", async () => {
    const rig = localRig({ manualClock: true, ttlMs: 60_000, sweepIntervalMs: 30_000, maxRuns: 2 });
    const first = (await rig.manager.run({ sessionId: "s", command: "true" })).run;
    const second = (await rig.manager.run({ sessionId: "s", command: "true" })).run;
    const third = (await rig.manager.run({ sessionId: "s", command: "true" })).run;
    expect(
      rig.manager
        .list()
        .map((r) => r.id)
        .sort(),
    ).toEqual([second.id, third.id].sort());
    expect(() => rig.manager.get(first.id)).toThrow(/No run/);
    rig.clock!.advance(90_000);
    expect(rig.manager.list()).toHaveLength(0);
  });

  it("scopes runs to their session", async () => {
    const rig = localRig();
    const { run } = await rig.manager.run({ sessionId: "a", command: "true" });
    expect(() => rig.manager.get(run.id, { sessionId: "b" })).toThrow(/No run/);
    expect(rig.manager.list({ sessionId: "b" })).toHaveLength(0);
    expect(rig.manager.list({ sessionId: "a", status: "completed" })).toHaveLength(1);
  });

  it("keeps memory bounded under heavy output and accounts for every byte", async () => {
    const rig = localRig({ maxOutputChars: 50_000 });
    const { run } = await rig.manager.run({
      sessionId: "s",
      ...nodeScript("process-chatty.mjs", "100000", "50"),
    });
    expect(run.status).toBe("completed");
    const total = 100_000 * 51 + "DONE\n".length; // 50 characters and a newline per line
    expect(run.outputBytes + run.lostBytes).toBe(total);
    const retained = rig.manager.store.allItems(run.id).reduce((n, i) => n + i.text.length, 0);
    expect(retained).toBeLessThanOrEqual(50_000);
    expect(rig.manager.tail(run.id, { maxChars: 5 }).text).toBe("DONE\n");
  });

  // Prints the first two bytes of 🚀 (F0 9F 9A 80), waits for a line on stdin, then the other two.
  const HALF_A_ROCKET = "printf '\\360\\237'; read line; printf '\\232\\200 done\\n'";

  it("reads a running command's output while half a character is in, adding nothing to it", async () => {
    const rig = localRig();
    let received = 0;
    rig.host.on("output", ({ data }) => (received += data.byteLength));
    const started = await rig.manager.start({
      sessionId: "s",
      command: HALF_A_ROCKET,
      stdin: true,
    });
    await until(() => received === 2, "the first half of the character");
    // A reader's read asks the host for what follows the bytes pushed so far.
    await rig.manager.read(started.id);
    await rig.manager.write(started.id, "go\n");
    await rig.manager.wait(started.id);
    const { items } = await rig.manager.read(started.id);
    expect(items.filter((item) => item.kind !== "output")).toEqual([]);
    expect(items.map((item) => item.text).join("")).toBe("🚀 done\n");
  });

  it("streams a terminal that holds half a character from its first byte, each byte once", async () => {
    const rig = localRig();
    const provider = new LocalTerminalProvider(rig.host);
    let received = 0;
    rig.host.on("output", ({ data }) => (received += data.byteLength));
    const id = await provider.create({ command: HALF_A_ROCKET, stdin: true });
    await until(() => received === 2, "the first half of the character");
    const pushed: Uint8Array[] = [];
    const stream = provider.stream(id, (bytes) => pushed.push(bytes));
    expect(stream).toMatchObject({ fromByte: 0 });
    expect([...stream!.backlog]).toEqual([0xf0, 0x9f]);
    await provider.write(id, "go\n");
    await provider.waitForExit(id);
    stream!.stop();
    expect(Buffer.concat([stream!.backlog, ...pushed]).toString("utf8")).toBe("🚀 done\n");
    await provider.release(id);
  });

  it("a second concurrent dispose() resolves only after the runs the first one ends have ended", async () => {
    const rig = localRig();
    const started = await rig.manager.start({
      sessionId: "s",
      ...nodeScript("process-ready-then-hang.mjs"),
    });
    await until(
      async () => (await rig.manager.read(started.id)).items.some((i) => i.text.includes("ready")),
      "ready",
    );
    const first = rig.manager.dispose();
    await rig.manager.dispose();
    expect(rig.manager.get(started.id).status).toBe("killed");
    await first;
  });
});
