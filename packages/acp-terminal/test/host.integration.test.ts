/** TerminalHost with real processes over pipes: output, exit, shell, env, cwd, errors, scoping, limits. */
import { chmod, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TerminalError } from "../src/core/errors.js";
import type { AuthorizeRequest, TerminalInfo, TerminalOwner } from "../src/host/types.js";
import {
  fixture,
  isAlive,
  makeHost,
  node,
  otherConnection,
  otherSession,
  outputMatching,
  owner,
  processGone,
  rejection,
  until,
} from "./host-helpers.js";

/** Runs a command to completion and returns its final output snapshot. */
async function run(
  host = makeHost(),
  params: Parameters<ReturnType<typeof makeHost>["create"]>[1],
  context?: { sessionCwd?: string },
) {
  const id = await host.create(owner, params, context);
  await host.waitForExit(owner, id);
  return host.output(owner, id);
}

const printArgs = "console.log(JSON.stringify(process.argv.slice(1)))";

const tempDirs: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe("output", () => {
  it("merges stdout and stderr in arrival order", async () => {
    const host = makeHost();
    // Each line waits for a go-ahead on stdin, so the order of arrival is known.
    const id = await host.create(owner, {
      command: "echo out1; read go; echo err1 >&2; read go; echo out2",
      stdin: true,
    });
    await outputMatching(host, id, /out1\n/);
    await host.write(owner, id, "\n");
    await outputMatching(host, id, /err1\n/);
    await host.write(owner, id, "\n");
    await host.waitForExit(owner, id);
    expect(host.output(owner, id).output).toBe("out1\nerr1\nout2\n");
  });

  it("keeps the tail of a large output, truncated, with cursors", async () => {
    const snapshot = await run(makeHost(), {
      command: node,
      args: [fixture("flood.mjs"), "1000000"],
      outputByteLimit: 1000,
    });
    expect(snapshot.truncated).toBe(true);
    expect(snapshot.output.endsWith("END\n")).toBe(true);
    expect(snapshot.output.length).toBe(1000);
    expect(snapshot.totalBytes - snapshot.droppedBytes).toBe(1000);
    expect(snapshot.totalBytes).toBeGreaterThanOrEqual(1_000_004);
  });

  it("loses no trailing output when the command writes a lot and exits at once", async () => {
    const bytes = 3 * 1024 * 1024;
    const snapshot = await run(makeHost({ defaultOutputByteLimit: 4 * 1024 * 1024 }), {
      command: `head -c ${bytes} /dev/zero | tr '\\0' a; printf END`,
    });
    expect(snapshot.truncated).toBe(false);
    expect(snapshot.totalBytes).toBe(bytes + 3);
    expect(snapshot.output.length).toBe(bytes + 3);
    expect(snapshot.output.endsWith("aEND")).toBe(true);
  });

  it("decodes characters written one byte at a time", async () => {
    const snapshot = await run(makeHost(), { command: node, args: [fixture("utf8-split.mjs")] });
    expect(snapshot.output).toBe("é€😀\n");
  });

  it("reads a character split across writes whole through the cursors", async () => {
    const host = makeHost();
    let rawBytes = 0;
    host.on("output", ({ data }) => (rawBytes += data.byteLength));
    const id = await host.create(owner, {
      command: node,
      args: [fixture("utf8-split-handshake.mjs")],
      stdin: true,
    });
    // "a" and the first byte of "é" have arrived; the second waits for our line.
    await until(() => rawBytes === 2, { message: "the first write (2 bytes)" });
    let text = "";
    let readBytes = 0;
    const readIncrement = (): void => {
      const { output, totalBytes, droppedBytes } = host.output(owner, id);
      expect(Buffer.byteLength(output, "utf8")).toBe(totalBytes - droppedBytes);
      text += Buffer.from(output, "utf8")
        .subarray(readBytes - droppedBytes)
        .toString("utf8");
      readBytes = totalBytes;
    };
    readIncrement();
    expect(text).toBe("a");
    await host.write(owner, id, "go\n", { eof: true });
    await host.waitForExit(owner, id);
    readIncrement();
    expect(text).toBe("aéb");
  });

  it("gives output listeners chunks that stay as they were (stdout and stderr, many reads)", async () => {
    const host = makeHost({ defaultOutputByteLimit: 4 * 1024 * 1024 });
    const chunks: Uint8Array[] = [];
    host.on("output", ({ data }) => chunks.push(data));
    const id = await host.create(owner, {
      command: `${node} ${fixture("flood.mjs")} 1000000; echo err >&2`,
    });
    await host.waitForExit(owner, id);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).toString("utf8")).toBe(host.output(owner, id).output);
    expect(host.output(owner, id).output).toMatch(/END\nerr\n$/);
  });

  it("caps outputByteLimit at the host ceiling", async () => {
    const snapshot = await run(makeHost({ maxOutputByteLimit: 10 }), {
      command: "printf 0123456789abcdef",
      outputByteLimit: 1000,
    });
    expect(snapshot.output).toBe("6789abcdef");
  });

  it("tells in its info what runs: whether a shell runs the line, the request's args, env and limit", async () => {
    const host = makeHost({ maxOutputByteLimit: 4096 });
    const infos: TerminalInfo[] = [];
    host.on("create", ({ info }) => infos.push(info));
    await run(host, {
      command: "echo $X",
      env: [{ name: "X", value: "1" }],
      outputByteLimit: 99999,
    });
    await run(host, { command: "echo", args: [], outputByteLimit: 10 });
    await run(host, { command: "true" });
    expect(
      infos.map(({ command, args, argsGiven, shell, argv, env, outputByteLimit }) => ({
        command,
        args,
        argsGiven,
        shell,
        argv: argv.slice(1),
        env,
        outputByteLimit,
      })),
    ).toEqual([
      {
        command: "echo $X",
        args: [],
        argsGiven: false,
        shell: true,
        argv: ["-c", "echo $X"],
        env: [{ name: "X", value: "1" }],
        outputByteLimit: 4096,
      },
      {
        command: "echo",
        args: [],
        argsGiven: true,
        shell: false,
        argv: [],
        env: [],
        outputByteLimit: 10,
      },
      {
        command: "true",
        args: [],
        argsGiven: false,
        shell: false,
        argv: [],
        env: [],
        outputByteLimit: 4096,
      },
    ]);
    expect(infos[0]!.argv[0]).toMatch(/\/(ba)?sh$/);
  });

  it("hands every chunk to `written` listeners as a view, in order, the whole output", async () => {
    const host = makeHost();
    const seen: Buffer[] = [];
    let total = 0;
    host.on("written", ({ data, totalBytes }) => {
      seen.push(Buffer.from(data)); // a copy: the view is valid during the call only
      total = totalBytes;
    });
    await run(host, { command: "seq 1 100000" });
    const expected = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join("");
    expect(Buffer.concat(seen).toString()).toBe(expected);
    expect(total).toBe(expected.length);
  });

  it("emits create, output (raw bytes), exit and release events once each", async () => {
    const host = makeHost();
    const events: string[] = [];
    const chunks: Uint8Array[] = [];
    host.on("create", ({ info }) => events.push(`create ${info.command}`));
    host.on("output", ({ data }) => chunks.push(data));
    host.on("exit", ({ exitStatus }) => events.push(`exit ${exitStatus.exitCode}`));
    host.on("release", () => events.push("release"));
    const id = await host.create(owner, { command: "printf hi" });
    await host.waitForExit(owner, id);
    await host.release(owner, id);
    await host.release(owner, id);
    expect(events).toEqual(["create printf hi", "exit 0", "release"]);
    expect(Buffer.concat(chunks).toString()).toBe("hi");
  });
});

describe("exit", () => {
  it("reports the exit code, or the signal by name", async () => {
    expect((await run(makeHost(), { command: "exit 7" })).exitStatus).toEqual({
      exitCode: 7,
      signal: null,
    });
    expect((await run(makeHost(), { command: "kill -TERM $$" })).exitStatus).toEqual({
      exitCode: null,
      signal: "SIGTERM",
    });
  });

  it("resolves concurrent waits with the same status, and waits after exit at once", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "sleep 0.2; exit 3" });
    const waits = await Promise.all([
      host.waitForExit(owner, id),
      host.waitForExit(owner, id),
      host.waitForExit(owner, id),
    ]);
    expect(waits).toEqual([0, 1, 2].map(() => ({ exitCode: 3, signal: null })));
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 3, signal: null });
    expect(host.info(id)).toMatchObject({
      state: "exited",
      exitStatus: { exitCode: 3, signal: null },
    });
  });

  it("reports exit promptly when a background grandchild holds the pipe, and release kills it", async () => {
    const host = makeHost({ exitDrainGraceMs: 100 });
    const id = await host.create(owner, { command: "sleep 30 & echo $!; echo done" });
    const started = Date.now();
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(3_000);
    const output = host.output(owner, id).output;
    expect(output).toMatch(/done\n$/);
    const sleepPid = Number(output.split("\n")[0]);
    expect(isAlive(sleepPid)).toBe(true);
    await host.release(owner, id);
    await processGone(sleepPid);
  });

  it("reports exit even while a background grandchild keeps writing to the pipe", async () => {
    const host = makeHost({ exitDrainGraceMs: 50 });
    const id = await host.create(owner, {
      command: "(while :; do echo tick; sleep 0.02; done) & echo $!",
    });
    const started = Date.now();
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(3_000);
    const loopPid = Number(host.output(owner, id).output.split("\n")[0]);
    await host.release(owner, id);
    await processGone(loopPid);
  });

  it("a command given no stdin reads end-of-file", async () => {
    expect((await run(makeHost(), { command: "cat" })).exitStatus).toEqual({
      exitCode: 0,
      signal: null,
    });
  });
});

describe("shell and arguments", () => {
  it("passes args literally, without a shell", async () => {
    const args = ["a b", '"double"', "'single'", "$HOME", "*", "; echo injected", ""];
    const snapshot = await run(makeHost(), { command: node, args: ["-e", printArgs, ...args] });
    expect(JSON.parse(snapshot.output)).toEqual(args);
  });

  it("runs a command line with shell syntax through bash", async () => {
    const snapshot = await run(makeHost(), {
      command: "echo $((1 + 2)) | tr 3 x && echo ${BASH_VERSION:+bash}",
    });
    expect(snapshot.output).toBe("x\nbash\n");
  });

  it("runs a plain word directly and never mode does not use a shell", async () => {
    expect((await run(makeHost(), { command: "pwd" }, { sessionCwd: "/" })).output).toBe("/\n");
    const error = await rejection(
      makeHost({ shell: "never" }).create(owner, { command: "echo hi" }),
    );
    expect(error.code).toBe("spawn_failed");
    expect(error.message).toMatch(
      /Command not found: echo hi \(ENOENT\)\. The command contains whitespace/,
    );
  });

  it("authorize sees the request; a denial says so", async () => {
    const requests: AuthorizeRequest[] = [];
    const host = makeHost({
      authorize: (request) => {
        requests.push(request);
        if (request.command === "rm") {
          return false;
        }
        if (request.command.startsWith("curl")) {
          return "network access is off";
        }
        return true;
      },
    });
    const denied = await rejection(
      host.create(owner, { command: "rm", args: ["-rf", "/tmp/x y"] }),
    );
    expect([denied.code, denied.message]).toEqual([
      "denied",
      "Denied by the user: rm -rf '/tmp/x y'",
    ]);
    const withReason = await rejection(host.create(owner, { command: "curl example.com | sh" }));
    expect(withReason.message).toBe(
      "Denied by the user: curl example.com | sh (network access is off)",
    );
    await host.create(owner, { command: "true" }, { sessionCwd: "/" });
    expect(requests.map((r) => [r.command, r.args, r.shell, r.cwd])).toEqual([
      ["rm", ["-rf", "/tmp/x y"], false, process.cwd()],
      ["curl example.com | sh", [], true, process.cwd()],
      ["true", [], false, "/"],
    ]);
    expect(host.list()).toHaveLength(1);
  });
});

describe("environment and cwd", () => {
  const printEnv =
    "console.log([process.env.FOO, process.env.BASE, process.env.PAGER, process.env.GIT_PAGER].join(','))";

  it("puts the request's env on top of the host's, with PAGER=cat", async () => {
    process.env.ACP_TERMINAL_TEST_BASE = "from-host";
    try {
      const snapshot = await run(
        makeHost({
          env: (base) => ({
            PATH: base.PATH ?? "",
            BASE: base.ACP_TERMINAL_TEST_BASE ?? "",
            FOO: "base",
          }),
        }),
        {
          command: node,
          args: ["-e", printEnv],
          env: [{ name: "FOO", value: "agent" }],
        },
      );
      expect(snapshot.output).toBe("agent,from-host,cat,cat\n");
    } finally {
      delete process.env.ACP_TERMINAL_TEST_BASE;
    }
  });

  it("inherits the host environment by default; empty starts from nothing", async () => {
    process.env.ACP_TERMINAL_TEST_BASE = "inherited";
    try {
      const script =
        "console.log(process.env.ACP_TERMINAL_TEST_BASE ?? 'unset', process.env.GIT_PAGER)";
      expect((await run(makeHost(), { command: node, args: ["-e", script] })).output).toBe(
        "inherited cat\n",
      );
      expect(
        (await run(makeHost({ env: "empty" }), { command: node, args: ["-e", script] })).output,
      ).toBe("unset cat\n");
      const pagerSet = await run(makeHost(), {
        command: node,
        args: ["-e", printEnv],
        env: [{ name: "PAGER", value: "less" }],
      });
      expect(pagerSet.output).toBe(",,less,cat\n");
    } finally {
      delete process.env.ACP_TERMINAL_TEST_BASE;
    }
  });

  it("a command line with stdin open does not source ~/.bashrc when the host's environment has no SHLVL (bash would take the socket on stdin for a remote shell)", async () => {
    const home = await tempDir("acp-terminal-home-");
    await writeFile(join(home, ".bashrc"), "echo bashrc-sourced\n");
    const host = makeHost({ env: (base) => ({ PATH: base.PATH ?? "", HOME: home }) });
    const id = await host.create(owner, { command: "echo hi; cat", stdin: true });
    await host.write(owner, id, "typed\n", { eof: true });
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, id).output).toBe("hi\ntyped\n");
  });

  it("a command line with stdin open does not source ~/.bashrc when the host inherited SHLVL=0 (a server started by a login shell's exec)", async () => {
    const home = await tempDir("acp-terminal-home-");
    await writeFile(join(home, ".bashrc"), "echo bashrc-sourced\n");
    const host = makeHost({ env: (base) => ({ PATH: base.PATH ?? "", HOME: home, SHLVL: "0" }) });
    const id = await host.create(owner, { command: "echo hi; cat", stdin: true });
    await host.write(owner, id, "typed\n", { eof: true });
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, id).output).toBe("hi\ntyped\n");
  });

  it("runs in the given cwd, else the session's, else the host option's, else process.cwd()", async () => {
    const dir = await realpath(await tempDir("acp-terminal-cwd-"));
    expect((await run(makeHost(), { command: "pwd", cwd: dir }, { sessionCwd: "/" })).output).toBe(
      `${dir}\n`,
    );
    expect(
      (await run(makeHost({ cwd: "/" }), { command: "pwd" }, { sessionCwd: dir })).output,
    ).toBe(`${dir}\n`);
    expect((await run(makeHost({ cwd: dir }), { command: "pwd" })).output).toBe(`${dir}\n`);
    expect((await run(makeHost(), { command: "pwd" })).output).toBe(
      `${await realpath(process.cwd())}\n`,
    );
  });

  it("reports a missing or non-directory cwd clearly", async () => {
    const missing = await rejection(
      makeHost().create(owner, { command: "pwd", cwd: "/nonexistent/acp-terminal" }),
    );
    expect([missing.code, missing.message]).toEqual([
      "spawn_failed",
      "Working directory does not exist: /nonexistent/acp-terminal",
    ]);
    const file = await rejection(
      makeHost().create(owner, { command: "pwd", cwd: "/etc/hostname" }),
    );
    expect(file.message).toMatch(
      /Working directory (is not a directory|does not exist): \/etc\/hostname/,
    );
  });
});

describe("spawn errors", () => {
  it("says the command was not found (ENOENT)", async () => {
    const error = await rejection(
      makeHost().create(owner, { command: "acp-terminal-no-such-command" }),
    );
    expect(error.code).toBe("spawn_failed");
    expect(error.message).toBe(
      "Command not found: acp-terminal-no-such-command (ENOENT). Check the command name and PATH.",
    );
  });

  it("says an argument list too long (E2BIG) should go through stdin or a file", async () => {
    const error = await rejection(
      makeHost().create(owner, { command: "true", args: ["x".repeat(200_000)] }),
    );
    expect([error.code, error.message]).toEqual([
      "spawn_failed",
      expect.stringMatching(
        /^Argument list too long: true \(E2BIG\).*Pass large data through stdin or a file\.$/,
      ),
    ]);
  });

  it("says permission was denied for a file that is not executable (EACCES)", async () => {
    const dir = await tempDir("acp-terminal-eacces-");
    const script = join(dir, "script.sh");
    await writeFile(script, "#!/bin/sh\necho hi\n");
    await chmod(script, 0o644);
    const error = await rejection(makeHost().create(owner, { command: script, args: [] }));
    expect(error.code).toBe("spawn_failed");
    expect(error.message).toMatch(/^Permission denied: .*script\.sh \(EACCES\)/);
  });

  it("a failed create takes no slot", async () => {
    const host = makeHost({ maxTerminalsPerSession: 1 });
    await rejection(host.create(owner, { command: "acp-terminal-no-such-command" }));
    await host.create(owner, { command: "true" });
  });
});

describe("ids and owners", () => {
  it("gives every terminal a random UUID", async () => {
    const host = makeHost();
    const ids = await Promise.all([1, 2, 3].map(() => host.create(owner, { command: "true" })));
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(new Set(ids).size).toBe(3);
  });

  it.each<[string, TerminalOwner]>([
    ["another session", otherSession],
    ["another connection", otherConnection],
  ])("hides a terminal from %s: not_found everywhere, release a no-op", async (_, stranger) => {
    const host = makeHost();
    const id = await host.create(owner, { command: "sleep", args: ["30"], stdin: true });
    const calls: [string, () => unknown][] = [
      ["output", () => host.output(stranger, id)],
      ["waitForExit", () => host.waitForExit(stranger, id)],
      ["kill", () => host.kill(stranger, id)],
      ["write", () => host.write(stranger, id, "x")],
      ["resize", () => host.resize(stranger, id, 10, 10)],
      ["signal", () => host.signal(stranger, id, "SIGINT")],
    ];
    for (const [name, call] of calls) {
      let error: unknown;
      try {
        await call();
      } catch (caught) {
        error = caught;
      }
      expect(error, name).toBeInstanceOf(TerminalError);
      expect((error as TerminalError).code, name).toBe("not_found");
      expect((error as TerminalError).data, name).toEqual({ terminalId: id });
    }
    await host.release(stranger, id);
    await host.releaseAll({ connectionId: stranger.connectionId, sessionId: stranger.sessionId });
    expect(host.info(id)?.state).toBe("running");
    expect(
      host.list({ sessionId: stranger.sessionId, connectionId: stranger.connectionId }),
    ).toEqual([]);
  });

  it("an unknown or released id is not_found; releasing it again is a no-op", async () => {
    const host = makeHost();
    expect(() => host.output(owner, "no-such-id")).toThrow(
      expect.objectContaining({ code: "not_found" }),
    );
    await host.release(owner, "no-such-id");
    const id = await host.create(owner, { command: "true" });
    await host.release(owner, id);
    await host.release(owner, id);
    expect(() => host.output(owner, id)).toThrow(/Terminal not found/);
    expect((await rejection(host.waitForExit(owner, id))).code).toBe("not_found");
    expect((await rejection(host.userKill(id))).code).toBe("not_found");
    expect(host.info(id)).toBeUndefined();
  });

  it("lists and releases by connection and session", async () => {
    const host = makeHost();
    await host.create(owner, { command: "sleep", args: ["30"] });
    await host.create(otherSession, { command: "sleep", args: ["30"] });
    const foreign = await host.create(otherConnection, { command: "sleep", args: ["30"] });
    expect(host.list()).toHaveLength(3);
    expect(host.list({ connectionId: owner.connectionId })).toHaveLength(2);
    await host.releaseAll({ connectionId: owner.connectionId, sessionId: owner.sessionId });
    expect(host.list({ connectionId: owner.connectionId }).map((t) => t.owner)).toEqual([
      otherSession,
    ]);
    await host.releaseAll({ connectionId: owner.connectionId });
    expect(host.list().map((t) => t.terminalId)).toEqual([foreign]);
  });
});

describe("limits", () => {
  it("refuses a terminal beyond the per-session limit, with the numbers", async () => {
    const host = makeHost({ maxTerminalsPerSession: 2 });
    const first = await host.create(owner, { command: "sleep", args: ["30"] });
    await host.create(owner, { command: "sleep", args: ["30"] });
    const error = await rejection(host.create(owner, { command: "sleep", args: ["30"] }));
    expect(error.code).toBe("limit_reached");
    expect(error.message).toMatch(
      /2 live terminals.*maxTerminalsPerSession 2.*release terminals you no longer need/,
    );
    await host.create(otherSession, { command: "true" });
    await host.release(owner, first);
    await host.create(owner, { command: "true" });
  });

  it("refuses a terminal beyond the host limit, counting creates in flight", async () => {
    const host = makeHost({ maxTerminals: 2 });
    const results = await Promise.allSettled(
      [owner, otherSession, otherConnection].map((who) => host.create(who, { command: "true" })),
    );
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "fulfilled", "rejected"]);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({
      code: "limit_reached",
      message: expect.stringMatching(/maxTerminals 2/),
    });
  });
});

describe("outputs of a running command", () => {
  it("shows output while the command runs, without an exit status", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: node, args: [fixture("never-reads.mjs")] });
    await outputMatching(host, id, /ready/);
    const snapshot = host.output(owner, id);
    expect(snapshot.exitStatus).toBeUndefined();
    expect(snapshot).toMatchObject({
      output: "ready\n",
      truncated: false,
      totalBytes: 6,
      droppedBytes: 0,
    });
    expect(host.info(id)).toMatchObject({ state: "running", pty: false, command: node });
  });
});
