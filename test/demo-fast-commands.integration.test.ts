/**
 * A command that ends at once still reaches the client's transcript with its terminal: demo-agent
 * embeds the terminal from acp-process's `onStart` hook, and the run does not release its terminal
 * before that update is sent. Checked through the `acp-terminal run` CLI over real stdio.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, killAllStarted, startCli } from "./fixtures/cli-process.js";
import { DEMO_AGENT, MARK_VARIABLE, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";

interface Line {
  type: string;
  event?: string;
  terminalId?: string;
  output?: string;
  exitStatus?: { exitCode: number | null; signal: string | null };
  update?: {
    sessionUpdate: string;
    toolCallId?: string;
    status?: string;
    content?: { type: string; terminalId?: string }[];
  };
}

let mark = "";

beforeEach(() => {
  mark = newMark(); // every process the CLI starts for this test inherits it
});

afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  await untilNoneMarked(mark);
});

async function demo(prompt: string, json: boolean): Promise<string> {
  const args = [
    "run",
    // Client terminals (the demo agent speaks v2 too, which the default would pick).
    "--protocol",
    "v1",
    "--yes",
    ...(json ? ["--json"] : []),
    "--agent",
    `'${process.execPath}' '${DEMO_AGENT}'`,
    prompt,
  ];
  const { code, stdout, stderr } = await startCli(args, {
    env: { ...process.env, [MARK_VARIABLE]: mark },
  }).result();
  expect(code, `${CLI} ${args.join(" ")}\n${stderr}`).toBe(0);
  return stdout;
}

/** The terminal embedded in the first tool call, and the index of the update that embedded it. */
function embedded(lines: Line[]): { terminalId: string; at: number } {
  const at = lines.findIndex(
    (l) =>
      l.update?.sessionUpdate.startsWith("tool_call") &&
      l.update.content?.some((c) => c.type === "terminal"),
  );
  expect(at, "a tool call update embedding a terminal").toBeGreaterThanOrEqual(0);
  return {
    terminalId: lines[at]!.update!.content!.find((c) => c.type === "terminal")!.terminalId!,
    at,
  };
}

const parse = (stdout: string): Line[] =>
  stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
const terminalEvents = (lines: Line[], terminalId: string) =>
  lines.flatMap((l, at) =>
    l.type === "terminal" && l.terminalId === terminalId ? [{ ...l, at }] : [],
  );

describe("demo-agent: instant commands keep their terminal in the transcript", () => {
  it("run true: the terminal is embedded before it is released, with its exit status", async () => {
    const lines = parse(await demo("run true", true));
    const { terminalId, at } = embedded(lines);
    const events = terminalEvents(lines, terminalId);
    expect(events.map((e) => e.event)).toEqual(["create", "exit", "release"]);
    expect(events[1]!.exitStatus).toEqual({ exitCode: 0, signal: null });
    expect(at).toBeLessThan(events[2]!.at); // the client saw it embedded while it still existed
    const final = lines.filter((l) => l.update?.sessionUpdate === "tool_call_update").at(-1)!;
    expect(final.update).toMatchObject({
      status: "completed",
      content: [{ type: "terminal", terminalId }, { type: "content" }],
    });
  });

  it("run echo: the output of an instant command is shown with its tool call", async () => {
    const lines = parse(await demo("run echo instant", true));
    const { terminalId, at } = embedded(lines);
    const events = terminalEvents(lines, terminalId);
    expect(
      events
        .filter((e) => e.event === "output")
        .map((e) => e.output)
        .join(""),
    ).toBe("instant\n");
    expect(at).toBeLessThan(events.find((e) => e.event === "release")!.at);

    const text = (await demo("run echo instant", false)).split("\n");
    // Piped, its line is printed once when it starts (pending → in_progress adds nothing), once when it ends.
    expect(text.filter((line) => line.includes("run: echo instant"))).toEqual([
      "▸ run: echo instant [pending]",
      "✓ run: echo instant [completed]",
    ]);
    const done = text.indexOf("✓ run: echo instant [completed]");
    expect(done).toBeGreaterThan(0);
    expect(text.slice(0, done)).toContain("  │ instant");
    expect(text[done + 1]).toBe("  └ exit 0");
  });

  it("bg true: a background run that ends at once is embedded too", async () => {
    const lines = parse(await demo("bg true", true));
    const { terminalId } = embedded(lines);
    expect(terminalEvents(lines, terminalId)[0]).toMatchObject({ event: "create" });
  });
});
