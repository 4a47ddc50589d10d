// Results held to a token budget, on every surface and over both providers: output over
// max_output_tokens keeps its head and tail (or one of them), names its original size in bytes and
// tokens, and says how to read what it left out; that read gives exactly the missing bytes.
import { describe, expect, it } from "vitest";
import {
  execTool,
  processTool,
  processTools,
  runTool,
  shellTool,
  type ToolDefinition,
} from "../src/tools.js";
import { contractProviders, contractRigs } from "./tool-contract-support.js";

const EXPECTED = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join("");
const [processRun, , , processList, processLogs] = processTools;

/** Head, marker and tail of a cut answer; the marker's read call, parsed. */
function parts(text: string): {
  head: string;
  tail: string;
  marker: string;
  call: Record<string, unknown>;
} {
  const match =
    /(?<=^|\n)\[\.\.\. (\d+) bytes \((\d+) tokens\) omitted \(output bytes \d+\.\.\d+\); read them with \S+ (\{.*\}) \.\.\.\]\n/.exec(
      text,
    );
  if (!match) {
    throw new Error(`no marker in ${JSON.stringify(text.slice(0, 200))}`);
  }
  return {
    head: text.slice(0, match.index),
    tail: text.slice(match.index + match[0].length),
    marker: match[0],
    call: JSON.parse(match[3]!) as Record<string, unknown>,
  };
}

describe.each(contractProviders())("token budget, %s provider", (_name, setup) => {
  const { call } = contractRigs(setup);

  it("exec keeps the head and tail of a finished run's output within maxOutputTokens and names the process log call that reads the middle", async () => {
    const done = await call(execTool, { command: "seq 1 20000", maxOutputTokens: 2000 });
    expect(done).toMatchObject({
      status: "completed",
      truncated: true,
      originalBytes: EXPECTED.length,
      originalTokenCount: Math.ceil(EXPECTED.length / 4),
    });
    expect(Buffer.byteLength(done.output)).toBeLessThanOrEqual(8000);
    const { head, tail, call: read } = parts(done.output);
    expect(EXPECTED.startsWith(head) && EXPECTED.endsWith(tail)).toBe(true);
    expect(read).toMatchObject({
      action: "log",
      sessionId: done.sessionId,
      byteOffset: head.length,
    });
    const middle = await call(processTool, {
      ...read,
      byteLimit: done.omitted.bytes,
      maxOutputTokens: 100_000,
    });
    expect(head + middle.output + tail).toBe(EXPECTED);
  });

  it("keep head and keep tail keep one end only, and output within the budget is whole", async () => {
    const head = await call(execTool, {
      command: "seq 1 20000",
      maxOutputTokens: 500,
      keep: "head",
    });
    expect(head.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(parts(head.output).tail).toBe("");
    const tail = await call(execTool, {
      command: "seq 1 20000",
      maxOutputTokens: 500,
      keep: "tail",
    });
    expect(tail.output.endsWith("19999\n20000\n")).toBe(true);
    expect(parts(tail.output).head).toBe("");
    const whole = await call(execTool, { command: "seq 1 100", maxOutputTokens: 500 });
    expect(whole).toMatchObject({ output: EXPECTED.slice(0, 292), truncated: false });
    expect(whole.originalBytes).toBeUndefined();
  });

  it("shell's one-shot output and process.run's summary are cut the same way, and their read calls give the middle", async () => {
    const shell = await call(shellTool, { command: "seq 1 20000", max_output_tokens: 1000 });
    expect(shell).toMatchObject({
      original_bytes: EXPECTED.length,
      original_token_count: Math.ceil(EXPECTED.length / 4),
    });
    const cutShell = parts(shell.output);
    expect(cutShell.call).toMatchObject({
      action: "log",
      id: shell.id,
      byte_offset: cutShell.head.length,
    });
    const middle = await call(shellTool, {
      ...cutShell.call,
      byte_limit: shell.omitted.bytes,
      max_output_tokens: 100_000,
    });
    expect(cutShell.head + middle.output + cutShell.tail).toBe(EXPECTED);

    const run = await call(processRun as ToolDefinition, {
      command: "seq 1 20000",
      stdout_lines: 10_000,
      max_output_tokens: 1000,
    });
    expect(run.stdout_summary_truncated).toBe(true);
    const cutRun = parts(run.stdout_summary);
    expect(cutRun.call).toMatchObject({ id: run.process_id });
    const logs = await call(processLogs as ToolDefinition, {
      ...cutRun.call,
      limit: run.omitted.bytes,
      max_output_tokens: 100_000,
    });
    expect(EXPECTED.endsWith(cutRun.head + logs.stdout + cutRun.tail)).toBe(true);
  });

  it("a list answer over the budget lists the newest runs that fit and says how many more there are", async () => {
    for (let i = 0; i < 5; i++) {
      await call(processRun as ToolDefinition, { command: `echo ${"x".repeat(400)}` });
    }
    const listed = await call(processList as ToolDefinition, { max_output_tokens: 200 });
    expect(listed.processes.length).toBeGreaterThan(0);
    expect(listed.processes.length + listed.omitted_processes).toBe(listed.total);
    expect(listed.note).toMatch(/did not fit in max_output_tokens/);
  });

  it("every model-facing tool takes max_output_tokens (maxOutputTokens on exec/process), refusing one past 262144", async () => {
    const tools = [execTool, processTool, shellTool, ...processTools] as ToolDefinition[];
    for (const tool of tools) {
      const properties = (tool.jsonSchema as { properties: Record<string, unknown> }).properties;
      expect(Object.keys(properties), tool.name).toContain(
        tool.name === "exec" || tool.name === "process" ? "maxOutputTokens" : "max_output_tokens",
      );
    }
    const refused = await runTool(
      execTool,
      { manager: undefined as never, sessionId: "s" },
      {
        command: "true",
        maxOutputTokens: 262_145,
      },
    );
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });
});
