import { describe, expect, it } from "vitest";
import type { RunSnapshot } from "acp-process";
import { describeRun, fenced } from "../src/format.js";

function run(fields: Partial<RunSnapshot>): RunSnapshot {
  return {
    status: "completed",
    exitCode: 0,
    signal: null,
    durationMs: 12,
    error: null,
    timeoutMs: 30_000,
    ...fields,
  } as RunSnapshot;
}

describe("describeRun", () => {
  it("says status, exit code or signal, and duration", () => {
    expect(describeRun(run({}))).toBe("completed, exit 0, 12 ms");
    expect(
      describeRun(
        run({
          status: "killed",
          exitCode: null,
          signal: "SIGTERM",
          error: "killed (SIGTERM): sleep 30",
        }),
      ),
    ).toBe("killed, signal SIGTERM, 12 ms");
  });

  it("names the timeout, and adds the error only where it explains a failure", () => {
    expect(
      describeRun(
        run({
          status: "timed_out",
          exitCode: null,
          signal: "SIGTERM",
          timeoutMs: 1000,
          error: "timed out after 1000 ms: x",
        }),
      ),
    ).toBe("timed_out after 1000 ms, signal SIGTERM, 12 ms");
    expect(
      describeRun(
        run({
          status: "timed_out",
          cause: "inactivity",
          exitCode: null,
          signal: "SIGTERM",
          idleTimeoutMs: 500,
        }),
      ),
    ).toBe("timed_out after 500 ms without output, signal SIGTERM, 12 ms");
    expect(
      describeRun(run({ status: "failed", exitCode: 2, error: "exited with code 2: make" })),
    ).toBe("failed, exit 2, 12 ms (exited with code 2: make)");
  });
});

describe("fenced", () => {
  it("fences text, ending it with a newline, and keeps the last maxChars characters", () => {
    expect(fenced("a\nb")).toBe("```\na\nb\n```");
    expect(fenced("")).toBe("```\n```");
    expect(fenced("0123456789", 4)).toBe("```\n…6789\n```");
    expect(fenced("x🚀🚀", 3)).toBe("```\n…🚀\n```"); // never half a rocket
  });
});
