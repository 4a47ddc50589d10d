// The exec + process tools as their specification (shared/specs/003_1b79cf6b0ac4a4f7.txt, 004_...)
// reads, over both providers. Each case says the behaviour it checks; see README "Tool surfaces".
import { describe, expect, it } from "vitest";
import { execTool, processTool, type BackgroundExitNotice } from "../src/tools.js";
import { nodeScript, until } from "./support.js";
import {
  contractProviders,
  contractRigs,
  expectNoneLeft,
  within,
} from "./tool-contract-support.js";

const MARK = "contract_exec_mark";
const marked = (command: string): string => `${command} # ${MARK}`;
expectNoneLeft(MARK);
const hang = nodeScript("process-ready-then-hang.mjs", MARK);
const hangLine = `${hang.command} ${hang.args.join(" ")}`;

const PROVIDERS = contractProviders();

describe.each(PROVIDERS)("exec + process contract over the %s provider", (_name, setup) => {
  const { use, call, refusal } = contractRigs(setup);

  describe("strict inputs", () => {
    it("exec refuses an unknown parameter, naming it, the nearest accepted name and the accepted names", async () => {
      const error = await refusal(execTool, { command: marked("pwd"), cwd: "/tmp" });
      expect(error.code).toBe("invalid_params");
      expect(error.message).toContain("`cwd` (did you mean `workdir`?)");
      expect(error.message).toContain(
        "accepted parameters: command, workdir, env, yieldMs, background, timeout, pty, elevated, host, notifyOnExit",
      );
      expect(use().manager.list()).toEqual([]);
    });

    it("process refuses an unknown parameter such as offset spelled offest", async () => {
      const error = await refusal(processTool, { action: "log", sessionId: "run_x", offest: 3 });
      expect(error).toMatchObject({
        code: "invalid_params",
        message: expect.stringContaining("did you mean `offset`?"),
      });
    });

    it("both publish additionalProperties: false in their JSON Schemas", () => {
      expect(execTool.jsonSchema).toMatchObject({ additionalProperties: false });
      expect(processTool.jsonSchema).toMatchObject({ additionalProperties: false });
    });
  });

  describe("elevated and host", () => {
    it("refuses elevated: true clearly unless the policy allows it", async () => {
      const error = await refusal(execTool, { command: marked("id -u"), elevated: true });
      expect(error).toMatchObject({
        code: "unsupported",
        message: expect.stringMatching(
          /^elevated: true is not allowed here: .*run without elevated/,
        ),
      });
      expect(use().manager.list()).toEqual([]);
      const allowed = await call(
        execTool,
        { command: marked("echo ran"), elevated: true },
        { execPolicy: { elevated: true } },
      );
      expect(allowed).toMatchObject({ status: "completed", output: "ran\n" });
      expect(
        (await call(execTool, { command: marked("echo plain"), elevated: false })).output,
      ).toBe("plain\n");
    });

    it("refuses a host unless the policy names it", async () => {
      const error = await refusal(execTool, { command: marked("hostname"), host: "gateway" });
      expect(error).toMatchObject({
        code: "unsupported",
        message: expect.stringContaining('host "gateway" is not allowed'),
      });
      const other = await refusal(
        execTool,
        { command: marked("hostname"), host: "node" },
        { execPolicy: { hosts: ["gateway"] } },
      );
      expect(other.message).toContain("the hosts allowed are gateway");
      expect(
        await call(
          execTool,
          { command: marked("echo here"), host: "gateway" },
          { execPolicy: { hosts: ["gateway"] } },
        ),
      ).toMatchObject({ output: "here\n" });
    });
  });

  describe("exec", () => {
    it("without timeout, uses the manager's defaultTimeoutMs", async () => {
      const rig = use({ manualClock: true, defaultTimeoutMs: 700 });
      const pending = call(execTool, { command: hangLine, yieldMs: 120_000 });
      const running = await until(
        () => rig.manager.list().find((r) => r.status === "running"),
        "the run",
      );
      await until(async () => (await rig.manager.read(running.id)).items.length > 0, "ready");
      rig.clock!.advance(700);
      expect(
        await within(pending, 10_000, "the timeout at the manager's 700 ms default"),
      ).toMatchObject({
        status: "timed_out",
        error: expect.stringMatching(/^timed out after 700 ms: /),
      });
    });

    it("a run moved to the background by yieldMs takes process write (its stdin is open)", async () => {
      const started = await call(execTool, {
        command: marked('read answer; echo "answer was $answer"'),
        yieldMs: 10,
        timeout: 20,
      });
      expect(started.status).toBe("running");
      await call(processTool, { action: "write", sessionId: started.sessionId, data: "yes\n" });
      const done = await call(processTool, {
        action: "wait",
        sessionId: started.sessionId,
        waitMs: 10_000,
      });
      const all =
        done.status === "running"
          ? await call(processTool, {
              action: "wait",
              sessionId: started.sessionId,
              waitMs: 10_000,
            })
          : done;
      expect(done.output + (all === done ? "" : all.output)).toBe("answer was yes\n");
    });

    it("a command reading stdin waits for input rather than seeing end-of-file, and eof ends it", async () => {
      const started = await call(execTool, {
        command: marked("cat; echo cat-ended"),
        yieldMs: 10,
        timeout: 20,
      });
      expect(started.status).toBe("running");
      await call(processTool, {
        action: "write",
        sessionId: started.sessionId,
        data: "line\n",
        eof: true,
      });
      await use().manager.wait(started.sessionId);
      const log = await call(processTool, { action: "log", sessionId: started.sessionId });
      expect(log.lines).toEqual(["line", "cat-ended"]);
    });

    it("with notifyOnExit (default), tells the agent once when a background run ends; notifyOnExit: false does not", async () => {
      const notices: BackgroundExitNotice[] = [];
      const onBackgroundExit = (notice: BackgroundExitNotice): void => void notices.push(notice);
      const told = await call(
        execTool,
        { command: marked("sleep 0.2; echo built"), background: true },
        { onBackgroundExit },
      );
      const quiet = await call(
        execTool,
        { command: marked("sleep 0.2; echo quiet"), background: true, notifyOnExit: false },
        { onBackgroundExit },
      );
      const foreground = await call(
        execTool,
        { command: marked("echo fast") },
        { onBackgroundExit },
      );
      await use().manager.wait(told.sessionId);
      await use().manager.wait(quiet.sessionId);
      await until(() => notices.length > 0, "the exit notice");
      expect(notices).toEqual([
        expect.objectContaining({
          runId: told.sessionId,
          sessionId: "s",
          status: "completed",
          exitCode: 0,
          snippet: "built\n",
          text: expect.stringMatching(/^exec run_\w+ \(sleep 0\.2\) completed with exit code 0$/),
        }),
      ]);
      expect(foreground.status).toBe("completed");
    });
  });

  describe("process list", () => {
    it("lists background sessions only, each with a derived name (verb and target)", async () => {
      const foreground = await call(execTool, { command: marked("echo quick") });
      const background = await call(execTool, { command: hangLine, background: true });
      const yielded = await call(execTool, { command: marked("sleep 5"), yieldMs: 10 });
      const listed = await call(processTool, { action: "list" });
      const ids = listed.processes.map((p: { sessionId: string }) => p.sessionId);
      expect(ids).not.toContain(foreground.sessionId);
      expect(ids.sort()).toEqual([background.sessionId, yielded.sessionId].sort());
      const byId = new Map(
        listed.processes.map((p: { sessionId: string; name: string }) => [p.sessionId, p.name]),
      );
      expect(byId.get(yielded.sessionId)).toBe("sleep 5");
      // The verb is node's base name (whatever this machine calls it), the target the script.
      expect(byId.get(background.sessionId)).toMatch(/^\S+ process-ready-then-hang\.mjs$/);
      await call(processTool, { action: "kill", sessionId: background.sessionId });
      await call(processTool, { action: "kill", sessionId: yielded.sessionId });
    });
  });

  describe("environment overrides", () => {
    for (const variable of [
      "OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS",
      "ZERO_BASH_PENDING_MAX_OUTPUT_CHARS",
    ]) {
      it(`${variable} caps the pending output one poll returns (keep tail: the newest part, the rest said skipped)`, async () => {
        const rig = use({ env: { [variable]: "1000" } });
        expect(rig.manager.limits.pendingMaxOutputChars).toBe(1000);
        const started = await call(execTool, { command: marked("seq 1 2000"), background: true });
        await rig.manager.wait(started.sessionId);
        const polled = await call(processTool, {
          action: "poll",
          sessionId: started.sessionId,
          keep: "tail",
        });
        expect(polled.output.length).toBeLessThanOrEqual(1000);
        expect(polled.output.endsWith("1999\n2000\n")).toBe(true);
        expect(polled.note).toMatch(/more than 1000 bytes were pending/);
        // What was returned and what was skipped add up to the whole output (`seq 1 2000` writes 8893 bytes); nothing is left pending.
        expect(polled.skippedBytes + Buffer.byteLength(polled.output)).toBe(8893);
        expect(
          await call(processTool, { action: "poll", sessionId: started.sessionId }),
        ).toMatchObject({ output: "" });
        // Still all there for log.
        expect(
          (
            await call(processTool, {
              action: "log",
              sessionId: started.sessionId,
              offset: 0,
              limit: 1,
            })
          ).lines,
        ).toEqual(["1"]);
      });
    }

    it("a capped poll cuts on a character boundary and counts the skipped bytes exactly, multi-byte characters included", async () => {
      const rig = use({ env: { OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS: "1001" } });
      // 500 × "é€😀": 9 UTF-8 bytes and 4 UTF-16 units each (the emoji is a surrogate pair), 4500 bytes in all.
      const started = await call(execTool, {
        command: marked("i=0; while [ $i -lt 500 ]; do printf 'é€😀'; i=$((i+1)); done"),
        background: true,
      });
      await rig.manager.wait(started.sessionId);
      const polled = await call(processTool, {
        action: "poll",
        sessionId: started.sessionId,
        keep: "tail",
      });
      expect(polled.output.length).toBeLessThanOrEqual(1001);
      expect(Buffer.from(polled.output).toString()).toBe(polled.output); // no lone surrogate
      expect(polled.output.endsWith("é€😀")).toBe(true);
      expect(polled.skippedBytes + Buffer.byteLength(polled.output)).toBe(4500);
    });

    it("a poll over maxOutputTokens keeps the head and the tail and names the bytes between, which log with byteOffset reads", async () => {
      const expected = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join("");
      const started = await call(execTool, { command: marked("seq 1 20000"), background: true });
      await use().manager.wait(started.sessionId);
      const polled = await call(processTool, {
        action: "poll",
        sessionId: started.sessionId,
        maxOutputTokens: 1000,
      });
      expect(polled).toMatchObject({
        originalBytes: expected.length,
        originalTokenCount: Math.ceil(expected.length / 4),
        skippedBytes: polled.omitted.bytes,
      });
      const [head, tail] = polled.output.split(/(?<=^|\n)\[\.\.\. .* \.\.\.\]\n/);
      expect(Buffer.byteLength(polled.output)).toBeLessThanOrEqual(4000);
      expect(expected.startsWith(head)).toBe(true);
      expect(expected.endsWith(tail)).toBe(true);
      const { offset, bytes } = polled.omitted;
      expect(offset).toBe(Buffer.byteLength(head));
      expect(polled.output).toContain(
        `read them with process {"action":"log","sessionId":"${started.sessionId}","byteOffset":${offset},"byteLimit":${Math.min(bytes, 65_536)}}`,
      );
      const rest = await call(processTool, {
        action: "log",
        sessionId: started.sessionId,
        byteOffset: offset,
        byteLimit: bytes,
        maxOutputTokens: 100_000,
      });
      expect(head + rest.output + tail).toBe(expected);
    });
  });

  describe("process wait", () => {
    it("blocks until the run ends, then answers as poll", async () => {
      const started = await call(execTool, {
        command: marked("sleep 0.3; echo finished"),
        background: true,
      });
      const result = await call(processTool, {
        action: "wait",
        sessionId: started.sessionId,
        waitMs: 15_000,
      });
      const final =
        result.status === "running"
          ? await call(processTool, {
              action: "wait",
              sessionId: started.sessionId,
              waitMs: 15_000,
            })
          : result;
      expect(final).toMatchObject({ status: "completed", exitCode: 0 });
      expect(result.output + (final === result ? "" : final.output)).toBe("finished\n");
    });

    it("returns after waitMs when nothing new happens", async () => {
      const started = await call(execTool, { command: hangLine, background: true });
      await until(
        async () =>
          (await call(processTool, { action: "poll", sessionId: started.sessionId })).output ===
          "ready\n",
        "ready",
      );
      const result = await call(processTool, {
        action: "wait",
        sessionId: started.sessionId,
        waitMs: 200,
      });
      expect(result).toMatchObject({ woke: "timeout", output: "", status: "running" });
      await call(processTool, { action: "kill", sessionId: started.sessionId });
    });

    it("refuses waitMs beyond 300000", async () => {
      expect(
        await refusal(processTool, { action: "wait", sessionId: "run_x", waitMs: 300_001 }),
      ).toMatchObject({ code: "invalid_params", message: expect.stringContaining("waitMs") });
    });
  });
});
