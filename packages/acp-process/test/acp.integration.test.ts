import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProcessManager, type RunEvent } from "../src/index.js";
import { execTool, processTool, processTools, runTool, shellTool } from "../src/tools.js";
import { acpClient, type AcpClientRig } from "./acp-support.js";
import { nodeScript, until } from "./support.js";

interface Rig {
  manager: ProcessManager;
  events: RunEvent[];
  provider: AcpClientRig["provider"];
}

function expectedChatty(lines: number, width: number): string {
  let text = "";
  for (let i = 0; i < lines; i++) {
    text += `${String(i).padStart(8, "0")} ${"x".repeat(width - 9)}\n`;
  }
  return `${text}DONE\n`;
}

async function outputOf(r: Rig, runId: string): Promise<string> {
  let text = "";
  for (let cursor = 0; ;) {
    const page = await r.manager.read(runId, { sinceSeq: cursor, limit: 1000 });
    text += page.items
      .filter((i) => i.kind === "output")
      .map((i) => i.text)
      .join("");
    cursor = page.nextSeq;
    if (page.done) {
      return text;
    }
  }
}

describe("ACP provider against our host over stdio (extensions advertised)", () => {
  let client: AcpClientRig;
  beforeAll(async () => (client = await acpClient()));
  afterAll(() => client.dispose());
  const acpRig = async (options: Parameters<AcpClientRig["managerFor"]>[0] = {}): Promise<Rig> => ({
    ...client.managerFor(options),
    provider: client.provider,
  });
  let rig: Rig;
  it("detects the extensions and runs a command with exact cursors, releasing the terminal", async () => {
    rig = await acpRig();
    expect(rig.provider.capabilities).toEqual({
      cursors: true,
      outputSince: true,
      write: true,
      pty: true,
      signal: true,
    });
    const started = await rig.manager.start({
      sessionId: "s1",
      ...nodeScript("process-chatty.mjs", "2000", "30"),
    });
    const terminalId = started.terminalId!;
    const run = await rig.manager.wait(started.id);
    expect(run.status).toBe("completed");
    expect(await outputOf(rig, run.id)).toBe(expectedChatty(2000, 30));
    await expect(rig.provider.output(terminalId)).rejects.toThrow();
  });

  it("types into a command's stdin and matches a watcher split across chunks", async () => {
    rig = await acpRig();
    const started = await rig.manager.start({
      sessionId: "s1",
      ...nodeScript("process-split-word.mjs"),
      stdin: true,
      watch: [{ regex: "READY", event: "ready", scope: "stream" }],
    });
    await until(
      () => rig.events.some((e) => e.type === "output" && e.item.text === "RE"),
      "the first half",
    );
    await rig.manager.write(started.id, "go\n");
    const run = await rig.manager.wait(started.id);
    expect(run.status).toBe("completed");
    expect(
      rig.events.filter((e) => e.type === "watch").map((e) => e.type === "watch" && e.match),
    ).toEqual(["READY"]);
  });

  it("sends SIGINT through the signal extension and reports it", async () => {
    rig = await acpRig();
    const started = await rig.manager.start({
      sessionId: "s1",
      ...nodeScript("process-ready-then-hang.mjs"),
    });
    await until(async () => (await rig.manager.read(started.id)).items.length > 0, "ready");
    const run = await rig.manager.kill(started.id, { signal: "SIGINT" });
    expect(run.status).toBe("killed");
    expect(run.signal).toBe("SIGINT");
  });

  it("resizes a PTY and the program sees the new size", async () => {
    rig = await acpRig();
    const started = await rig.manager.start({
      sessionId: "s1",
      command: "read line; stty size",
      pty: { cols: 80, rows: 24 },
    });
    expect(rig.manager.get(started.id).error).toBeNull();
    await rig.manager.resize(started.id, 100, 30);
    await rig.manager.write(started.id, "\r");
    const run = await rig.manager.wait(started.id);
    expect(run.status).toBe("completed");
    expect(rig.manager.tail(run.id).text).toMatch(/30 100/);
  });

  it("drives a shell read prompt to completion with send_keys over the wire", async () => {
    rig = await acpRig();
    const ctx = { manager: rig.manager, sessionId: "s1" };
    const spawned = await runTool(shellTool, ctx, {
      action: "spawn",
      command: "printf 'name? '; read name; echo \"hi $name\"",
      pty: true,
    });
    if (!spawned.ok) {
      throw new Error(spawned.error.message);
    }
    const id = (spawned.result as { id: string }).id;
    await until(() => rig.manager.tail(id).text.includes("name?"), "the prompt");
    const sent = await runTool(shellTool, ctx, { action: "send_keys", id, keys: ["acp", "Enter"] });
    expect(sent.ok ? "sent" : sent.error).toBe("sent");
    const run = await rig.manager.wait(id);
    expect(run.status).toBe("completed");
    expect(rig.manager.tail(id).text).toMatch(/hi acp/);
  });

  it("serves every tool surface over the wire", async () => {
    rig = await acpRig();
    const ctx = { manager: rig.manager, sessionId: "s1" };
    const ok = async (
      tool: Parameters<typeof runTool>[0],
      input: unknown,
    ): Promise<Record<string, any>> => {
      const outcome = await runTool(tool, ctx, input);
      if (!outcome.ok) {
        throw new Error(`${tool.name}: ${outcome.error.message}`);
      }
      return outcome.result as Record<string, any>;
    };
    const cat = await ok(execTool, { command: "cat", background: true });
    await ok(processTool, { action: "write", sessionId: cat.sessionId, data: "typed", eof: true });
    expect(await rig.manager.wait(cat.sessionId)).toMatchObject({ status: "completed" });
    expect(await ok(processTool, { action: "poll", sessionId: cat.sessionId })).toMatchObject({
      output: "typed",
      status: "completed",
      exitCode: 0,
    });
    expect(await ok(processTools[0], { command: "echo run; exit 4" })).toMatchObject({
      state: "completed",
      exit_code: 4,
      stdout_summary: "run\n",
    });
    expect(await ok(shellTool, { command: "echo shell" })).toMatchObject({
      status: "completed",
      output: "shell\n",
    });
  });

  it("accounts for every byte when the client's limit drops output before it is read", async () => {
    rig = await acpRig({ tuning: { outputByteLimit: 4096 } });
    const { run } = await rig.manager.run({
      sessionId: "s1",
      ...nodeScript("process-chatty.mjs", "20000", "40"),
    });
    expect(run.status).toBe("completed");
    expect(run.outputBytes + run.lostBytes).toBe(20000 * 41 + 5);
    expect(run.lostUnknown).toBe(false);
    // Every dropped byte is announced by a notice, and the notices add up to lostBytes (0 = none).
    const notices = rig.manager.store.allItems(run.id).filter((i) => i.kind === "notice");
    const announced = notices.map((n) =>
      Number(/^\[acp-process\] (\d+) bytes of output were dropped/.exec(n.text)?.[1] ?? 0),
    );
    expect(announced.reduce((a, b) => a + b, 0)).toBe(run.lostBytes);
    expect(rig.manager.tail(run.id, { maxChars: 5 }).text).toBe("DONE\n");
  });
});

describe("ACP provider against a plain client (five calls, no _meta)", () => {
  let client: AcpClientRig;
  beforeAll(async () => (client = await acpClient({ plain: true })));
  afterAll(() => client.dispose());
  const acpRig = async (options: Parameters<AcpClientRig["managerFor"]>[0] = {}): Promise<Rig> => ({
    ...client.managerFor(options),
    provider: client.provider,
  });
  let rig: Rig;
  it("offers no extensions and says so when asked for them", async () => {
    rig = await acpRig();
    expect(rig.provider.capabilities).toEqual({
      cursors: false,
      outputSince: false,
      write: false,
      pty: false,
      signal: false,
    });
    await expect(
      rig.manager.start({ sessionId: "s1", command: "true", pty: true }),
    ).rejects.toThrow(/A PTY is not available with the acp terminal provider/);
    const started = await rig.manager.start({
      sessionId: "s1",
      ...nodeScript("process-ready-then-hang.mjs"),
    });
    await expect(rig.manager.write(started.id, "x")).rejects.toThrow(
      /Writing to stdin is not available with the acp terminal provider/,
    );
    await until(async () => (await rig.manager.read(started.id)).items.length > 0, "ready");
    const run = await rig.manager.kill(started.id, { signal: "SIGINT" });
    expect(run.status).toBe("killed");
    expect(
      rig.manager.store
        .allItems(run.id)
        .some((i) => i.kind === "notice" && /SIGINT cannot be sent/.test(i.text)),
    ).toBe(true);
  });

  it("derives increments from snapshots exactly when nothing is dropped", async () => {
    rig = await acpRig();
    const { run } = await rig.manager.run({
      sessionId: "s1",
      ...nodeScript("process-chatty.mjs", "3000", "30"),
    });
    expect(run.status).toBe("completed");
    expect(await outputOf(rig, run.id)).toBe(expectedChatty(3000, 30));
    expect(run.lostUnknown).toBe(false);
  });

  it("reports loss it cannot measure, and never invents output", async () => {
    rig = await acpRig({ tuning: { outputByteLimit: 4096 } });
    const { run } = await rig.manager.run({
      sessionId: "s1",
      ...nodeScript("process-chatty.mjs", "20000", "40"),
    });
    expect(run.status).toBe("completed");
    const text = await outputOf(rig, run.id);
    expect(text.endsWith("DONE\n")).toBe(true);
    expect(run.lostUnknown).toBe(true);
    // Split the history at the loss notices: after a gap the client's tail may start mid-line.
    const segments = [""];
    for (const item of rig.manager.store.allItems(run.id)) {
      if (item.kind === "notice") {
        segments.push("");
      } else {
        segments[segments.length - 1] += item.text;
      }
    }
    expect(segments.length).toBeGreaterThan(1);
    const printed = new Set(expectedChatty(20000, 40).split("\n"));
    // Every whole line we report is a line the program printed.
    const invented = segments
      .flatMap((segment, i) => segment.split("\n").slice(i === 0 ? 0 : 1, -1))
      .filter((line) => !printed.has(line));
    expect(invented).toEqual([]);
  });
});

describe("ACP provider against a client that stops answering", () => {
  let client: AcpClientRig;
  beforeAll(async () => (client = await acpClient({ plain: true, silentCreate: true })));
  afterAll(() => client.dispose());

  it("fails the start after callWaitMs instead of hanging", async () => {
    const { manager, events } = client.managerFor({ tuning: { callWaitMs: 300 } });
    const run = await manager.start({ sessionId: "s1", command: "true" });
    expect(run.status).toBe("failed");
    expect(run.error).toBe(
      "could not start (the client did not create the terminal within 300 ms): true",
    );
    expect(events.filter((e) => e.type === "exit")).toHaveLength(1);
  });
});
