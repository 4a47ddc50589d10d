/**
 * The five ACP v1 terminal methods over real stdio: this test process is an SDK agent, the
 * terminal host runs in a child process (test/fixtures/terminal-client.mjs) with real commands.
 */
import type { TerminalOutputResponse } from "@agentclientprotocol/sdk";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAlive } from "./support/processes.js";
import {
  outputWhere,
  rejectionOf,
  startTerminalClient,
  type TerminalClientProcess,
} from "./support/terminal-client.js";
import { until } from "./support/until.js";

let peer: TerminalClientProcess;
const sessionCwd = realpathSync(tmpdir());
beforeEach(() => {
  peer = startTerminalClient({ host: { killGraceMs: 500 }, sessionCwd });
});
afterEach(async () => {
  await peer.stop();
});

const sessionId = "session-1";

describe("terminal/* over stdio", () => {
  it("advertises the terminal capability and the extensions in initialize", async () => {
    const { clientCapabilities } = await peer.initialize;
    expect(clientCapabilities?.terminal).toBe(true);
    expect(clientCapabilities?._meta?.["acp-terminal"]).toEqual({
      version: 1,
      methods: ["_acp-terminal/write", "_acp-terminal/resize", "_acp-terminal/signal"],
      cursors: true,
      outputSince: true,
      pty: true,
      stdin: true,
      containment: "process-group", // the fixture client's host uses the library default
      sandbox: { mode: "off", network: true }, // likewise
      executor: { kind: "local", target: "local" }, // likewise
    });
  });

  it("creates, reads, waits for and releases a command, with cursors in _meta", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "printf",
      args: ["%s-%s\\n", "one", "two"],
    });
    expect(terminalId).toMatch(/^[0-9a-f-]{36}$/);
    const exit = await peer.client.request("terminal/wait_for_exit", { sessionId, terminalId });
    expect(exit).toEqual({ exitCode: 0, signal: null });
    const output = await peer.client.request<TerminalOutputResponse>("terminal/output", {
      sessionId,
      terminalId,
    });
    expect(output).toEqual({
      output: "one-two\n",
      truncated: false,
      exitStatus: { exitCode: 0, signal: null },
      _meta: { "acp-terminal": { totalBytes: 8, droppedBytes: 0 } },
    });
    expect(await peer.client.request("terminal/release", { sessionId, terminalId })).toEqual({});
    const gone = await rejectionOf(
      peer.client.request<TerminalOutputResponse>("terminal/output", { sessionId, terminalId }),
    );
    expect(gone.code).toBe(-32002);
  });

  it("runs in the session's cwd unless the request gives one", async () => {
    const pwd = async (cwd?: string) => {
      const { terminalId } = await peer.client.request("terminal/create", {
        sessionId,
        command: "pwd",
        args: [],
        ...(cwd ? { cwd } : {}),
      });
      await peer.client.request("terminal/wait_for_exit", { sessionId, terminalId });
      const { output } = await peer.client.request<TerminalOutputResponse>("terminal/output", {
        sessionId,
        terminalId,
      });
      await peer.client.request("terminal/release", { sessionId, terminalId });
      return output;
    };
    expect(await pwd()).toBe(`${sessionCwd}\n`);
    expect(await pwd("/")).toBe("/\n");
  });

  it("reports a failing command's exit code and keeps the newest bytes under outputByteLimit", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sh",
      args: ["-c", "seq 1 1000; echo failing >&2; exit 3"],
      outputByteLimit: 100,
    });
    expect(await peer.client.request("terminal/wait_for_exit", { sessionId, terminalId })).toEqual({
      exitCode: 3,
      signal: null,
    });
    const output = await peer.client.request<TerminalOutputResponse>("terminal/output", {
      sessionId,
      terminalId,
    });
    expect(output.truncated).toBe(true);
    expect(Buffer.byteLength(output.output)).toBeLessThanOrEqual(100);
    expect(output.output.endsWith("1000\nfailing\n")).toBe(true);
    const cursors = output._meta?.["acp-terminal"] as { totalBytes: number; droppedBytes: number };
    expect(cursors.totalBytes).toBe(3893 + "failing\n".length);
    expect(cursors.totalBytes - cursors.droppedBytes).toBe(Buffer.byteLength(output.output));
  });

  it("answers -32002 with data.terminalId for unknown and foreign-session ids", async () => {
    const unknown = await rejectionOf(
      peer.client.request<TerminalOutputResponse>("terminal/output", {
        sessionId,
        terminalId: "00000000-0000-0000-0000-000000000000",
      }),
    );
    expect(unknown.code).toBe(-32002);
    expect(unknown.data).toEqual({ terminalId: "00000000-0000-0000-0000-000000000000" });
    expect(unknown.message).toContain("00000000-0000-0000-0000-000000000000");

    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sleep",
      args: ["30"],
    });
    for (const method of ["terminal/output", "terminal/wait_for_exit", "terminal/kill"] as const) {
      const foreign = await rejectionOf(
        peer.client.request(method, { sessionId: "session-2", terminalId }),
      );
      expect(foreign.code, method).toBe(-32002);
      expect(foreign.data, method).toEqual({ terminalId });
    }
    const write = await rejectionOf(
      peer.client.request("_acp-terminal/write", { sessionId: "session-2", terminalId, data: "x" }),
    );
    expect(write.code).toBe(-32002);
    // Releasing someone else's terminal is a no-op: it must still be running afterwards.
    expect(
      await peer.client.request("terminal/release", { sessionId: "session-2", terminalId }),
    ).toEqual({});
    const still = await peer.client.request<TerminalOutputResponse>("terminal/output", {
      sessionId,
      terminalId,
    });
    expect(still.exitStatus).toBeUndefined();
    await peer.client.request("terminal/release", { sessionId, terminalId });
  });

  it("answers -32602 naming the method and the field for bad params", async () => {
    const create = "Invalid params for terminal/create: ";
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ cwd: "relative/dir" }, "cwd", 'cwd: expected an absolute path, received "relative/dir"'],
      [
        { outputByteLimit: -1 },
        "outputByteLimit",
        "outputByteLimit: expected a non-negative integer (bytes), received -1",
      ],
      [
        { outputByteLimit: 1.5 },
        "outputByteLimit",
        "outputByteLimit: expected a non-negative integer (bytes), received 1.5",
      ],
      [
        { outputByteLimit: "10" },
        "outputByteLimit",
        'outputByteLimit: expected a non-negative integer (bytes), received "10"',
      ],
      [{ args: "-la" }, "args", 'args: expected an array of strings, received "-la"'],
      [{ args: ["ok", 2] }, "args[1]", "args[1]: expected a string, received 2"],
      [{ env: [{ name: "A" }] }, "env[0].value", "env[0].value: missing; expected a string"],
      [{ command: undefined }, "command", "command: missing; expected a non-empty command"],
      [{ command: "  " }, "command", 'command: expected a non-empty command, received "  "'],
      [{ sessionId: "" }, "sessionId", 'sessionId: expected a non-empty string, received ""'],
      [
        { _meta: { "acp-terminal": { pty: "yes" } } },
        '_meta["acp-terminal"].pty',
        '_meta["acp-terminal"].pty: ',
      ],
      [
        { _meta: { "acp-terminal": { stdin: "no" } } },
        '_meta["acp-terminal"].stdin',
        '_meta["acp-terminal"].stdin: ',
      ],
      // Checked by the host rather than the schema: the message reads the same.
      [
        { args: ["a\0b"] },
        "args[0]",
        'args[0]: expected a string without NUL characters, received "a\\u0000b"',
      ],
    ];
    for (const [extra, field, message] of cases) {
      const error = await rejectionOf(
        peer.client.request("terminal/create", {
          sessionId,
          command: "echo",
          args: ["x"],
          ...extra,
        }),
      );
      expect(error.code, field).toBe(-32602);
      expect(error.message, field).toContain(create + message);
      expect((error.data as { field?: string }).field, field).toBe(field);
    }
    for (const method of [
      "terminal/output",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/release",
    ]) {
      const noId = await rejectionOf(peer.client.request(method, { sessionId }));
      expect(noId.code, method).toBe(-32602);
      expect(noId.message).toBe(
        `Invalid params for ${method}: terminalId: missing; expected a non-empty string`,
      );
      const badId = await rejectionOf(peer.client.request(method, { sessionId, terminalId: 7 }));
      expect(badId.message).toBe(
        `Invalid params for ${method}: terminalId: expected a non-empty string, received 7`,
      );
    }
    const missingCwd = await rejectionOf(
      peer.client.request("terminal/create", {
        sessionId,
        command: "echo",
        cwd: "/no/such/dir/anywhere",
      }),
    );
    expect(missingCwd.code).not.toBe(-32002);
    expect(missingCwd.message).toContain("/no/such/dir/anywhere");
    const notFound = await rejectionOf(
      peer.client.request("terminal/create", {
        sessionId,
        command: "no-such-command-xyz",
        args: [],
      }),
    );
    expect(notFound.code).toBe(-32603);
    expect(notFound.message).toContain("no-such-command-xyz");
    expect(notFound.message).not.toBe("Internal error");
  });

  it("treats a second release as a no-op success", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sleep",
      args: ["30"],
    });
    expect(await peer.client.request("terminal/release", { sessionId, terminalId })).toEqual({});
    expect(await peer.client.request("terminal/release", { sessionId, terminalId })).toEqual({});
  });

  it("kill returns once the command has exited, so output and status read after it are final", async () => {
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId,
      command: "sh",
      args: ["-c", "echo started; exec sleep 30"],
    });
    await outputWhere(peer.client, { sessionId, terminalId }, (out) => out.includes("started"));
    expect(await peer.client.request("terminal/kill", { sessionId, terminalId })).toEqual({});
    const output = await peer.client.request<TerminalOutputResponse>("terminal/output", {
      sessionId,
      terminalId,
    });
    expect(output.exitStatus).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(output.output).toBe("started\n");
    expect(await peer.client.request("terminal/wait_for_exit", { sessionId, terminalId })).toEqual({
      exitCode: null,
      signal: "SIGTERM",
    });
    await peer.client.request("terminal/release", { sessionId, terminalId });
  });

  it("kills and releases every terminal when the connection closes: no process survives", async () => {
    const pids: number[] = [];
    for (const session of ["a", "b"]) {
      const { terminalId } = await peer.client.request("terminal/create", {
        sessionId: session,
        command: "sh",
        args: ["-c", "sleep 30 & echo $$ $!; wait"],
      });
      const { output } = await outputWhere(peer.client, { sessionId: session, terminalId }, (out) =>
        /\d+ \d+\n/.test(out),
      );
      for (const pid of output.trim().split(" ").map(Number)) {
        pids.push(pid);
        peer.trackPid(pid);
      }
    }
    expect(pids).toHaveLength(4);
    expect(pids.every(isAlive)).toBe(true);
    peer.closeConnection();
    await until(() => peer.stderr().includes("released "), {
      message: "the client to release the closed connection",
    });
    await until(() => pids.every((pid) => !isAlive(pid)), {
      message: `pids ${pids.join(", ")} to be gone`,
    });
  });
});
