/**
 * PipeInput over a real child's stdin: closing it (an eof write) resolves however the race with
 * the command's exit goes. Node never calls `end`'s callback on a stream already closed or
 * destroyed before it finished, which once left `host.write(..., {eof: true})` pending forever.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { closeSync, openSync } from "node:fs";
import { PipeInput, PtyInput } from "../src/spawn/input.js";

const DEADLINE_MS = 5000;

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () => reject(new Error(`${what} did not settle within ${DEADLINE_MS} ms`)),
        DEADLINE_MS,
      )),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("PipeInput.endInput", () => {
  it("resolves after the command exited and its stdin was closed by Node", async () => {
    for (let i = 0; i < 20; i++) {
      const child = spawn("sh", ["-c", "echo hi"], { stdio: ["pipe", "pipe", "ignore"] });
      child.stdout.resume();
      await once(child, "close");
      await within(new PipeInput(child.stdin, 1 << 20).endInput(), `endInput #${i} after the exit`);
    }
  });

  it("resolves when the stream is destroyed before it finished", async () => {
    const child = spawn("sh", ["-c", "exec cat >/dev/null"], {
      stdio: ["pipe", "ignore", "ignore"],
    });
    const input = new PipeInput(child.stdin, 1 << 20);
    const ended = input.endInput(Buffer.from("data"));
    child.stdin.destroy();
    await expect(within(ended, "endInput with a destroy")).resolves.toBeUndefined();
    child.kill("SIGKILL");
    await once(child, "close");
  });

  it("still closes a live command's stdin: it reads end-of-file and exits", async () => {
    const child = spawn("sh", ["-c", "exec cat >/dev/null"], {
      stdio: ["pipe", "ignore", "ignore"],
    });
    const closed = once(child, "close");
    await within(
      new PipeInput(child.stdin, 1 << 20).endInput(Buffer.from("some input\n")),
      "endInput of a live command",
    );
    expect(await within(closed, "cat to exit on end-of-file")).toEqual([0, null]);
  });
});

describe("PtyInput", () => {
  it("a write the kernel is taking when the command settles resolves (the command may have read it and exited)", async () => {
    const fd = openSync("/dev/null", "w");
    try {
      const input = new PtyInput(fd, 1024, new AbortController().signal);
      const written = input.write(Buffer.from("\r"));
      const queued = expect(input.write(Buffer.from("more"))).rejects.toThrow(/has exited/);
      input.close(); // the exit, reported while the first write is with the kernel
      await expect(within(written, "the write in flight")).resolves.toBeUndefined();
      await queued;
      await expect(input.write(Buffer.from("late"))).rejects.toThrow(/has exited/);
    } finally {
      closeSync(fd);
    }
  });
});
