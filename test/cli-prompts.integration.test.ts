/**
 * Where `acp-terminal run` takes its prompts from, against a real agent process (the session agent
 * fixture, which logs every prompt it gets): piped stdin is one prompt, `--lines` one a line,
 * `-f FILE` / `-f -`, a prompt argument followed by piped stdin, and the bounds of a prompt read
 * whole.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAllStarted, nodeAgent, startCli } from "./fixtures/cli-process.js";

const AGENT = fileURLToPath(new URL("./fixtures/session-agent.mjs", import.meta.url));
let dir = "";

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-prompts-"));
});

afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

/** The prompts the session agent was sent, in order. */
function promptsSent(stderr: string): string[] {
  return [...stderr.matchAll(/^session-agent: session\/prompt (.*)$/gm)].map(
    (m) => (JSON.parse(m[1]!) as { text: string }).text,
  );
}

function run(args: string[], input?: string) {
  return startCli(["run", "--agent", nodeAgent(AGENT), ...args], {
    cwd: dir,
    ...(input === undefined ? {} : { input }),
  }).result(30_000);
}

describe("prompts", () => {
  it("piped stdin is one prompt, its lines kept, the trailing line break dropped", async () => {
    const { code, stdout, stderr } = await run([], "say Review this diff:\n+added\n-removed\n");
    expect(code, stderr).toBe(0);
    expect(promptsSent(stderr)).toEqual(["say Review this diff:\n+added\n-removed"]);
    expect(stdout).toContain("Review this diff:\n+added\n-removed\n");
  });

  it("--lines keeps one turn per line, blank lines skipped", async () => {
    const { code, stderr } = await run(["--lines"], "say a\n\nsay b\n");
    expect(code, stderr).toBe(0);
    expect(promptsSent(stderr)).toEqual(["say a", "say b"]);
    expect(stderr).toMatch(/── end_turn · [^\n]*\n[^]*── end_turn · [^\n]*\n/);
  });

  it("-f FILE sends the file's text as one prompt, after the argument when one is given; stdin is not read", async () => {
    const file = path.join(dir, "prompt.md");
    await writeFile(file, "line one\nline two\n");
    const alone = await run(["-f", file], "never sent\n");
    expect(alone.code, alone.stderr).toBe(0);
    expect(promptsSent(alone.stderr)).toEqual(["line one\nline two"]);
    const after = await run(["--file", "prompt.md", "say Look:"]);
    expect(after.code, after.stderr).toBe(0);
    expect(promptsSent(after.stderr)).toEqual(["say Look:\n\nline one\nline two"]);
  });

  it("-f - reads stdin whole", async () => {
    const { code, stderr } = await run(["-f", "-"], "say x\ny\n");
    expect(code, stderr).toBe(0);
    expect(promptsSent(stderr)).toEqual(["say x\ny"]);
  });

  it("a prompt argument and piped stdin make one prompt, the argument first", async () => {
    const { code, stderr } = await run(["say Review:"], "+added\n-removed\n");
    expect(code, stderr).toBe(0);
    expect(promptsSent(stderr)).toEqual(["say Review:\n\n+added\n-removed"]);
  });

  it("a prompt argument with stdin left open and silent goes alone after 3 s, saying so", async () => {
    const cli = startCli(["run", "--agent", nodeAgent(AGENT), "say alone"], {
      cwd: dir,
      input: "open",
    });
    await cli.waitForStderr(/nothing came on stdin within 3 s/);
    await cli.waitForStderr(/session-agent: session\/prompt/);
    cli.child.stdin.end();
    const { code, stderr } = await cli.result(30_000);
    expect(code, stderr).toBe(0);
    expect(promptsSent(stderr)).toEqual(["say alone"]);
  });

  it("refuses, naming the cause, a prompt over 1 MiB, one that is not UTF-8, a missing file, and --lines with an argument", async () => {
    const huge = await run([], `say ${"x".repeat(1024 * 1024)}\n`);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toContain("The prompt in stdin is longer than 1048576 bytes");
    expect(promptsSent(huge.stderr)).toEqual([]);
    const binary = path.join(dir, "binary");
    await writeFile(binary, Buffer.from([0x73, 0x61, 0x79, 0x20, 0xff, 0xfe]));
    const notText = await run(["-f", binary]);
    expect(notText.code).toBe(1);
    expect(notText.stderr).toContain(`The prompt in ${binary} (-f) is not UTF-8 text`);
    const missing = await run(["-f", "nope.md"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `Cannot read the prompt file ${path.join(dir, "nope.md")} (-f): ENOENT`,
    );
    const both = await run(["--lines", "say hi"], "say there\n");
    expect(both.code).toBe(1);
    expect(both.stderr).toContain("--lines reads the prompts from stdin, one a line");
    const none = await run([], "\n\n");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("Missing prompt");
  });
});
