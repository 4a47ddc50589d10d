import { PassThrough } from "node:stream";
import path from "node:path";
import {
  agent as v1Agent,
  PROTOCOL_VERSION,
  type AnyMessage,
  type Stream,
} from "@agentclientprotocol/sdk";
import { agent as v2Agent } from "@agentclientprotocol/sdk/experimental/v2";
import { describe, expect, it } from "vitest";
import { parseCommand, type RunOptions } from "../src/command/args.js";
import { Conversation } from "../src/conversation/conversation.js";
import type { ProtocolDriver } from "../src/conversation/driver.js";
import { Stopped } from "../src/conversation/endings.js";
import { V1ClientTerminals } from "../src/drivers/v1-client-terminals.js";
import { V2AgentTerminals } from "../src/drivers/v2-agent-terminals.js";
import { ExitCode } from "../src/exit-codes.js";
import { JsonRenderer } from "../src/render/json-renderer.js";
import type { Output } from "../src/render/output.js";
import { TextRenderer } from "../src/render/text-renderer.js";
import { until } from "../../../test/support/until.js";

/** Two in-memory message streams joined back to back: what one side writes, the other reads. */
function streamPair(): { client: Stream; agent: Stream } {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  return {
    client: { writable: toAgent.writable, readable: toClient.readable },
    agent: { writable: toClient.writable, readable: toAgent.readable },
  };
}

function sink(): Output & { text: string } {
  return {
    text: "",
    isTTY: false,
    columns: 80,
    write(chunk) {
      this.text += chunk;
    },
  };
}

function optionsFor(prompt: string, ...flags: string[]): RunOptions {
  const parsed = parseCommand(
    ["run", "--agent", "in-memory", ...flags, prompt],
    process.cwd(),
    (base, p) => path.resolve(base, p),
  );
  if (parsed.kind !== "run") {
    throw new Error(`bad test flags: ${JSON.stringify(parsed)}`);
  }
  return parsed.options;
}

const b64 = (text: string) => Buffer.from(text).toString("base64");

/** A conversation over `stream` with a text renderer (or JSON) writing into buffers. */
function converse(
  stream: Stream,
  driver: ProtocolDriver,
  options: RunOptions,
  signal = new AbortController().signal,
) {
  const out = sink();
  const err = sink();
  const view = options.json ? new JsonRenderer(out, err) : new TextRenderer(out, err);
  const conversation = new Conversation({
    options,
    io: { stdin: new PassThrough(), stderr: new PassThrough(), version: "0.0.0-test" },
    view,
    driver,
    stream,
    signal,
  });
  return { conversation, done: conversation.run(), out, err };
}

const v1Driver = (options: RunOptions) =>
  new V1ClientTerminals({
    agent: options.agent,
    cwd: options.cwd,
    version: "0.0.0-test",
    declareMeta: true,
    maxTerminals: options.maxTerminals,
    maxTotalTerminals: options.maxTotalTerminals,
  });
const v2Driver = (options: RunOptions) =>
  new V2AgentTerminals({ ...options, version: "0.0.0-test" });

describe("a Conversation over the v1 driver, in memory", () => {
  it("runs the agent's command in the CLI's host, shows its output under the tool call, and ends 0 at end_turn", async () => {
    const pair = streamPair();
    v1Agent({ name: "memory-v1" })
      .onRequest("initialize", () => ({ protocolVersion: PROTOCOL_VERSION }))
      .onRequest("session/new", () => ({ sessionId: "s1" }))
      .onRequest("session/prompt", async ({ params, client }) => {
        const { sessionId } = params;
        const { terminalId } = await client.request("terminal/create", {
          sessionId,
          command: "printf",
          args: ["one\\ntwo\\n"],
        });
        await client.notify("session/update", {
          sessionId,
          update: {
            sessionUpdate: "tool_call",
            toolCallId: "c1",
            title: "printf",
            status: "in_progress",
            content: [{ type: "terminal", terminalId }],
          },
        });
        await client.request("terminal/wait_for_exit", { sessionId, terminalId });
        await client.request("terminal/release", { sessionId, terminalId });
        await client.notify("session/update", {
          sessionId,
          update: { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" },
        });
        return { stopReason: "end_turn" };
      })
      .connect(pair.agent);
    const options = optionsFor("go", "--yes");
    const { done, out, err } = converse(pair.client, v1Driver(options), options);
    expect(await done).toBe(ExitCode.ok);
    expect(out.text).toBe(
      "▸ printf [in_progress]\n  │ one\n  │ two\n✓ printf [completed]\n  └ exit 0\n",
    );
    expect(err.text).toMatch(/── end_turn · 1 terminal: 1 exit 0 · .* · exit code 0/);
  });

  it("refuses a command unasked without --yes or a TTY, so nothing runs, and the agent hears why", async () => {
    const pair = streamPair();
    let refusal = "";
    v1Agent({ name: "memory-v1" })
      .onRequest("initialize", () => ({ protocolVersion: PROTOCOL_VERSION }))
      .onRequest("session/new", () => ({ sessionId: "s1" }))
      .onRequest("session/prompt", async ({ params, client }) => {
        refusal = await client
          .request("terminal/create", {
            sessionId: params.sessionId,
            command: "touch",
            args: ["x"],
          })
          .then(
            () => "created",
            (error: unknown) => String(error),
          );
        return { stopReason: "end_turn" };
      })
      .connect(pair.agent);
    const options = optionsFor("go");
    const { done, err } = converse(pair.client, v1Driver(options), options);
    expect(await done).toBe(ExitCode.ok);
    expect(refusal).toContain("Denied by the user: touch x");
    expect(err.text).toContain("no terminals");
  });

  it("aborting its signal ends it at once with the Stopped ending, and kills the command still running", async () => {
    const pair = streamPair();
    let created = false;
    v1Agent({ name: "memory-v1" })
      .onRequest("initialize", () => ({ protocolVersion: PROTOCOL_VERSION }))
      .onRequest("session/new", () => ({ sessionId: "s1" }))
      .onRequest("session/prompt", async ({ params, client }) => {
        await client.request("terminal/create", {
          sessionId: params.sessionId,
          command: "sleep",
          args: ["100"],
        });
        created = true;
        return new Promise<never>(() => undefined); // a turn that never ends
      })
      .connect(pair.agent);
    const options = optionsFor("go", "--yes", "--json");
    const stop = new AbortController();
    const { done, out } = converse(pair.client, v1Driver(options), options, stop.signal);
    await until(() => created, { message: "the agent's command started" });
    stop.abort(new Stopped({ exitCode: ExitCode.cancelled, error: "Stopped by SIGTERM" }));
    expect(await done).toBe(ExitCode.cancelled);
    const result = JSON.parse(out.text.trimEnd().split("\n").at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({ type: "result", exitCode: 3, error: "Stopped by SIGTERM" });
    expect(result.terminals).toEqual([
      expect.objectContaining({
        command: "sleep 100",
        exitStatus: expect.objectContaining({ signal: expect.any(String) }),
      }),
    ]);
  });
});

describe("a Conversation over the v2 driver, in memory", () => {
  /** A v2 agent whose prompt runs `turn` with a `send(update)` for its session. */
  function agentPair(
    turn: (send: (update: Record<string, unknown>) => Promise<void>) => Promise<void>,
  ) {
    const pair = streamPair();
    const heard: string[] = [];
    v2Agent({ name: "memory-v2" })
      .onRequest("initialize", () => ({
        protocolVersion: 2,
        info: { name: "memory-v2", version: "1" },
        capabilities: {},
      }))
      .onRequest("session/new", () => ({ sessionId: "s1" }))
      .onRequest("session/prompt", ({ params, client }) => {
        const send = (update: Record<string, unknown>) =>
          client.notify("session/update", { sessionId: params.sessionId, update: update as never });
        setImmediate(() => void turn(send));
        return { messageId: "m-user" };
      })
      .onRequest("terminal/cancel", ({ params }) => {
        heard.push(`terminal/cancel ${params.terminalId}`);
        return {};
      })
      .onNotification("session/cancel", () => {
        heard.push("session/cancel");
      })
      .connect(pair.agent);
    return { stream: pair.client, heard };
  }

  it("shows an agent-owned terminal's screen under its tool call, even one reported after the tool call showed it", async () => {
    const { stream } = agentPair(async (send) => {
      await send({ sessionUpdate: "state_update", state: "running" });
      await send({
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        title: "build",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: "t1" }],
      });
      await send({
        sessionUpdate: "terminal_update",
        terminalId: "t1",
        command: "make",
        size: { cols: 40, rows: 5 },
      });
      await send({
        sessionUpdate: "terminal_output_chunk",
        terminalId: "t1",
        data: b64("[##  ] 50%\r[####] 100%\n"),
      });
      await send({
        sessionUpdate: "terminal_update",
        terminalId: "t1",
        exitStatus: { exitCode: 0 },
      });
      await send({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" });
      await send({
        sessionUpdate: "agent_message_chunk",
        messageId: "m1",
        content: { type: "text", text: "built\n" },
      });
      await send({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    });
    const options = optionsFor("go");
    const { done, out, err } = converse(stream, v2Driver(options), options);
    expect(await done).toBe(ExitCode.ok);
    expect(out.text).toBe(
      "▸ build [in_progress]\n✓ build [completed]\n  │ [####] 100%\n  └ exit 0\nbuilt\n",
    );
    expect(err.text).toMatch(/── end_turn · 1 terminal: 1 exit 0/);
  });

  it("--json writes v2 updates as sent, terminal events with protocol v2, and background work", async () => {
    const { stream } = agentPair(async (send) => {
      await send({
        sessionUpdate: "state_update",
        state: "running",
        background: [{ type: "terminal", terminalId: "t1" }],
      });
      await send({ sessionUpdate: "terminal_update", terminalId: "t1", command: "sleep 1" });
      await send({ sessionUpdate: "_custom", x: 1 });
      await send({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    });
    const options = optionsFor("go", "--json");
    const { done, out } = converse(stream, v2Driver(options), options);
    expect(await done).toBe(ExitCode.ok);
    const all = out.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The session's own events (initialize, session, turn) are checked with the replays.
    const events = all.filter((e) => !["initialize", "session", "turn"].includes(String(e.type)));
    expect(
      events.map((event) => `${String(event.type)} ${String(event.event ?? "")}`.trim()),
    ).toEqual([
      "background",
      "session_update",
      "terminal create",
      "session_update",
      "session_update",
      "result",
    ]);
    expect(events[0]).toEqual({
      type: "background",
      protocol: "v2",
      work: [{ type: "terminal", terminalId: "t1" }],
    });
    expect(events[2]).toMatchObject({
      terminalId: "t1",
      command: "sleep 1",
      protocol: "v2",
      args: [],
    });
    expect(events[3]).toEqual({
      type: "session_update",
      protocol: "v2",
      update: { sessionUpdate: "_custom", x: 1 },
    });
  });

  it("interrupt() during a turn sends terminal/cancel to the cancellable terminal first, then session/cancel, and ends cancelled", async () => {
    let ready = false;
    const { stream, heard } = agentPair(async (send) => {
      await send({ sessionUpdate: "state_update", state: "running" });
      await send({
        sessionUpdate: "terminal_update",
        terminalId: "t1",
        command: "sleep 100",
        capabilities: { cancel: {} },
      });
      await send({ sessionUpdate: "terminal_update", terminalId: "t2", command: "sleep 100" });
      ready = true;
    });
    const options = optionsFor("go", "--cancel-grace", "0.5");
    const { conversation, done, err } = converse(stream, v2Driver(options), options);
    await until(() => ready && conversation.phase === "turn", {
      message: "the terminals reported",
    });
    conversation.interrupt();
    expect(await done).toBe(ExitCode.cancelled);
    expect(heard).toEqual(["terminal/cancel t1", "session/cancel"]);
    expect(err.text).toContain("Cancelling the turn…");
  });

  it("a connection that closes mid-turn ends it at once, saying so, instead of waiting for updates that cannot come", async () => {
    const pair = streamPair();
    v2Agent({ name: "memory-v2" })
      .onRequest("initialize", () => ({
        protocolVersion: 2,
        info: { name: "m", version: "1" },
        capabilities: {},
      }))
      .onRequest("session/new", () => ({ sessionId: "s1" }))
      .onRequest("session/prompt", () => {
        setImmediate(() => void pair.agent.writable.close());
        return { messageId: "m-user" };
      })
      .connect(pair.agent);
    const options = optionsFor("go");
    const started = performance.now();
    const { done, err } = converse(pair.client, v2Driver(options), options);
    expect(await done).toBe(ExitCode.agentFailed);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(err.text).toContain("The agent's connection closed during the turn");
  });

  it("a turn that stops with an error ends with exit 4 and the agent's message", async () => {
    const { stream } = agentPair(async (send) => {
      await send({ sessionUpdate: "state_update", state: "running" });
      await send({
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "error",
        error: { code: -32603, message: "model overloaded" },
      });
    });
    const options = optionsFor("go");
    const { done, err } = converse(stream, v2Driver(options), options);
    expect(await done).toBe(ExitCode.agentFailed);
    expect(err.text).toContain("The agent stopped with an error: model overloaded");
  });

  it("--timeout ends a turn the agent never ends with exit 5, naming the phase, after asking the agent to cancel", async () => {
    const { stream, heard } = agentPair(async (send) => {
      await send({ sessionUpdate: "state_update", state: "running" });
    });
    const options = optionsFor("go", "--timeout", "0.3");
    const { done, err } = converse(stream, v2Driver(options), options);
    expect(await done).toBe(ExitCode.timeout);
    expect(err.text).toContain("Timed out after 0.3 s (--timeout), during the turn");
    await until(() => heard.includes("session/cancel"), { message: "session/cancel at the agent" });
  });
});

describe("one permission policy for both drivers", () => {
  it.each(["v1", "v2"] as const)(
    "%s: --yes answers a permission request with its allow-once option, and without --yes or a TTY with its reject-once option",
    async (version) => {
      for (const [flags, expected] of [
        [["--yes"], "allow-it"],
        [[], "reject-it"],
      ] as const) {
        const pair = streamPair();
        const options = optionsFor("go", ...flags);
        const askOptions = [
          { optionId: "reject-it", name: "No", kind: "reject_once" },
          { optionId: "allow-it", name: "Yes", kind: "allow_once" },
        ] as const;
        let answer: unknown;
        if (version === "v1") {
          v1Agent({ name: "memory-v1" })
            .onRequest("initialize", () => ({ protocolVersion: PROTOCOL_VERSION }))
            .onRequest("session/new", () => ({ sessionId: "s1" }))
            .onRequest("session/prompt", async ({ params, client }) => {
              answer = await client.request("session/request_permission", {
                sessionId: params.sessionId,
                toolCall: { toolCallId: "c1", title: "edit a file" },
                options: [...askOptions],
              });
              return { stopReason: "end_turn" };
            })
            .connect(pair.agent);
        } else {
          v2Agent({ name: "memory-v2" })
            .onRequest("initialize", () => ({
              protocolVersion: 2,
              info: { name: "m", version: "1" },
              capabilities: {},
            }))
            .onRequest("session/new", () => ({ sessionId: "s1" }))
            .onRequest("session/prompt", ({ params, client }) => {
              setImmediate(() => {
                void (async () => {
                  const send = (update: Record<string, unknown>) =>
                    client.notify("session/update", {
                      sessionId: params.sessionId,
                      update: update as never,
                    });
                  await send({ sessionUpdate: "state_update", state: "running" });
                  answer = await client.request("session/request_permission", {
                    sessionId: params.sessionId,
                    title: "edit a file",
                    subject: { type: "tool_call", toolCall: { toolCallId: "c1" } },
                    options: [...askOptions],
                  });
                  await send({
                    sessionUpdate: "state_update",
                    state: "idle",
                    stopReason: "end_turn",
                  });
                })();
              });
              return { messageId: "m-user" };
            })
            .connect(pair.agent);
        }
        const driver = version === "v1" ? v1Driver(options) : v2Driver(options);
        const { done } = converse(pair.client, driver, options);
        expect(await done).toBe(ExitCode.ok);
        expect(answer).toEqual({ outcome: { outcome: "selected", optionId: expected } });
      }
    },
  );
});
