/**
 * The public agents that call `terminal/create`, replayed: sessions of claude-code-acp 0.16.2, omp
 * (@oh-my-pi/pi-coding-agent 18.2.3) and droid 0.215.0 recorded with the CLI as their client
 * (test/fixtures/terminal-agents, README there) are played back as the agent, in memory, against
 * the whole client: driver, Conversation, the CLI's own host running the commands for real, and a
 * renderer writing into buffers. What the person sees of big output is checked against what the
 * commands wrote, whatever each agent's `outputByteLimit` (32000, 51200, 1 MiB) kept.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCommand, type RunOptions } from "../src/command/args.js";
import type { ConversationInit } from "../src/conversation/conversation-init.js";
import { onePrompt } from "../src/conversation/prompts.js";
import { pickDriverOrRestart } from "../src/drivers/pick-driver.js";
import { ProtocolMemory } from "../src/drivers/protocol-memory.js";
import { ExitCode } from "../src/exit-codes.js";
import { JsonRenderer } from "../src/render/json-renderer.js";
import type { Output } from "../src/render/output.js";
import { TextRenderer } from "../src/render/text-renderer.js";
import {
  conversationOver,
  processesOf,
  recording,
  replay,
  TERMINAL_AGENTS_DIR,
  type Replay,
} from "./adapter-replay.js";

/** Where the recorded sessions ran (the recorder's placeholder): the commands run there too. */
const PROJECT = "/tmp/acp-recording/project";
const SEQ_LINES = 200_000;
const SEQ_BYTES = 1_288_895;
const numbers = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `  │ ${from + i}`);

let memoryDir: string;
beforeAll(() => {
  mkdirSync(PROJECT, { recursive: true });
  memoryDir = mkdtempSync(path.join(tmpdir(), "acp-terminal-memory-"));
});
afterAll(() => rmSync(memoryDir, { recursive: true, force: true }));

function sink(isTTY = false): Output & { text: string } {
  return {
    text: "",
    isTTY,
    columns: 80,
    write(chunk, written) {
      this.text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
      written?.();
    },
  };
}

/** `--json` lines as they come, output events counted rather than kept (a line is 100 MB). */
function jsonSink(): Output & { events: Array<Record<string, unknown>>; outputs: string[] } {
  let pending = "";
  const events: Array<Record<string, unknown>> = [];
  const outputs: string[] = [];
  return {
    events,
    outputs,
    isTTY: false,
    write(chunk, written) {
      pending += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const event = JSON.parse(line) as Record<string, unknown>;
        if (event.event === "output") {
          outputs.push(event.output as string);
          event.output = (event.output as string).length;
        }
        events.push(event);
      }
      written?.();
    },
  };
}

function optionsFor(flags: string[]): RunOptions {
  const parsed = parseCommand(
    ["run", "--agent", "replayed-agent", "--yes", ...flags, "go"],
    PROJECT,
    (base, p) => path.resolve(base, p),
  );
  if (parsed.kind !== "run") {
    throw new Error(`bad test flags: ${JSON.stringify(parsed)}`);
  }
  return parsed.options;
}

/**
 * A recorded session replayed against the whole client: each agent process of the recording is
 * one launch (a restart starts the next). Resolves once the conversation ended.
 */
async function replayed(
  name: string,
  flags: string[],
  view: ConversationInit["view"],
  options: { memory?: ProtocolMemory; interruptAt?: string } = {},
) {
  const processes = processesOf(recording(name, TERMINAL_AGENTS_DIR));
  const launches: Replay[] = [replay(processes[0]!)];
  const runOptions = optionsFor(flags);
  const picked = await pickDriverOrRestart(
    runOptions,
    {
      stream: launches[0]!.stream,
      restart: () => {
        const next = replay(processes[launches.length] ?? []);
        launches.push(next);
        return Promise.resolve(next.stream);
      },
    },
    { version: "0.0.0-test", terminalLogin: false, memory: options.memory },
    new AbortController().signal,
  );
  const conversation = conversationOver(runOptions, picked, view, onePrompt("go"));
  const done = conversation.run();
  if (options.interruptAt !== undefined) {
    await launches.at(-1)!.waitingFor(options.interruptAt);
    conversation.interrupt();
  }
  return { code: await done, launches, picked };
}

/** The piped screen of `seq 1 200000`: the first 200 lines, the marker, the last 10, the exit. */
function expectSeqScreen(text: string) {
  const lines = text.split("\n");
  const start = lines.indexOf("  │ 1");
  expect(start).toBeGreaterThan(-1);
  expect(lines.slice(start, start + 200)).toEqual(numbers(1, 200));
  const marker = lines.indexOf("  │ … 199790 lines (1288133 bytes) not shown");
  expect(marker).toBeGreaterThan(start + 199);
  expect(lines.slice(marker + 1, marker + 12)).toEqual([
    ...numbers(199_991, 200_000),
    "  └ exit 0",
  ]);
  // Nothing else of the output: no fragment of a line, no line twice.
  const shown = lines.filter((line) => line.startsWith("  │ "));
  expect(shown).toEqual([...numbers(1, 200), lines[marker]!, ...numbers(199_991, 200_000)]);
}

describe("claude-code-acp 0.16.2 (outputByteLimit 32000, the line as command, no args), replayed", () => {
  it("seq 1 200000, piped: the first lines, exactly the lines and bytes between, the last lines, the exit", async () => {
    const out = sink();
    const { code } = await replayed(
      "claude-code-acp-seq",
      ["--protocol", "v1"],
      new TextRenderer(out, sink()),
    );
    expect(code).toBe(ExitCode.ok);
    expectSeqScreen(out.text);
  });

  it("seq 1 200000, --json: create says what ran (a shell, no args, CLAUDECODE, 32000), the output events are the output byte for byte", async () => {
    const out = jsonSink();
    const { code } = await replayed(
      "claude-code-acp-seq",
      ["--protocol", "v1", "--json"],
      new JsonRenderer(out, sink()),
    );
    expect(code).toBe(ExitCode.ok);
    const create = out.events.find((e) => e.event === "create")!;
    expect(create).toMatchObject({
      command: "seq 1 200000",
      args: null,
      argv: [create.shell, "-c", "seq 1 200000"],
      cwd: PROJECT,
      env: [{ name: "CLAUDECODE" }],
      outputByteLimit: 32000,
    });
    expect(create.shell).toMatch(/\/(ba)?sh$/);
    expect(out.outputs[0]!.startsWith("1\n2\n3\n")).toBe(true);
    const output = out.outputs.join("");
    expect(output.length).toBe(SEQ_BYTES);
    expect(output).toBe(Array.from({ length: SEQ_LINES }, (_, i) => `${i + 1}\n`).join(""));
    expect(out.events.some((e) => e.skippedBytes !== undefined)).toBe(false);
  });
});

describe("omp 18.2.3 (outputByteLimit 51200, /bin/bash -l -c LINE, polls every 250 ms), replayed", () => {
  it("seq 1 200000 on a TTY: printed for good with its first 10 lines, exactly what lies between, its last 10, the exit", async () => {
    const out = sink(true);
    const { code } = await replayed(
      "omp-seq",
      ["--protocol", "v1"],
      new TextRenderer(out, sink(true)),
    );
    expect(code).toBe(ExitCode.ok);
    // Lines 11 to 199990: 89 of 3 bytes, 900 of 4, 9000 of 5, 90000 of 6, 99991 of 7.
    const between = 89 * 3 + 900 * 4 + 9000 * 5 + 90_000 * 6 + 99_991 * 7;
    expect(out.text).toContain(
      [
        ...numbers(1, 10),
        `  │ … 199980 lines (${between} bytes) not shown`,
        ...numbers(199_991, 200_000),
        "  └ exit 0",
      ].join("\n"),
    );
  });

  it("a Ctrl-C while its wait_for_exit is pending (it polled output since): the wait is answered with how the release ended sleep 30, not -32002", async () => {
    const { code, launches } = await replayed(
      "omp-cancel",
      ["--protocol", "v1"],
      new TextRenderer(sink(), sink()),
      { interruptAt: "session/cancel" },
    );
    expect(code).toBe(ExitCode.cancelled);
    // omp's terminal/wait_for_exit is its request 2 (the CLI's own session/prompt is too).
    const answer = launches[0]!.received.find((m) => "id" in m && m.id === 2 && !("method" in m));
    expect(answer).toMatchObject({ result: { exitCode: null, signal: "SIGTERM" } });
  });

  it("one line of 100 MB, piped: the line cut with its size, the exit; --json gets every byte", async () => {
    const out = sink();
    const text = await replayed("omp-line", ["--protocol", "v1"], new TextRenderer(out, sink()));
    expect(text.code).toBe(ExitCode.ok);
    expect(out.text).toContain(`  │ ${"x".repeat(399)}… (100000000 bytes)\n`);
    expect(out.text).toContain("  └ exit 0\n");
    const json = jsonSink();
    const { code } = await replayed(
      "omp-line",
      ["--protocol", "v1", "--json"],
      new JsonRenderer(json, sink()),
    );
    expect(code).toBe(ExitCode.ok);
    expect(json.events.find((e) => e.event === "create")).toMatchObject({
      command: "/bin/bash",
      args: ["-l", "-c", "head -c 100000000 /dev/zero | tr '\\0' x"],
      shell: null,
      outputByteLimit: 51200,
    });
    expect(json.outputs.reduce((sum, o) => sum + o.length, 0)).toBe(100_000_000);
    expect(json.outputs.every((o) => /^x*$/.test(o))).toBe(true);
  }, 60_000);
});

describe("droid 0.215.0 (answers the v2 offer in v1's format; outputByteLimit 1 MiB, kills exited commands), replayed", () => {
  it("the default protocol: started again with v1, remembered for its command, and seq 1 200000 shown whole and exact", async () => {
    const memory = new ProtocolMemory(path.join(memoryDir, "first", "protocols.json"));
    const out = sink();
    const { code, launches, picked } = await replayed(
      "droid-auto",
      [],
      new TextRenderer(out, sink()),
      { memory },
    );
    expect(code).toBe(ExitCode.ok);
    expect(launches).toHaveLength(2);
    expect(launches[0]!.received).toHaveLength(1); // the v2 offer, and nothing after its answer
    expect(launches[1]!.received[0]).toMatchObject({
      method: "initialize",
      params: { protocolVersion: 1 },
    });
    expect(picked.v1Because).toBe("answered the ACP v2 offer with version 2 in v1's format");
    expect(memory.recall("replayed-agent")).toMatchObject({ protocol: "v1" });
    expect(JSON.parse(readFileSync(memory.file, "utf8"))).toMatchObject({
      agents: { "replayed-agent": { protocol: "v1" } },
    });
    expectSeqScreen(out.text);
  });

  it("remembered: the next run speaks v1 at once, no offer, no restart", async () => {
    const memory = new ProtocolMemory(path.join(memoryDir, "second", "protocols.json"));
    memory.remember("replayed-agent", "answered the ACP v2 offer with version 2 in v1's format");
    const out = sink();
    const { code, launches, picked } = await replayed(
      "droid-seq",
      [],
      new TextRenderer(out, sink()),
      { memory },
    );
    expect(code).toBe(ExitCode.ok);
    expect(launches).toHaveLength(1);
    expect(launches[0]!.received[0]).toMatchObject({
      method: "initialize",
      params: { protocolVersion: 1 },
    });
    expect(picked.remembered).toBe(true);
    expectSeqScreen(out.text);
  });

  it("one line of 100 MB polled every 53 ms and killed after its exit: the line cut with its size, exit 0 (not the kill)", async () => {
    const out = sink();
    const { code } = await replayed(
      "droid-line",
      ["--protocol", "v1"],
      new TextRenderer(out, sink()),
    );
    expect(code).toBe(ExitCode.ok);
    expect(out.text).toContain(`  │ ${"x".repeat(399)}… (100000000 bytes)\n`);
    expect(out.text).toContain("  └ exit 0\n");
  }, 60_000);
});
