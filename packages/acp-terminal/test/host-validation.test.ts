import { describe, expect, it } from "vitest";
import { TerminalError } from "../src/core/errors.js";
import { MESSAGE_SAFE_OUTPUT_BYTE_LIMIT } from "../src/host/options.js";
import { TerminalHost } from "../src/host/terminal-host.js";
import type { CreateTerminalParams, TerminalHostOptions } from "../src/host/types.js";
import { makeHost, owner, rejection } from "./host-helpers.js";

function thrown(action: () => unknown): TerminalError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(TerminalError);
    return error as TerminalError;
  }
  throw new Error("expected a TerminalError");
}

describe("TerminalHost options", () => {
  it.each<[TerminalHostOptions, RegExp]>([
    [{ shell: "sometimes" as never }, /options\.shell/],
    [
      { defaultOutputByteLimit: -1 },
      /options\.defaultOutputByteLimit: expected a non-negative integer/,
    ],
    [{ maxOutputByteLimit: 1.5 }, /options\.maxOutputByteLimit/],
    [
      { defaultOutputByteLimit: 2000, maxOutputByteLimit: 1000 },
      /2000 bytes is above options\.maxOutputByteLimit \(1000 bytes\)/,
    ],
    [{ killGraceMs: -5 }, /options\.killGraceMs: expected a non-negative integer \(ms\)/],
    [{ exitDrainGraceMs: Number.NaN }, /options\.exitDrainGraceMs/],
    [{ maxTerminalsPerSession: 0 }, /options\.maxTerminalsPerSession: expected a positive integer/],
    [{ maxTerminals: -1 }, /options\.maxTerminals/],
    [{ cwd: "relative/dir" }, /options\.cwd: expected an absolute path/],
    [{ env: "some" as never }, /options\.env/],
    [{ pty: "yes" as never }, /options\.pty/],
    [{ maxPendingStdinBytes: 0 }, /options\.maxPendingStdinBytes/],
    [{ authorize: true as never }, /options\.authorize/],
    [{ killGrace: 5 } as never, /options\.killGrace: expected one of/],
  ])("rejects %j", (options, message) => {
    const error = thrown(() => new TerminalHost(options));
    expect(error.code).toBe("invalid_params");
    expect(error.message).toMatch(message);
  });

  it("has documented defaults and clamps the ceiling to what fits a 32 MiB message", () => {
    expect(new TerminalHost().limits).toEqual({
      defaultOutputByteLimit: 1024 * 1024,
      maxOutputByteLimit: MESSAGE_SAFE_OUTPUT_BYTE_LIMIT,
    });
    expect(MESSAGE_SAFE_OUTPUT_BYTE_LIMIT).toBe(Math.floor((32 * 1024 * 1024 - 64 * 1024) / 6));
    expect(new TerminalHost({ maxOutputByteLimit: 1 << 30 }).limits.maxOutputByteLimit).toBe(
      MESSAGE_SAFE_OUTPUT_BYTE_LIMIT,
    );
    expect(
      new TerminalHost({ defaultOutputByteLimit: 8 << 20 }).limits.defaultOutputByteLimit,
    ).toBe(MESSAGE_SAFE_OUTPUT_BYTE_LIMIT);
    expect(new TerminalHost({ maxOutputByteLimit: 1000 }).limits).toEqual({
      defaultOutputByteLimit: 1000,
      maxOutputByteLimit: 1000,
    });
  });
});

describe("TerminalHost parameters", () => {
  it.each<[unknown, RegExp]>([
    [{ command: "" }, /Invalid command/],
    [{ command: 42 }, /Invalid command/],
    [{ command: "   " }, /Invalid command/],
    [{ command: "echo", args: "a b" }, /Invalid args: expected an array of strings/],
    [{ command: "echo", args: ["ok", 3] }, /Invalid args\[1\]: expected a string/],
    [{ command: "echo", env: { A: "1" } }, /Invalid env: expected an array/],
    [{ command: "echo", env: [{ name: "", value: "1" }] }, /Invalid env\[0\]\.name/],
    [
      { command: "echo", env: [{ name: "A=B", value: "1" }] },
      /Invalid env\[0\]\.name: expected a non-empty name without "="/,
    ],
    [
      { command: "echo", env: [{ name: "A", value: 1 }] },
      /Invalid env\[0\]\.value: expected a string/,
    ],
    [
      { command: "echo", cwd: "relative" },
      /Invalid cwd: expected an absolute path, received "relative"/,
    ],
    [
      { command: "echo", outputByteLimit: -1 },
      /Invalid outputByteLimit: expected a non-negative integer \(bytes\)/,
    ],
    [{ command: "echo", outputByteLimit: 1.5 }, /Invalid outputByteLimit/],
    [
      { command: "echo", pty: { cols: 0 } },
      /Invalid pty\.cols: expected an integer from 1 to 1000/,
    ],
    [{ command: "echo", pty: { rows: 1001 } }, /Invalid pty\.rows/],
    [{ command: "echo", pty: "yes" }, /Invalid pty/],
    [{ command: "echo", stdin: "yes" }, /Invalid stdin: expected a boolean/],
    [null, /Invalid params/],
  ])("create rejects %j naming the field", async (params, message) => {
    const error = await rejection(makeHost().create(owner, params as CreateTerminalParams));
    expect(error.code).toBe("invalid_params");
    expect(error.message).toMatch(message);
  });

  it("rejects a bad owner, a relative session cwd and bad ids", async () => {
    const host = makeHost();
    expect(
      (await rejection(host.create({ connectionId: "", sessionId: "s" }, { command: "true" })))
        .message,
    ).toMatch(/owner\.connectionId/);
    expect(
      (await rejection(host.create(owner, { command: "true" }, { sessionCwd: "tmp" }))).message,
    ).toMatch(/context\.sessionCwd: expected an absolute path/);
    expect(thrown(() => host.output(owner, 7 as never)).message).toMatch(/Invalid terminalId/);
    expect((await rejection(host.releaseAll({} as never))).message).toMatch(
      /Invalid filter\.connectionId/,
    );
  });

  it("reports an env option function that throws or returns non-strings", async () => {
    const throwing = makeHost({
      env: () => {
        throw new Error("no env today");
      },
    });
    const error = await rejection(throwing.create(owner, { command: "true" }));
    // The host's configuration, not the agent's params: never invalid_params (-32602 on the wire).
    expect([error.code, error.message]).toEqual([
      "spawn_failed",
      expect.stringMatching(
        /^The host's env option failed: options\.env\(base\) threw: no env today\. .*fix it where the host is created$/,
      ),
    ]);
    const numbers = makeHost({ env: () => ({ A: 1 }) as never });
    const numberError = await rejection(numbers.create(owner, { command: "true" }));
    expect([numberError.code, numberError.message]).toEqual([
      "spawn_failed",
      expect.stringMatching(/returned 1 for A, not a string/),
    ]);
    const nothing = makeHost({ env: () => null as never });
    expect((await rejection(nothing.create(owner, { command: "true" }))).message).toMatch(
      /must return an object of strings/,
    );
  });

  it("quotes at most 200 characters of a received value, and says how long it was", async () => {
    const host = makeHost();
    const error = await rejection(
      host.create(owner, { command: "true", cwd: "x".repeat(2_000_000) }),
    );
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toMatch(
      /^Invalid cwd: expected an absolute path, received "x{199}… \(2000000 chars\)$/,
    );
  });

  it("rejects bad sizes and signal names on a real terminal", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "sleep", args: ["30"], pty: true });
    expect(thrown(() => host.resize(owner, id, 0, 10)).message).toMatch(
      /Invalid cols: expected an integer from 1 to 1000/,
    );
    expect(thrown(() => host.resize(owner, id, 10, 1.5)).message).toMatch(/Invalid rows/);
    expect(thrown(() => host.resize(owner, id, 1001, 10)).code).toBe("invalid_params");
    const bad = thrown(() => host.signal(owner, id, "SIGNOPE"));
    expect([bad.code, bad.message]).toEqual([
      "invalid_params",
      expect.stringMatching(/Invalid signal: expected a POSIX signal name/),
    ]);
    expect((await rejection(host.kill(owner, id, "BOGUS"))).code).toBe("invalid_params");
    expect((await rejection(host.write(owner, id, 5 as never))).message).toMatch(/Invalid data/);
  });
});
