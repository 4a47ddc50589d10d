/** PTY terminals: size, resize, plain-text rendering, input, kill. */
import { describe, expect, it } from "vitest";
import {
  fixture,
  makeHost,
  node,
  outputMatching,
  owner,
  processGone,
  rejection,
} from "./host-helpers.js";

describe("PTY", () => {
  it("gives the command the requested size, 80x24 by default", async () => {
    const host = makeHost();
    const sized = await host.create(owner, { command: "stty size", pty: { cols: 120, rows: 40 } });
    await host.waitForExit(owner, sized);
    expect(host.output(owner, sized).output).toBe("40 120\n");
    const plain = await host.create(owner, { command: "stty size", pty: true });
    await host.waitForExit(owner, plain);
    expect(host.output(owner, plain).output).toBe("24 80\n");
    expect(host.info(plain)?.pty).toBe(true);
  });

  it("runs every terminal in a PTY when the host says so, unless the request says pty: false", async () => {
    const host = makeHost({ pty: true });
    const id = await host.create(owner, { command: "test -t 1 && echo tty || echo pipe" });
    const piped = await host.create(owner, {
      command: "test -t 1 && echo tty || echo pipe",
      pty: false,
    });
    await Promise.all([host.waitForExit(owner, id), host.waitForExit(owner, piped)]);
    expect([host.output(owner, id).output, host.output(owner, piped).output]).toEqual([
      "tty\n",
      "pipe\n",
    ]);
  });

  it("names a fatal signal as pipes do: SIGABRT, not its alias SIGIOT; SIGIO, not SIGPOLL", async () => {
    const host = makeHost();
    const died = async (signal: string, pty: boolean) =>
      host.waitForExit(owner, await host.create(owner, { command: `kill -${signal} $$`, pty }));
    expect(await died("ABRT", true)).toEqual(await died("ABRT", false));
    expect(await died("ABRT", true)).toEqual({ exitCode: null, signal: "SIGABRT" });
    expect(await died("IO", true)).toEqual(await died("IO", false));
  });

  it("keeps every byte a command writes right before it exits, as its exit is reported", async () => {
    // A PTY master can still hold output when it reports the hang-up; with ~100 KB in flight at
    // the exit, a read taken for the last one lost part of it in most runs.
    const host = makeHost();
    const sizes: number[] = [];
    for (let run = 0; run < 5; run++) {
      const id = await host.create(owner, {
        command: "head -c 200000 /dev/zero | tr '\\0' x",
        pty: true,
        outputByteLimit: 1024 * 1024,
      });
      expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
      sizes.push(host.outputReader(id)!.totalBytes);
      await host.release(owner, id);
    }
    expect(sizes).toEqual([200_000, 200_000, 200_000, 200_000, 200_000]);
  });

  it("resize reaches the command (SIGWINCH)", async () => {
    const host = makeHost();
    const id = await host.create(owner, {
      command: node,
      args: [fixture("winsize.mjs")],
      pty: true,
    });
    await outputMatching(host, id, /size 80x24/);
    host.resize(owner, id, 100, 30);
    await outputMatching(host, id, /size 100x30/);
    expect(host.output(owner, id).output).toBe("size 80x24\nsize 100x30\n");
  });

  it("renders plain text: escapes stripped, carriage returns overwrite; events carry raw bytes", async () => {
    const host = makeHost();
    const raw: Uint8Array[] = [];
    host.on("output", ({ data }) => raw.push(data));
    const id = await host.create(owner, {
      command: "printf 'abc\\rX\\n\\033[31mred\\033[0m\\n10%%\\r100%%\\n'",
      pty: true,
    });
    await host.waitForExit(owner, id);
    const snapshot = host.output(owner, id);
    expect(snapshot.output).toBe("Xbc\nred\n100%\n");
    const bytes = Buffer.concat(raw);
    expect(bytes.toString()).toBe("abc\rX\r\n\u001b[31mred\u001b[0m\r\n10%\r100%\r\n");
    expect(snapshot.totalBytes).toBe(bytes.length);
  });

  it("truncated output shows no fragment of an escape sequence the cut fell into", async () => {
    const host = makeHost();
    const command = "for i in 1 2 3 4 5 6; do printf '\\033[38;5;196mred\\033[0m\\n'; done";
    const limits = [20, 21, 22, 23, 24, 25, 26, 27];
    const ids = await Promise.all(
      limits.map((outputByteLimit) => host.create(owner, { command, pty: true, outputByteLimit })),
    );
    for (const [index, id] of ids.entries()) {
      await host.waitForExit(owner, id);
      const { output, truncated } = host.output(owner, id);
      expect(truncated).toBe(true);
      expect(output, `limit ${limits[index]}`).toMatch(/^(m?r?e?d?\n)?red\n$/);
    }
  });

  it("takes input (written to the terminal) and ^D on eof", async () => {
    const host = makeHost();
    // cat under a shell: a leader that closes its stdio before exiting (coreutils do) can be
    // hung up by the master closing in between (see the README's PTY notes).
    const id = await host.create(owner, { command: 'cat; echo "cat ended $?"', pty: true });
    await host.write(owner, id, "hello\n");
    await outputMatching(host, id, /hello\nhello\n/); // the echo, then cat's copy
    await host.write(owner, id, "", { eof: true });
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, id).output).toContain("cat ended 0");
    expect((await rejection(host.write(owner, id, "late"))).code).toMatch(/exited|stdin_closed/);
  });

  it("refuses a write made right after an eof write, before that one resolved", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: 'cat; echo "cat ended $?"', pty: true });
    const ending = host.write(owner, id, "first\n", { eof: true });
    const late = rejection(host.write(owner, id, "after-eof\n"));
    await ending;
    expect((await late).code).toBe("stdin_closed");
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, id).output).not.toContain("after-eof");
  });

  it("kills the command with its group; signals arrive by name", async () => {
    const host = makeHost();
    const id = await host.create(owner, {
      command: `${node} ${fixture("grandchild.mjs")}`,
      pty: true,
    });
    const [, pid] = await outputMatching(host, id, /grandchild (\d+)/);
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGTERM" });
    await processGone(Number(pid));
    const sleeper = await host.create(owner, { command: "sleep", args: ["30"], pty: true });
    await host.signal(owner, sleeper, "SIGINT");
    expect(await host.waitForExit(owner, sleeper)).toEqual({ exitCode: null, signal: "SIGINT" });
    expect(() => host.resize(owner, sleeper, 10, 10)).toThrow(
      expect.objectContaining({ code: "exited" }),
    );
  });

  it("reports a missing command as ENOENT like pipes do", async () => {
    const error = await rejection(
      makeHost().create(owner, { command: "acp-terminal-no-such-command", pty: true }),
    );
    expect([error.code, error.message]).toEqual([
      "spawn_failed",
      "Command not found: acp-terminal-no-such-command (ENOENT). Check the command name and PATH.",
    ]);
  });

  it('finds programs without a PATH (env: "empty") in the usual system directories', async () => {
    const host = makeHost({ env: "empty" });
    const id = await host.create(owner, { command: "printf", args: ["found\\n"], pty: true });
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, id).output).toBe("found\n");
    const missing = await rejection(
      host.create(owner, { command: "no-such-program-x", args: [], pty: true }),
    );
    expect(missing.code).toBe("spawn_failed");
  });

  it("resize of a pipe terminal is not_pty", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "sleep", args: ["30"] });
    expect(() => host.resize(owner, id, 100, 30)).toThrow(
      expect.objectContaining({ code: "not_pty" }),
    );
  });
});
