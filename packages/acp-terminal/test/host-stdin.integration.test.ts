/** write(): stdin of piped commands, eof, closed input, and the bound on unread input. */
import { describe, expect, it } from "vitest";
import { TerminalError } from "../src/core/errors.js";
import { fixture, makeHost, node, outputMatching, owner, rejection } from "./host-helpers.js";

describe("write", () => {
  it("writes to cat and ends its input with eof", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "cat", stdin: true });
    await host.write(owner, id, "hello\n");
    await outputMatching(host, id, /hello\n/);
    await host.write(owner, id, Uint8Array.from(Buffer.from("bytes ")));
    await host.write(owner, id, "last", { eof: true });
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, id).output).toBe("hello\nbytes last");
  });

  it("20 terminals started at once each see end-of-file when their own input ends", async () => {
    // Started together, their pipes are open in the launcher at the same time: no other
    // terminal's process may keep a stdin pipe open once its terminal ended it.
    const host = makeHost();
    const ids = await Promise.all(
      Array.from({ length: 20 }, () => host.create(owner, { command: "cat", stdin: true })),
    );
    await Promise.all(ids.map((id, i) => host.write(owner, id, `${i}`, { eof: true })));
    const exits = await Promise.all(ids.map((id) => host.waitForExit(owner, id)));
    expect(exits).toEqual(ids.map(() => ({ exitCode: 0, signal: null })));
    expect(ids.map((id) => host.output(owner, id).output)).toEqual(ids.map((_, i) => `${i}`));
  });

  it("line by line, with an eof of its own", async () => {
    const host = makeHost();
    const id = await host.create(owner, {
      command: node,
      args: [fixture("echo-lines.mjs")],
      stdin: true,
    });
    await outputMatching(host, id, /ready/);
    await host.write(owner, id, "one\ntwo\n");
    await outputMatching(host, id, /got: two/);
    await host.write(owner, id, "", { eof: true });
    await host.waitForExit(owner, id);
    expect(host.output(owner, id).output).toBe("ready\ngot: one\ngot: two\neof\n");
  });

  it("refuses input to a terminal created without stdin, after eof, and after exit", async () => {
    const host = makeHost();
    const noStdin = await host.create(owner, { command: "sleep", args: ["30"] });
    const refused = await rejection(host.write(owner, noStdin, "x"));
    expect([refused.code, refused.message]).toEqual([
      "stdin_closed",
      expect.stringMatching(/created without stdin; pass stdin: true/),
    ]);

    const ended = await host.create(owner, {
      command: node,
      args: [fixture("never-reads.mjs")],
      stdin: true,
    });
    await host.write(owner, ended, "x", { eof: true });
    const afterEof = await rejection(host.write(owner, ended, "y"));
    expect([afterEof.code, afterEof.message]).toEqual([
      "stdin_closed",
      expect.stringMatching(/ended \(eof\)/),
    ]);

    const exited = await host.create(owner, { command: "true", stdin: true });
    await host.waitForExit(owner, exited);
    const afterExit = await rejection(host.write(owner, exited, "z"));
    expect([afterExit.code, afterExit.message]).toEqual([
      "exited",
      expect.stringMatching(/Read its output, or release the terminal$/),
    ]);
  });

  it("refuses a write made right after an eof write, before that one resolved", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "cat", stdin: true });
    const ending = host.write(owner, id, "first\n", { eof: true });
    const late = rejection(host.write(owner, id, "after-eof\n"));
    await ending;
    expect([(await late).code, (await late).message]).toEqual([
      "stdin_closed",
      expect.stringMatching(/ended \(eof\)/),
    ]);
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, id).output).toBe("first\n");
  });

  it("bounds input the command never reads, and fails what is pending when it is killed", async () => {
    const maxPendingStdinBytes = 256 * 1024;
    const host = makeHost({ maxPendingStdinBytes });
    const id = await host.create(owner, {
      command: node,
      args: [fixture("never-reads.mjs")],
      stdin: true,
    });
    await outputMatching(host, id, /ready/);
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    const pending: Promise<TerminalError | undefined>[] = [];
    let refused: TerminalError | undefined;
    // Writes without waiting, as a careless caller would, until the host refuses one.
    for (let i = 0; i < 200 && !refused; i++) {
      pending.push(
        host.write(owner, id, chunk).then(
          () => undefined,
          (error: TerminalError) => (refused = error),
        ),
      );
      await new Promise((resolve) => setImmediate(resolve)); // a turn of the event loop, not a delay
    }
    expect(refused?.code).toBe("limit_reached");
    expect(refused?.message).toMatch(
      /bytes the command has not read yet \(limit 262144 bytes\): the command is not reading its input/,
    );
    // Accepted: what the OS pipe took plus at most the limit.
    const accepted = (pending.length - 1) * chunk.length;
    expect(accepted).toBeLessThanOrEqual(maxPendingStdinBytes + 1024 * 1024 + chunk.length);
    await host.kill(owner, id);
    const outcomes = await Promise.all(pending);
    const stuck = outcomes.filter((error) => error && error.code !== "limit_reached");
    expect(stuck.length).toBeGreaterThan(0);
    // The kill either closes the pipe under the write (EPIPE) or ends the terminal first.
    for (const error of stuck) {
      expect(["exited", "stdin_closed"]).toContain(error?.code);
    }
  });
});
