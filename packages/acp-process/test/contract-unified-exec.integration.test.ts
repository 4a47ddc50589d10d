// Unified exec in Codex's shape (exec_command, write_stdin; read_output for what a cut left out),
// over both providers: the local TerminalHost and a client's terminals over ACP.
import { describe, expect, it } from "vitest";
import { execCommandTool, readOutputTool, writeStdinTool } from "../src/tools.js";
import { clampYield } from "../src/tools/unified-exec/unified-sessions.js";
import { contractProviders, contractRigs, expectNoneLeft } from "./tool-contract-support.js";

const MARKER = `contract-unified-${process.pid}`;
expectNoneLeft(MARKER);
const marked = (command: string) => `${command}; : ${MARKER}`;
const SEQ = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join("");

describe("the yield clamp (Codex's numbers)", () => {
  it("clamps a yield to 250..30000 ms, and an empty write_stdin's to 5000..300000 ms", () => {
    expect([1, 250, 1000, 30_000, 100_000].map((ms) => clampYield(ms, false))).toEqual([
      250, 250, 1000, 30_000, 30_000,
    ]);
    expect([1, 5000, 60_000, 300_000, 1e9].map((ms) => clampYield(ms, true))).toEqual([
      5000, 5000, 60_000, 300_000, 300_000,
    ]);
  });
});

describe.each(contractProviders())("unified exec, %s provider", (name, setup) => {
  const { call, refusal } = contractRigs(setup);
  const local = name === "local";

  it("exec_command answers a command that ends within the yield with exit_code, output, wall time, chunk id and original token count, and no session id", async () => {
    const done = await call(execCommandTool, { cmd: marked("echo hi; exit 3") });
    expect(done).toEqual({
      chunk_id: expect.stringMatching(/^[0-9a-f]{6}$/),
      wall_time_seconds: expect.any(Number),
      exit_code: 3,
      original_token_count: 1,
      output: "hi\n",
    });
    expect(done.wall_time_seconds).toBeLessThan(5);
  });

  it("yields after the clamped yield_time_ms with a session id; write_stdin polls (empty chars) until the exit and answers what came since", async () => {
    const started = await call(execCommandTool, {
      cmd: marked("echo first; sleep 0.8; echo second"),
      login: false, // a login shell's profile can take longer than the yield
      yield_time_ms: 1, // clamped to 250
    });
    expect(started, JSON.stringify(started)).toMatchObject({
      session_id: expect.any(Number),
      output: "first\n",
    });
    expect(started.wall_time_seconds).toBeGreaterThanOrEqual(0.24);
    expect(started.exit_code).toBeUndefined();
    // An empty poll waits at least 5000 ms (clamped) but ends at the exit.
    const polled = await call(writeStdinTool, { session_id: started.session_id, yield_time_ms: 1 });
    expect(polled).toMatchObject({ exit_code: 0, output: "second\n" });
    expect(polled.wall_time_seconds).toBeLessThan(5);
    expect(polled.session_id).toBeUndefined();
    // The exit was delivered: the session is gone for write_stdin, its output is still readable.
    expect(await refusal(writeStdinTool, { session_id: started.session_id })).toMatchObject({
      code: "not_found",
      message: expect.stringMatching(/^Unknown session id \d+ \(its process exited .*read_output/),
    });
    const all = await call(readOutputTool, { session_id: started.session_id });
    expect(all).toMatchObject({
      output: "first\nsecond\n",
      offset: 0,
      next_offset: 13,
      total_bytes: 13,
    });
  });

  it("write_stdin writes chars to the command's stdin and answers with its output", async () => {
    const started = await call(execCommandTool, {
      cmd: marked('read line; echo "got $line"'),
      yield_time_ms: 500,
    });
    expect(started.session_id).toEqual(expect.any(Number));
    const answered = await call(writeStdinTool, {
      session_id: started.session_id,
      chars: "abc\n",
      yield_time_ms: 5000,
    });
    expect(answered).toMatchObject({ exit_code: 0, output: "got abc\n" });
  });

  it("python input() in a PTY (tty: true, yield 8 s) yields soon after its prompt with input_required, and write_stdin answers it", async () => {
    const started = await call(execCommandTool, {
      cmd: marked(`python3 -c "print('hello', input('name? '))"`),
      tty: true,
      login: false, // a login profile's own time is not what this measures
      yield_time_ms: 8000,
    });
    expect(started).toMatchObject({
      session_id: expect.any(Number),
      output: "name? ",
      input_required: { prompt: "name? ", detected_by: local ? "proc" : "prompt" },
    });
    // Well before the 8 s asked (python's start and the prompt's quiet included).
    expect(started.wall_time_seconds).toBeLessThan(local ? 4 : 6);
    const answered = await call(writeStdinTool, {
      session_id: started.session_id,
      chars: "bob\n",
      yield_time_ms: 5000,
    });
    expect(answered).toMatchObject({ exit_code: 0 });
    expect(answered.output).toMatch(/hello bob/);
  });

  it("holds output to max_output_tokens: head and tail, the original token count, and the read_output call that gives the middle", async () => {
    const done = await call(execCommandTool, {
      cmd: marked("seq 1 20000"),
      max_output_tokens: 500,
    });
    expect(done).toMatchObject({
      exit_code: 0,
      original_token_count: Math.ceil(SEQ.length / 4),
      original_bytes: SEQ.length,
    });
    expect(Buffer.byteLength(done.output)).toBeLessThanOrEqual(2000);
    const match =
      /(?<=^|\n)\[\.\.\. \d+ bytes \(\d+ tokens\) omitted \(output bytes \d+\.\.\d+\); read them with read_output (\{.*\}) \.\.\.\]\n/.exec(
        done.output,
      )!;
    const head = done.output.slice(0, match.index);
    const tail = done.output.slice(match.index + match[0].length);
    const middle = await call(readOutputTool, {
      ...(JSON.parse(match[1]!) as object),
      limit: done.omitted.bytes,
      max_output_tokens: 100_000,
    });
    expect(head + middle.output + tail).toBe(SEQ);
  });

  it("runs in a pager-free environment, a login shell by default, pipes unless tty", async () => {
    const env = await call(execCommandTool, {
      cmd: marked('echo "$PAGER $GIT_PAGER $GH_PAGER $TERM ${NO_COLOR} $LC_ALL [$COLORTERM]"'),
    });
    expect(env.output).toBe("cat cat cat dumb 1 C.UTF-8 []\n");
    const login = async (value?: boolean) =>
      (
        await call(execCommandTool, {
          cmd: marked("shopt -q login_shell && echo login || echo plain"),
          ...(value === undefined ? {} : { login: value }),
        })
      ).output;
    expect([await login(), await login(false)]).toEqual(["login\n", "plain\n"]);
    const tty = async (value: boolean) =>
      (
        await call(execCommandTool, {
          cmd: marked("[ -t 1 ] && echo tty || echo pipe"),
          tty: value,
        })
      ).output;
    expect([await tty(false), (await tty(true)).trim()]).toEqual(["pipe\n", "tty"]);
  });

  it("refuses unknown and foreign session ids, escalation without a policy, and unknown parameters; accepts Codex's approval fields", async () => {
    expect(await refusal(writeStdinTool, { session_id: 999_999, chars: "x" })).toMatchObject({
      code: "not_found",
      message: expect.stringMatching(
        /^Unknown session id 999999: start a command with exec_command/,
      ),
    });
    const started = await call(execCommandTool, { cmd: marked("sleep 5"), yield_time_ms: 250 });
    expect(
      await refusal(writeStdinTool, { session_id: started.session_id }, { sessionId: "another" }),
    ).toMatchObject({ code: "not_found" });
    expect(
      await refusal(execCommandTool, { cmd: "true", sandbox_permissions: "require_escalated" }),
    ).toMatchObject({ code: "unsupported" });
    expect(
      await call(execCommandTool, {
        cmd: marked("true"),
        sandbox_permissions: "use_default",
        justification: "why",
        prefix_rule: ["true"],
      }),
    ).toMatchObject({ exit_code: 0 });
    expect(await refusal(execCommandTool, { cmd: "true", timeout: 5 })).toMatchObject({
      code: "invalid_params",
    });
  });
});
