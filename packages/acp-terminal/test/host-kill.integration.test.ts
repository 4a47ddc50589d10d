/** Kill, signal, release and dispose with real process groups: nothing may outlive them. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { TerminalError } from "../src/core/errors.js";
import {
  fixture,
  isAlive,
  makeHost,
  node,
  outputMatching,
  owner,
  processGone,
  rejection,
} from "./host-helpers.js";

describe("kill", () => {
  it("kills the whole process group, grandchildren included", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: node, args: [fixture("grandchild.mjs")] });
    const [, pid] = await outputMatching(host, id, /grandchild (\d+)/);
    const grandchild = Number(pid);
    expect(isAlive(grandchild)).toBe(true);
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGTERM" });
    await processGone(grandchild);
    // The terminal stays readable after kill, with its final status.
    expect(host.output(owner, id)).toMatchObject({
      exitStatus: { exitCode: null, signal: "SIGTERM" },
    });
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: null, signal: "SIGTERM" });
  });

  it("sends SIGKILL after the grace to a command that ignores SIGTERM", async () => {
    const host = makeHost({ killGraceMs: 150 });
    const id = await host.create(owner, { command: node, args: [fixture("ignore-sigterm.mjs")] });
    await outputMatching(host, id, /ready/);
    const waiting = host.waitForExit(owner, id);
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGKILL" });
    expect(await waiting).toEqual({ exitCode: null, signal: "SIGKILL" });
    expect(host.output(owner, id).output).toBe("ready\ngot SIGTERM\n");
  });

  it("gives a grandchild that handles SIGTERM the grace after its parent died of SIGTERM", async () => {
    const host = makeHost({ killGraceMs: 5_000 });
    const id = await host.create(owner, {
      command: `${node} ${fixture("cleanup-on-sigterm.mjs")}; echo after`,
    });
    await outputMatching(host, id, /ready/);
    // bash dies of SIGTERM at once; node cleans up for 300 ms and its last words are kept.
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(host.output(owner, id).output).toBe("ready\ncleaned\n");
  });

  it("SIGKILLs a grandchild that ignores SIGTERM once the grace runs out, not before", async () => {
    const host = makeHost({ killGraceMs: 300 });
    const id = await host.create(owner, {
      command: `${node} ${fixture("ignore-sigterm.mjs")} & echo "bg $!"; sleep 30`,
    });
    const [, pid] = await outputMatching(host, id, /bg (\d+)/);
    await outputMatching(host, id, /ready/);
    const started = performance.now();
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(280); // the grace, for the whole group
    await processGone(Number(pid));
    expect(host.output(owner, id).output).toContain("got SIGTERM");
  });

  it("kills with the signal asked for; killing an exited terminal returns its status", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "sleep", args: ["30"] });
    expect(await host.kill(owner, id, "SIGINT")).toEqual({ exitCode: null, signal: "SIGINT" });
    expect(await host.kill(owner, id)).toEqual({ exitCode: null, signal: "SIGINT" });
    const done = await host.create(owner, { command: "exit 4" });
    await host.waitForExit(owner, done);
    expect(await host.kill(owner, done, "SIGKILL")).toEqual({ exitCode: 4, signal: null });
  });

  it("concurrent kills and waits all resolve with the same status", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "sleep", args: ["30"] });
    const results = await Promise.all([
      host.waitForExit(owner, id),
      host.kill(owner, id),
      host.kill(owner, id),
      host.userKill(id),
    ]);
    expect(new Set(results.map((r) => JSON.stringify(r)))).toEqual(
      new Set([JSON.stringify({ exitCode: null, signal: "SIGTERM" })]),
    );
  });
});

describe("signal", () => {
  it("a signal the OS refuses is signal_failed, saying what was not permitted (not the user's denial)", () => {
    const eperm = TerminalError.signalFailed(
      42,
      "SIGTERM",
      Object.assign(new Error("kill EPERM"), { code: "EPERM" }),
    );
    expect([eperm.code, eperm.message]).toEqual([
      "signal_failed",
      "Not permitted to send SIGTERM to process group 42 (EPERM): a process in it runs as another user; it may still be running. Stop it as that user, or release the terminal",
    ]);
    expect(
      TerminalError.signalFailed(42, "SIGINT", Object.assign(new Error("x"), { code: "EINVAL" }))
        .message,
    ).toBe("Sending SIGINT to process group 42 failed (EINVAL)");
  });

  it("SIGINT ends a sleep and the exit says SIGINT", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "sleep", args: ["30"] });
    await host.signal(owner, id, "SIGINT");
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: null, signal: "SIGINT" });
    expect(() => host.signal(owner, id, "SIGTERM")).toThrow(
      expect.objectContaining({
        code: "exited",
        message: expect.stringMatching(/has exited; .*Read its output, or release it$/),
      }),
    );
  });

  it("reaches the whole group and accepts short names", async () => {
    const host = makeHost();
    const id = await host.create(owner, {
      command: node,
      args: [fixture("ignore-sigterm.mjs"), "--int"],
    });
    await outputMatching(host, id, /ready/);
    await host.signal(owner, id, "int");
    await outputMatching(host, id, /got SIGINT/);
    await host.signal(owner, id, "KILL");
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: null, signal: "SIGKILL" });
  });
});

describe("release", () => {
  it("kills a running command with its group; waits pending on it resolve with how the kill ended it, one asked after is not_found", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: node, args: [fixture("grandchild.mjs")] });
    const [, pid] = await outputMatching(host, id, /grandchild (\d+)/);
    const waiting = [host.waitForExit(owner, id), host.waitForExit(owner, id)];
    const exits: unknown[] = [];
    host.on("exit", ({ exitStatus }) => exits.push(exitStatus));
    await host.release(owner, id);
    for (const wait of waiting) {
      expect(await wait).toEqual({ exitCode: null, signal: "SIGTERM" });
    }
    expect((await rejection(host.waitForExit(owner, id))).code).toBe("not_found");
    await processGone(Number(pid));
    expect(exits).toEqual([{ exitCode: null, signal: "SIGTERM" }]);
    expect(() => host.output(owner, id)).toThrow(expect.objectContaining({ code: "not_found" }));
    expect(host.list()).toEqual([]);
  });

  it("a connection closing (releaseAll) rejects the waits pending on its terminals at once: nobody is left to answer", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "sleep", args: ["30"] });
    const waiting = rejection(host.waitForExit(owner, id));
    await host.releaseAll({ connectionId: owner.connectionId });
    expect((await waiting).code).toBe("not_found");
  });

  it("gives what an exited command left in its group SIGTERM and the grace before SIGKILL", async () => {
    const markerDir = mkdtempSync(join(tmpdir(), "acp-kill-"));
    onTestFinished(() => rmSync(markerDir, { recursive: true, force: true }));
    const marker = join(markerDir, "marker");
    // The drain grace outlasts the background node's start, so its "ready" (SIGTERM handler in place) is read.
    const host = makeHost({ killGraceMs: 5_000, exitDrainGraceMs: 1_000 });
    const id = await host.create(owner, {
      command: `${node} ${fixture("cleanup-on-sigterm.mjs")} ${marker} & echo "bg $!"`,
    });
    await outputMatching(host, id, /ready/);
    await host.waitForExit(owner, id);
    const [, pid] = host.output(owner, id).output.match(/bg (\d+)/) ?? [];
    await host.release(owner, id);
    await processGone(Number(pid));
    expect(readFileSync(marker, "utf8")).toBe("cleaned\n");
  });

  it("leaves no grandchild when the parent already exited", async () => {
    const host = makeHost();
    const id = await host.create(owner, {
      command: node,
      args: [fixture("grandchild.mjs"), "--exit"],
    });
    await host.waitForExit(owner, id);
    const [, pid] = host.output(owner, id).output.match(/grandchild (\d+)/) ?? [];
    expect(isAlive(Number(pid))).toBe(true);
    await host.release(owner, id);
    await processGone(Number(pid));
  });
});

describe("dispose", () => {
  it("kills and releases everything, rejects pending waits, and is idempotent", async () => {
    const host = makeHost({ killGraceMs: 100 });
    const ids = await Promise.all([
      host.create(owner, { command: node, args: [fixture("grandchild.mjs")] }),
      host.create(owner, { command: node, args: [fixture("ignore-sigterm.mjs")] }),
      host.create({ connectionId: "c2", sessionId: "s" }, { command: "sleep", args: ["30"] }),
    ]);
    const [, pid] = await outputMatching(host, ids[0]!, /grandchild (\d+)/);
    await outputMatching(host, ids[1]!, /ready/);
    const leaders = host.list().map((info) => info.pid ?? -1);
    const waits = ids.slice(0, 2).map((id) => rejection(host.waitForExit(owner, id)));
    const released: string[] = [];
    host.on("release", ({ terminalId }) => released.push(terminalId));
    const first = host.dispose();
    const second = host.dispose();
    expect(second).toBe(first);
    await first;
    await host[Symbol.asyncDispose]();
    for (const wait of waits) {
      expect((await wait).code).toBe("disposed");
    }
    for (const gone of [Number(pid), ...leaders]) {
      await processGone(gone);
    }
    expect(released.sort()).toEqual([...ids].sort());
    expect(host.list()).toEqual([]);
    const late = await rejection(host.create(owner, { command: "true" }));
    expect(late.code).toBe("disposed");
  });

  it("a create in flight when dispose starts is killed, never registered", async () => {
    let allow!: (value: boolean) => void;
    const host = makeHost({
      authorize: () => new Promise<boolean>((resolve) => (allow = resolve)),
    });
    const creating = host.create(owner, { command: "sleep", args: ["30"] });
    const disposing = host.dispose();
    allow(true);
    expect((await rejection(creating)).code).toBe("disposed");
    await disposing;
    expect(host.list()).toEqual([]);
  });
});
