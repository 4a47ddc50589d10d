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
