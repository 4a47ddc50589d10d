/**
 * The binding over an in-memory SDK connection pair, with a recording host: what reaches the host
 * (owner, params, connection scoping) and what the agent sees (results, JSON-RPC errors).
 * The real host over real stdio is covered by test/wire*.test.ts at the root.
 */
import {
  agent,
  client,
  RequestError,
  type AgentConnection,
  type ClientConnection,
} from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { TerminalError } from "../src/core/errors.js";
import type {
  CreateTerminalParams,
  ExitStatus,
  TerminalOutputSnapshot,
  TerminalOwner,
  WriteOptions,
} from "../src/host/types.js";
import { bindTerminalHost, type BindOptions } from "../src/rpc/bind.js";
import type { TerminalHostPort } from "../src/rpc/host-port.js";
import { until } from "../../../test/support/until.js";

type Call = { method: string; owner?: TerminalOwner | undefined; args: unknown[] };

class RecordingHost implements TerminalHostPort {
  calls: Call[] = [];
  releasedConnections: string[] = [];
  snapshot: TerminalOutputSnapshot = {
    output: "hi\n",
    truncated: false,
    totalBytes: 3,
    droppedBytes: 0,
  };
  fail: TerminalError | undefined;
  private next = 0;

  private record(method: string, owner: TerminalOwner | undefined, ...args: unknown[]): void {
    this.calls.push({ method, owner, args });
    if (this.fail) {
      throw this.fail;
    }
  }
  async create(
    owner: TerminalOwner,
    params: CreateTerminalParams,
    context?: { sessionCwd?: string },
  ) {
    this.record("create", owner, params, context);
    return `t${++this.next}`;
  }
  output(owner: TerminalOwner, terminalId: string) {
    this.record("output", owner, terminalId);
    return this.snapshot;
  }
  /** When set, waitForExit never settles (a command that keeps running). */
  hang = false;
  async waitForExit(owner: TerminalOwner, terminalId: string): Promise<ExitStatus> {
    this.record("waitForExit", owner, terminalId);
    if (this.hang) {
      return new Promise<never>(() => {});
    }
    return { exitCode: 3, signal: null };
  }
  async kill(owner: TerminalOwner, terminalId: string, signal?: string): Promise<ExitStatus> {
    this.record("kill", owner, terminalId, signal);
    return { exitCode: null, signal: signal ?? "SIGTERM" };
  }
  async release(owner: TerminalOwner, terminalId: string) {
    this.record("release", owner, terminalId);
  }
  async releaseAll(filter: { connectionId: string }) {
    this.releasedConnections.push(filter.connectionId);
  }
  async write(
    owner: TerminalOwner,
    terminalId: string,
    data: string | Uint8Array,
    options?: WriteOptions,
  ) {
    this.record("write", owner, terminalId, data, options);
  }
  resize(owner: TerminalOwner, terminalId: string, cols: number, rows: number) {
    this.record("resize", owner, terminalId, cols, rows);
  }
  signal(owner: TerminalOwner, terminalId: string, signal: string) {
    this.record("signal", owner, terminalId, signal);
  }
  last(method: string): Call {
    const call = this.calls.findLast((c) => c.method === method);
    if (!call) {
      throw new Error(`host.${method} was not called`);
    }
    return call;
  }
}

const open: AgentConnection[] = [];
afterEach(() => {
  for (const connection of open.splice(0)) {
    connection.close();
  }
});

const SESSIONS = ["s", "s1", "s2"];

/** An agent app that answers initialize and gives session/new the id the client asks for in `_meta`. */
function testAgent() {
  return agent()
    .onRequest("initialize", () => ({ protocolVersion: 1, agentCapabilities: {} }))
    .onRequest("session/new", ({ params }) => ({
      sessionId: (params._meta?.["want"] as string | undefined) ?? "fresh",
    }));
}

function setup(options: BindOptions = {}) {
  const host = new RecordingHost();
  const app = client();
  const binding = bindTerminalHost(app, host, options);
  const clientSides: ClientConnection[] = [];
  app.onConnect((connection) => void clientSides.push(connection));
  /** Connects an agent; the client side has initialized and opened SESSIONS with session/new. */
  const connect = async (sessions = SESSIONS) => {
    const connection = testAgent().connect(app);
    open.push(connection);
    const clientSide = clientSides.at(-1)!;
    await clientSide.agent.request("initialize", { protocolVersion: 1 });
    for (const want of sessions) {
      await clientSide.agent.request("session/new", { cwd: "/", mcpServers: [], _meta: { want } });
    }
    return Object.assign(connection, { clientSide });
  };
  return { host, app, binding, connect };
}

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RequestError)) {
    throw new Error(`expected a RequestError, got ${String(error)}`);
  }
  return error;
}

describe("bindTerminalHost", () => {
  it("scopes terminals by connection and session and passes the session's cwd", async () => {
    const { host, connect } = setup({ sessionCwd: (sessionId) => `/work/${sessionId}` });
    const a = await connect();
    const b = await connect();
    const created = await a.client.request("terminal/create", {
      sessionId: "s1",
      command: "ls",
      args: ["-l"],
    });
    expect(created).toEqual({ terminalId: "t1" });
    const first = host.last("create");
    expect(first.owner?.sessionId).toBe("s1");
    expect(first.args).toEqual([
      { command: "ls", args: ["-l"], env: null, cwd: null, outputByteLimit: null },
      { sessionCwd: "/work/s1" },
    ]);
    await a.client.request("terminal/output", { sessionId: "s2", terminalId: "t1" });
    expect(host.last("output").owner).toEqual({
      connectionId: first.owner?.connectionId,
      sessionId: "s2",
    });
    await b.client.request("terminal/output", { sessionId: "s1", terminalId: "t1" });
    expect(host.last("output").owner?.connectionId).not.toBe(first.owner?.connectionId);
  });

  it("releases every terminal of a connection when it closes", async () => {
    const { host, binding, connect } = setup();
    const a = await connect();
    const b = await connect();
    await a.client.request("terminal/create", { sessionId: "s", command: "sleep 10" });
    await b.client.request("terminal/create", { sessionId: "s", command: "sleep 10" });
    const [ownerA, ownerB] = host.calls.map((c) => c.owner!.connectionId);
    expect(binding.connectionCount).toBe(2);
    a.close();
    await until(() => host.releasedConnections.length === 1, { message: "releaseAll after close" });
    await binding.whenIdle();
    expect(host.releasedConnections).toEqual([ownerA]);
    expect(binding.connectionCount).toBe(1);
    b.close();
    await until(() => host.releasedConnections.length === 2, { message: "second releaseAll" });
    expect(host.releasedConnections).toEqual([ownerA, ownerB]);
  });

  it("answers output with cursors in _meta and the exit status once known", async () => {
    const { host, connect } = setup();
    const a = await connect();
    host.snapshot = {
      output: "done\n",
      truncated: true,
      totalBytes: 105,
      droppedBytes: 100,
      exitStatus: { exitCode: null, signal: "SIGTERM" },
    };
    const output = await a.client.request("terminal/output", { sessionId: "s", terminalId: "t1" });
    expect(output).toEqual({
      output: "done\n",
      truncated: true,
      exitStatus: { exitCode: null, signal: "SIGTERM" },
      _meta: { "acp-terminal": { totalBytes: 105, droppedBytes: 100 } },
    });
    const exit = await a.client.request("terminal/wait_for_exit", {
      sessionId: "s",
      terminalId: "t1",
    });
    expect(exit).toEqual({ exitCode: 3, signal: null });
  });

  it("keeps an escape-heavy output response under maxMessageBytes", async () => {
    const { host, connect } = setup({ maxMessageBytes: 64 * 1024 });
    const a = await connect();
    const output = "\x1b".repeat(20_000) + "tail";
    host.snapshot = { output, truncated: false, totalBytes: output.length, droppedBytes: 0 };
    const response = await a.client.request("terminal/output", {
      sessionId: "s",
      terminalId: "t1",
    });
    expect(Buffer.byteLength(JSON.stringify(response))).toBeLessThan(64 * 1024);
    expect(response.output.endsWith("\x1btail")).toBe(true);
    expect(response.truncated).toBe(true);
    const cursors = response._meta?.["acp-terminal"] as {
      totalBytes: number;
      droppedBytes: number;
    };
    expect(cursors.totalBytes).toBe(output.length);
    expect(cursors.droppedBytes).toBe(output.length - Buffer.byteLength(response.output));
  });

  it("maps host errors to JSON-RPC errors the agent can act on", async () => {
    const { host, connect } = setup();
    const a = await connect();
    host.fail = TerminalError.notFound("t9");
    const notFound = await rejection(
      a.client.request("terminal/output", { sessionId: "s", terminalId: "t9" }),
    );
    expect(notFound.code).toBe(-32002);
    expect(notFound.data).toEqual({ terminalId: "t9" });
    expect(notFound.message).toContain("Terminal not found: t9");

    host.fail = TerminalError.invalidParams("outputByteLimit", "at most 8388608", 1e12);
    const invalid = await rejection(
      a.client.request("terminal/create", { sessionId: "s", command: "x" }),
    );
    expect(invalid.code).toBe(-32602);
    expect(invalid.message).toBe(
      "Invalid params for terminal/create: outputByteLimit: expected at most 8388608, received 1000000000000",
    );
    expect(invalid.data).toEqual({ field: "outputByteLimit" });

    // Host fields that the agent sent in _meta["acp-terminal"] are named as the agent wrote them.
    host.fail = TerminalError.invalidParams("pty.cols", "an integer from 1 to 1000", 2000);
    const pty = await rejection(
      a.client.request("terminal/create", { sessionId: "s", command: "x" }),
    );
    expect(pty.message).toBe(
      'Invalid params for terminal/create: _meta["acp-terminal"].pty.cols: expected an integer from 1 to 1000, received 2000',
    );
    expect(pty.data).toEqual({ field: '_meta["acp-terminal"].pty.cols' });
    host.fail = TerminalError.invalidParams("signal", "a POSIX signal name", "SIGFOO");
    const kill = await rejection(
      a.client.request("terminal/kill", { sessionId: "s", terminalId: "t1" }),
    );
    expect(kill.message).toBe(
      'Invalid params for terminal/kill: _meta["acp-terminal"].signal: expected a POSIX signal name, received "SIGFOO"',
    );
    const signal = await rejection(
      a.client.request("_acp-terminal/signal", {
        sessionId: "s",
        terminalId: "t1",
        signal: "SIGINT",
      }),
    );
    expect(signal.message).toBe(
      'Invalid params for _acp-terminal/signal: signal: expected a POSIX signal name, received "SIGFOO"',
    );

    host.fail = new TerminalError(
      "spawn_failed",
      "Command not found: nope (ENOENT). Check the command name and PATH.",
    );
    const spawn = await rejection(
      a.client.request("terminal/create", { sessionId: "s", command: "nope" }),
    );
    expect(spawn.code).toBe(-32603);
    expect(spawn.message).toBe(
      "Command not found: nope (ENOENT). Check the command name and PATH.",
    );
    expect(spawn.data).toEqual({ reason: "spawn_failed" });

    // A signal the OS refused is its own reason, not the user's denial.
    host.fail = TerminalError.signalFailed(
      42,
      "SIGTERM",
      Object.assign(new Error("kill EPERM"), { code: "EPERM" }),
    );
    const refused = await rejection(
      a.client.request("terminal/kill", { sessionId: "s", terminalId: "t1" }),
    );
    expect([refused.code, refused.data]).toEqual([
      -32603,
      { pid: 42, signal: "SIGTERM", code: "EPERM", reason: "signal_failed" },
    ]);
  });

  it("rejects bad create params with -32602 naming the field", async () => {
    const { host, connect } = setup();
    const a = await connect();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ cwd: "relative/dir" }, /cwd: expected an absolute path, received "relative\/dir"/],
      [
        { outputByteLimit: -1 },
        /^Invalid params for terminal\/create: outputByteLimit: expected a non-negative integer \(bytes\), received -1$/,
      ],
      [
        { args: "ls" },
        /^Invalid params for terminal\/create: args: expected an array of strings, received "ls"$/,
      ],
      [{ _meta: { "acp-terminal": { pty: "yes" } } }, /_meta\["acp-terminal"\]\.pty/],
      [
        { _meta: { "acp-terminal": { pty: { cols: 0 } } } },
        /_meta\["acp-terminal"\]\.pty\.cols: expected an integer from 1 to 1000, received 0$/,
      ],
      [
        { _meta: { "acp-terminal": { pty: { rows: 1001 } } } },
        /_meta\["acp-terminal"\]\.pty\.rows: expected an integer from 1 to 1000, received 1001$/,
      ],
      [{ _meta: { "acp-terminal": { stdin: 1 } } }, /_meta\["acp-terminal"\]\.stdin/],
      [{ command: "  " }, /command: expected a non-empty command/],
    ];
    for (const [extra, message] of cases) {
      const error = await rejection(
        a.client.request("terminal/create", { sessionId: "s", command: "ls", ...extra }),
      );
      expect(error.code, JSON.stringify(extra)).toBe(-32602);
      expect(error.message, JSON.stringify(extra)).toMatch(message);
    }
    expect(host.calls.filter((c) => c.method === "create")).toEqual([]);
  });

  it("passes _meta pty and stdin to the host, and the kill signal", async () => {
    const { host, connect } = setup();
    const a = await connect();
    await a.client.request("terminal/create", {
      sessionId: "s",
      command: "vi",
      _meta: { "acp-terminal": { pty: { cols: 100, rows: 30 }, stdin: true }, other: 1 },
    });
    expect(host.last("create").args[0]).toMatchObject({
      pty: { cols: 100, rows: 30 },
      stdin: true,
    });
    await a.client.request("terminal/kill", {
      sessionId: "s",
      terminalId: "t1",
      _meta: { "acp-terminal": { signal: "SIGINT" } },
    });
    expect(host.last("kill").args).toEqual(["t1", "SIGINT"]);
    const bad = await rejection(
      a.client.request("terminal/kill", {
        sessionId: "s",
        terminalId: "t1",
        _meta: { "acp-terminal": { signal: "SIGFOO" } },
      }),
    );
    expect(bad.code).toBe(-32602);
    expect(bad.message).toMatch(/signal: expected one of SIGINT, SIGTERM/);
  });

  it("serves the write, resize and signal extensions with validated params", async () => {
    const { host, connect } = setup();
    const a = await connect();
    await a.client.request("_acp-terminal/write", {
      sessionId: "s",
      terminalId: "t1",
      data: "héllo\n",
      eof: true,
    });
    expect(host.last("write").args).toEqual(["t1", "héllo\n", { eof: true }]);
    await a.client.request("_acp-terminal/write", {
      sessionId: "s",
      terminalId: "t1",
      dataBase64: "AP8=",
    });
    expect(host.last("write").args).toEqual(["t1", new Uint8Array([0, 255]), { eof: false }]);
    await a.client.request("_acp-terminal/resize", {
      sessionId: "s",
      terminalId: "t1",
      cols: 120,
      rows: 40,
    });
    expect(host.last("resize").args).toEqual(["t1", 120, 40]);
    await a.client.request("_acp-terminal/signal", {
      sessionId: "s",
      terminalId: "t1",
      signal: "SIGINT",
    });
    expect(host.last("signal").args).toEqual(["t1", "SIGINT"]);

    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        "_acp-terminal/write",
        { data: "a", dataBase64: "YQ==" },
        /dataBase64: give either data or dataBase64/,
      ],
      ["_acp-terminal/write", {}, /data: give data, dataBase64 or eof: true/],
      [
        "_acp-terminal/write",
        { dataBase64: "not base64!" },
        /dataBase64: expected standard base64/,
      ],
      ["_acp-terminal/resize", { cols: 0, rows: 10 }, /cols/],
      ["_acp-terminal/resize", { cols: 80 }, /rows/],
      ["_acp-terminal/signal", { signal: "SIGNOPE" }, /signal: expected one of SIGINT/],
      ["_acp-terminal/signal", { signal: "SIGINT", terminalId: 5 }, /terminalId/],
    ];
    for (const [method, extra, message] of bad) {
      const error = await rejection(
        a.client.request(method, { sessionId: "s", terminalId: "t1", ...extra }),
      );
      expect(error.code, `${method} ${JSON.stringify(extra)}`).toBe(-32602);
      expect(error.message, `${method} ${JSON.stringify(extra)}`).toMatch(message);
    }

    host.fail = new TerminalError(
      "not_pty",
      'Terminal t1 is not a PTY: resize needs _meta["acp-terminal"].pty at create.',
    );
    const notPty = await rejection(
      a.client.request("_acp-terminal/resize", {
        sessionId: "s",
        terminalId: "t1",
        cols: 80,
        rows: 24,
      }),
    );
    expect(notPty.code).toBe(-32603);
    expect(notPty.data).toEqual({ reason: "not_pty" });
    expect(notPty.message).toContain("is not a PTY");
  });

  it("answers -32800 when the agent cancels a pending wait_for_exit", async () => {
    const { host, connect } = setup();
    const a = await connect();
    host.hang = true;
    const cancel = new AbortController();
    const wait = a.client.request(
      "terminal/wait_for_exit",
      { sessionId: "s", terminalId: "t1" },
      { cancellationSignal: cancel.signal },
    );
    await until(() => host.calls.some((c) => c.method === "waitForExit"), {
      message: "the wait to reach the host",
    });
    cancel.abort();
    const error = await rejection(wait);
    expect(error.code).toBe(-32800);
  });

  it("refuses every method in a session the client did not open, with -32602 naming the sessionId", async () => {
    const { host, connect } = setup();
    const a = await connect();
    const ids = { sessionId: "invented", terminalId: "t1" };
    const calls: [string, unknown][] = [
      ["terminal/create", { sessionId: "invented", command: "true" }],
      ["terminal/output", ids],
      ["terminal/wait_for_exit", ids],
      ["terminal/kill", ids],
      ["terminal/release", ids],
      ["_acp-terminal/write", { ...ids, data: "x" }],
      ["_acp-terminal/resize", { ...ids, cols: 10, rows: 10 }],
      ["_acp-terminal/signal", { ...ids, signal: "SIGINT" }],
    ];
    for (const [method, params] of calls) {
      const error = await rejection(a.client.request(method, params));
      expect([method, error.code, error.message]).toEqual([
        method,
        -32602,
        `Invalid params for ${method}: sessionId: "invented" is not a session of this connection; terminals live only in sessions the client created or loaded (session/new, session/load, session/resume, session/fork)`,
      ]);
    }
    expect(host.calls).toEqual([]);
  });

  it("accepts 0 of 1,000 invented session ids, and a session opened on one connection only there", async () => {
    const { host, connect } = setup();
    const a = await connect(["mine"]);
    const b = await connect([]);
    let accepted = 0;
    for (let i = 0; i < 1000; i++) {
      accepted += await a.client
        .request("terminal/create", { sessionId: `invented-${i}`, command: "true" })
        .then(
          () => 1,
          () => 0,
        );
    }
    expect(accepted).toBe(0);
    expect(
      (await rejection(b.client.request("terminal/create", { sessionId: "mine", command: "true" })))
        .code,
    ).toBe(-32602);
    expect(
      await a.client.request("terminal/create", { sessionId: "mine", command: "true" }),
    ).toEqual({ terminalId: "t1" });
    expect(host.calls.map((c) => c.owner?.sessionId)).toEqual(["mine"]);
  });

  it("learns sessions from session/fork answers and session/load or resume requests; a refused load is forgotten", async () => {
    const agentApp = testAgent()
      .onRequest("session/load", ({ params }) => {
        if (params.sessionId === "gone") {
          throw RequestError.resourceNotFound(params.sessionId);
        }
        return {};
      })
      .onRequest("session/resume", () => ({}))
      // Unstable in SDK 2.4.0: registered as a custom method.
      .onRequest(
        "session/fork",
        (params: unknown) => params,
        () => ({ sessionId: "forked" }),
      );
    const app = client();
    const clientSides: ClientConnection[] = [];
    app.onConnect((c) => void clientSides.push(c));
    bindTerminalHost(app, new RecordingHost());
    const connection = agentApp.connect(app);
    open.push(connection);
    const clientSide = clientSides[0]!;
    await clientSide.agent.request("initialize", { protocolVersion: 1 });
    await clientSide.agent.request("session/load", {
      sessionId: "loaded",
      cwd: "/",
      mcpServers: [],
    });
    await clientSide.agent.request("session/resume", { sessionId: "resumed", cwd: "/" });
    await clientSide.agent.request("session/fork", { sessionId: "loaded", cwd: "/" });
    await clientSide.agent
      .request("session/load", { sessionId: "gone", cwd: "/", mcpServers: [] })
      .catch(() => undefined);
    const create = (sessionId: string) =>
      connection.client.request("terminal/create", { sessionId, command: "true" }).then(
        () => "ok",
        (e: RequestError) => e.code,
      );
    expect(await Promise.all(["loaded", "resumed", "forked", "gone"].map(create))).toEqual([
      "ok",
      "ok",
      "ok",
      -32602,
    ]);
  });

  it("addSession admits a session created elsewhere", async () => {
    const { binding, connect } = setup();
    const a = await connect([]);
    expect(
      (
        await rejection(
          a.client.request("terminal/create", { sessionId: "proxied", command: "true" }),
        )
      ).code,
    ).toBe(-32602);
    binding.addSession(a.clientSide, "proxied");
    expect(
      await a.client.request("terminal/create", { sessionId: "proxied", command: "true" }),
    ).toEqual({ terminalId: "t1" });
  });

  it("refuses an app from another SDK copy instead of losing error codes", () => {
    expect(() => bindTerminalHost({} as never, new RecordingHost())).toThrow(/ClientApp/);
  });
});
