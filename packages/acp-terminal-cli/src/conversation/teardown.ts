import type { Renderer } from "../view/renderer.js";
import type { ClientSide } from "./client-side.js";
import type { AgentHandle } from "./conversation-init.js";
import type { ProtocolDriver } from "./driver.js";

/** What a conversation started and stops at its end. */
export interface Started extends Pick<ClientSide, "host" | "mcpTools"> {
  view: Renderer;
  driver: ProtocolDriver;
  agent?: AgentHandle | undefined;
}

/**
 * Stops what the conversation started, every step even if the one before failed (the agent must
 * stop whatever happens): the driver's hold on the connection, the MCP tools' commands, the
 * terminals, the connection, then the agent, with no grace when `now` (a second Ctrl-C).
 */
export async function tearDown(started: Started, now: boolean): Promise<void> {
  const { view, driver, host, mcpTools, agent } = started;
  driver.detach();
  await mcpTools
    ?.dispose()
    .catch((error: unknown) =>
      view.notice(`Could not stop the MCP tools' commands: ${String(error)}`),
    );
  await host
    ?.dispose()
    .catch((error: unknown) => view.notice(`Could not stop every terminal: ${String(error)}`));
  driver.close();
  await agent
    ?.kill(now ? 0 : undefined)
    .catch((error: unknown) => view.notice(`Could not stop the agent: ${String(error)}`));
}
