import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import {
  AcpTerminalProvider,
  detectClientTerminalSupport,
  LocalTerminalProvider,
  McpToolsProvider,
  type McpToolCall,
  type TerminalProvider,
} from "acp-process";
import type { TerminalHost } from "acp-terminal";

/** Where a session's commands run, and how to say so. */
export interface ExecutionMode {
  provider: TerminalProvider;
  /** True when the client hosts the terminals: tool calls can embed them. */
  clientTerminals: boolean;
  description: string;
  /** Local mode: the ids of the terminals the local host still holds for this session. */
  localTerminals?: () => string[];
}

/**
 * The client's terminals when it advertises `clientCapabilities.terminal`, else the client's MCP
 * terminal server when the session declared one, else local processes. `localHost` is called only
 * when needed, so an agent whose client has terminals starts none.
 */
export function chooseMode(
  clientCapabilities: unknown,
  client: AgentContext,
  sessionId: string,
  localHost: () => TerminalHost,
  mcpTerminals?: { name: string; call: McpToolCall },
): ExecutionMode {
  const support = detectClientTerminalSupport(clientCapabilities);
  if (!support.terminal && mcpTerminals) {
    return {
      provider: new McpToolsProvider(mcpTerminals.call),
      clientTerminals: false,
      description:
        `This client offers its terminals as an MCP server over ACP (${mcpTerminals.name}: exec and process tools, MCP-over-ACP), ` +
        "so commands run on the client's machine through those tools; their output comes back as text.",
    };
  }
  if (!support.terminal) {
    const host = localHost();
    const owner = { connectionId: "demo-agent", sessionId };
    return {
      provider: new LocalTerminalProvider(host, { owner }),
      clientTerminals: false,
      localTerminals: () => host.list(owner).map((terminal) => terminal.terminalId),
      description:
        "This client does not advertise the terminal capability, so commands run as local processes on the agent's machine " +
        "(acp-process's local provider); their output comes back as text.",
    };
  }
  const { cursors, outputSince, write, pty, signal } = support.capabilities;
  // outputSince (`_meta["acp-terminal"].outputSince`): each read returns only the new bytes.
  const extras = Object.entries({
    "exact output cursors": cursors,
    "exact increments": outputSince,
    stdin: write,
    PTY: pty,
    signals: signal,
  })
    .filter(([, on]) => on)
    .map(([name]) => name);
  const extension =
    extras.length > 0
      ? `, with the acp-terminal extension (${extras.join(", ")})`
      : " (the five terminal/* calls only; output increments are derived from snapshots)";
  return {
    provider: new AcpTerminalProvider(client, { sessionId, clientCapabilities }),
    clientTerminals: true,
    description: `Commands run in this client's terminals over ACP${extension}.`,
  };
}

/**
 * ACP v2 (no client terminals exist): the client's MCP terminal server when the session declared
 * one, else local processes. Either way the runs are published as v2 agent-owned terminals.
 */
export function chooseV2Mode(
  sessionId: string,
  localHost: () => TerminalHost,
  mcpTerminals?: { name: string; call: McpToolCall },
): ExecutionMode {
  const published =
    "Each run is published as an ACP v2 agent-owned terminal (terminal_update, terminal_output_chunk; terminal/cancel stops it).";
  if (mcpTerminals) {
    return {
      provider: new McpToolsProvider(mcpTerminals.call),
      clientTerminals: false,
      description: `ACP v2: commands run on the client's machine through its MCP terminal server (${mcpTerminals.name}, MCP-over-ACP). ${published}`,
    };
  }
  const host = localHost();
  const owner = { connectionId: "demo-agent-v2", sessionId };
  return {
    provider: new LocalTerminalProvider(host, { owner }),
    clientTerminals: false,
    localTerminals: () => host.list(owner).map((terminal) => terminal.terminalId),
    description: `ACP v2: commands run as local processes on the agent's machine (acp-process's local provider). ${published}`,
  };
}
