/**
 * The host asks its `authorize` hook before every spawn, stdin write and signal, and does nothing
 * it was refused: real commands, a recording hook that allows only creates.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AuthorizeRequest } from "../src/host/types.js";
import { isAlive, makeHost, owner, rejection } from "./host-helpers.js";

describe("authorize for writes and signals", () => {
  it("asks with the terminal's command and env; a refused write or signal does nothing", async () => {
    const asked: AuthorizeRequest[] = [];
    const host = makeHost({
      authorize: (request) => {
        asked.push(request);
        return request.action === "create" ? true : "not this";
      },
    });
    const id = await host.create(
      owner,
      { command: "cat", env: [{ name: "A", value: "1" }], stdin: true },
      { sessionCwd: "/" },
    );
    const write = await rejection(host.write(owner, id, "hi\n", { eof: true }));
    expect([write.code, write.message]).toEqual([
      "denied",
      "Denied by the user: a 3-byte write and end of input to the stdin of cat (not this)",
    ]);
    const signal = await rejection(host.signal(owner, id, "INT"));
    expect(signal.message).toBe("Denied by the user: SIGINT to cat (not this)");
    expect((await rejection(host.kill(owner, id, "SIGUSR1"))).message).toBe(
      "Denied by the user: SIGUSR1 to cat (not this)",
    );
    expect(host.output(owner, id)).toMatchObject({ output: "", totalBytes: 0 });
    expect(isAlive(host.info(id)!.pid!)).toBe(true);
    expect(asked.map((r) => r.action)).toEqual(["create", "write", "signal", "signal"]);
    expect(asked[1]).toMatchObject({
      command: "cat",
      cwd: "/",
      env: [{ name: "A", value: "1" }],
      terminalId: id,
      eof: true,
    });
    expect(asked[1]!.action === "write" && Buffer.from(asked[1]!.data).toString()).toBe("hi\n");
    // A plain kill only stops the command: not asked.
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(asked).toHaveLength(4);
    await host.dispose();
  });
});

describe("a grant that says confined", () => {
  it("runs the command in the read-only sandbox without network whatever the host's sandbox; the hook sees the session's cwd", async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "host-confined-")));
    const asked: AuthorizeRequest[] = [];
    const host = makeHost({
      sandbox: "off",
      authorize: (request) => {
        asked.push(request);
        return { allow: true, confined: true };
      },
    });
    try {
      const touch = await host.create(
        owner,
        { command: "sh", args: ["-c", `touch ${dir}/x; cat /proc/net/route | wc -l`], cwd: dir },
        { sessionCwd: dir },
      );
      expect(await host.waitForExit(owner, touch)).toEqual({ exitCode: 0, signal: null });
      expect(host.output(owner, touch).output).toMatch(/Read-only file system\n1\n$/);
      expect(existsSync(path.join(dir, "x"))).toBe(false);
      expect(asked[0]).toMatchObject({ cwd: dir, sessionCwd: dir, sandbox: "off" });
    } finally {
      await host.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
