/**
 * A session the agent refused to load is not a session: the terminals it started while the load
 * was pending are killed and released, with a real TerminalHost and marked processes.
 */
import { randomUUID } from "node:crypto";
import {
  agent,
  client,
  RequestError,
  type AgentConnection,
  type AgentContext,
  type ClientConnection,
} from "@agentclientprotocol/sdk";
import { afterEach, expect, it } from "vitest";
import { processesWith } from "../../../test/support/processes.js";
import { until } from "../../../test/support/until.js";
import { TerminalHost } from "../src/host/terminal-host.js";
import { bindTerminalHost } from "../src/rpc/bind.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) {
    await step();
  }
});

it.each([
  ["had started", true],
  ["was still starting", false],
])(
  "a refused session/load leaves no terminal running: one the agent %s while loading is released",
  async (_, awaitCreate) => {
    const marker = `refused-load-${randomUUID()}`;
    const host = new TerminalHost({ containment: "off" });
    cleanup.push(() => host.dispose());
    const app = client();
    const binding = bindTerminalHost(app, host);
    const clientSides: ClientConnection[] = [];
    app.onConnect((connection) => void clientSides.push(connection));
    let started: string | undefined;
    const agentApp = agent()
      .onRequest("initialize", () => ({
        protocolVersion: 1,
        agentCapabilities: { loadSession: true },
      }))
      .onRequest("session/load", async ({ params, client: toClient }) => {
        // While loading, the session is the client's: the agent starts a command in it, then refuses.
        const creating = toClient.request("terminal/create", {
          sessionId: params.sessionId,
          command: process.execPath,
          args: ["-e", "setTimeout(() => {}, 30000)", marker],
        });
        void creating.then(
          ({ terminalId }) => (started = terminalId),
          () => (started = "refused"),
        );
        if (awaitCreate) {
          await creating;
        }
        throw RequestError.resourceNotFound(params.sessionId);
      });
    const connection: AgentConnection = agentApp.connect(app);
    cleanup.push(() => connection.close());
    const clientSide = clientSides[0]!;
    await clientSide.agent.request("initialize", { protocolVersion: 1 });
    const refused = await clientSide.agent
      .request("session/load", { sessionId: "gone", cwd: "/", mcpServers: [] })
      .then(
        () => "loaded",
        () => "refused",
      );
    expect(refused).toBe("refused");
    await until(() => started, { timeoutMs: 5_000, message: "the create to be answered" });
    const owner = { connectionId: binding.connectionIdOf(clientSide), sessionId: "gone" };
    await until(() => host.list(owner).length === 0 && processesWith(marker).length === 0, {
      timeoutMs: 5_000,
      message: "the refused session's terminals to be released and their processes gone",
    }).catch(() => undefined);
    expect(host.list(owner).map((info) => info.state)).toEqual([]);
    expect(processesWith(marker)).toEqual([]);
  },
);

it.each([
  ["session/close", "answers", false],
  ["session/delete", "answers", false],
  ["session/close", "does not know it (-32002)", true],
])(
  "%s frees the session's terminals once the agent %s: they are killed and released, and the session is refused afterwards",
  async (method, _, unknown) => {
    const marker = `closed-session-${randomUUID()}`;
    const host = new TerminalHost({ containment: "off" });
    cleanup.push(() => host.dispose());
    const app = client();
    const binding = bindTerminalHost(app, host);
    const clientSides: ClientConnection[] = [];
    app.onConnect((connection) => void clientSides.push(connection));
    const toClients: AgentContext[] = [];
    const answer = () => {
      if (unknown) {
        throw RequestError.resourceNotFound("s1");
      }
      return {};
    };
    const agentApp = agent()
      .onRequest("initialize", ({ client: toClient }) => {
        toClients.push(toClient);
        return { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { close: {} } } };
      })
      .onRequest("session/new", () => ({ sessionId: "s1" }))
      .onRequest("session/close", answer)
      .onRequest("session/delete", answer);
    const connection: AgentConnection = agentApp.connect(app);
    cleanup.push(() => connection.close());
    const clientSide = clientSides[0]!;
    await clientSide.agent.request("initialize", { protocolVersion: 1 });
    await clientSide.agent.request("session/new", { cwd: "/", mcpServers: [] });
    const toClient = toClients[0]!;
    const created = await toClient.request("terminal/create", {
      sessionId: "s1",
      command: process.execPath,
      args: ["-e", "setTimeout(() => {}, 30000)", marker],
    });
    await until(() => processesWith(marker).length > 0, {
      timeoutMs: 5_000,
      message: "the command to start",
    });
    await clientSide.agent.request(method, { sessionId: "s1" });
    const owner = { connectionId: binding.connectionIdOf(clientSide), sessionId: "s1" };
    await until(() => host.list(owner).length === 0 && processesWith(marker).length === 0, {
      timeoutMs: 5_000,
      message: "the closed session's terminals to be released and their processes gone",
    }).catch(() => undefined);
    expect(host.list(owner)).toEqual([]);
    expect(processesWith(marker)).toEqual([]);
    const refused = await toClient
      .request("terminal/create", { sessionId: "s1", command: "true" })
      .then(
        () => "created",
        (error: { code?: number; message?: string }) => `${error.code} ${error.message}`,
      );
    expect(refused).toMatch(/^-32602 .*not a session of this connection/);
    const output = await toClient
      .request("terminal/output", { sessionId: "s1", terminalId: created.terminalId })
      .then(
        () => "answered",
        (error: { code?: number }) => error.code,
      );
    expect(output).not.toBe("answered");
  },
);

it("a session/close the agent fails (-32601, no close capability) keeps the session and its terminals", async () => {
  const marker = `kept-session-${randomUUID()}`;
  const host = new TerminalHost({ containment: "off" });
  cleanup.push(() => host.dispose());
  const app = client();
  const binding = bindTerminalHost(app, host);
  const clientSides: ClientConnection[] = [];
  app.onConnect((connection) => void clientSides.push(connection));
  const toClients: AgentContext[] = [];
  const agentApp = agent()
    .onRequest("initialize", ({ client: toClient }) => {
      toClients.push(toClient);
      return { protocolVersion: 1, agentCapabilities: {} };
    })
    .onRequest("session/new", () => ({ sessionId: "s1" }));
  const connection: AgentConnection = agentApp.connect(app);
  cleanup.push(() => connection.close());
  const clientSide = clientSides[0]!;
  await clientSide.agent.request("initialize", { protocolVersion: 1 });
  await clientSide.agent.request("session/new", { cwd: "/", mcpServers: [] });
  const toClient = toClients[0]!;
  await toClient.request("terminal/create", {
    sessionId: "s1",
    command: process.execPath,
    args: ["-e", "setTimeout(() => {}, 30000)", marker],
  });
  const closed = await clientSide.agent.request("session/close", { sessionId: "s1" }).then(
    () => "closed",
    () => "failed",
  );
  expect(closed).toBe("failed");
  const owner = { connectionId: binding.connectionIdOf(clientSide), sessionId: "s1" };
  expect(host.list(owner).map((info) => info.state)).toEqual(["running"]);
  // A create answers once the launcher has said it will exec; the exec that shows the marker may come after.
  await until(() => processesWith(marker).length > 0, {
    timeoutMs: 10_000,
    message: "the kept terminal's command to run",
  });
});
