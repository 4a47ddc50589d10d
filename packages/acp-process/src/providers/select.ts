import { AcpTerminalProvider, type AcpRequester } from "./acp.js";
import { LocalTerminalProvider, type TerminalHostLike } from "./local.js";
import { McpToolsProvider, type McpToolCall } from "./mcp-tools.js";
import { chooseSurface } from "./surface.js";
import type { TerminalProvider } from "./types.js";

export interface ClientProviderOptions {
  /** The agent's connection to the client (`AgentConnection.client` or a handler's `ctx.client`). */
  connection: AcpRequester;
  /** `clientCapabilities` from `initialize`. */
  clientCapabilities: unknown;
  /**
   * Used when the client lacks the terminal capability: commands then run in this in-process host
   * (on the agent's machine). Omitted: such clients get a provider whose every call fails with a
   * clear message.
   */
  fallbackHost?: TerminalHostLike;
  /**
   * The client's MCP terminal server for a session (`acp-terminal mcp`'s `exec` and `process`
   * tools, e.g. through `mcpOverAcpTools`), or undefined when the session declared none. Used when
   * the client lacks the terminal capability, before the fallback host.
   */
  mcpTools?: (sessionId: string) => McpToolCall | undefined;
  /**
   * The protocol version `initialize` negotiated. Default 1. Under 2 there are no client
   * terminals: the MCP terminal server, else the fallback host (publish those runs with a
   * `TerminalPublisher`).
   */
  protocolVersion?: number;
}

/**
 * A `providerFor(sessionId)` for ProcessManager, by `chooseSurface`: the client's terminals over
 * ACP v1 when it has the terminal capability, else the client's MCP terminal server when the
 * session declared one, else the fallback host. One provider per session, cached.
 */
export function providerForClient(
  options: ClientProviderOptions,
): (sessionId: string) => TerminalProvider {
  const cache = new Map<string, TerminalProvider>();
  return (sessionId) => {
    let provider = cache.get(sessionId);
    if (!provider) {
      const inputs = {
        protocolVersion: options.protocolVersion ?? 1,
        clientCapabilities: options.clientCapabilities,
        fallbackHost: options.fallbackHost !== undefined,
      };
      // The session's MCP server is looked up only when the client's own terminals are not used.
      const mcp =
        chooseSurface({ ...inputs, mcpTools: false }).surface === "client-terminals"
          ? undefined
          : options.mcpTools?.(sessionId);
      const { surface } = chooseSurface({ ...inputs, mcpTools: mcp !== undefined });
      if (surface === "client-terminals") {
        provider = new AcpTerminalProvider(options.connection, {
          sessionId,
          clientCapabilities: options.clientCapabilities,
        });
      } else if (surface === "mcp-tools") {
        provider = new McpToolsProvider(mcp!);
      } else if (surface === "local") {
        provider = new LocalTerminalProvider(options.fallbackHost!, {
          owner: { connectionId: "local", sessionId },
        });
      } else {
        provider = new AcpTerminalProvider(
          (options.protocolVersion ?? 1) >= 2 ? refusingV2Requester : refusingRequester,
          { sessionId },
        );
      }
      // Bounded: forget the oldest session's provider (they are stateless, re-created on demand).
      if (cache.size >= MAX_CACHED_SESSIONS) {
        cache.delete(cache.keys().next().value!);
      }
      cache.set(sessionId, provider);
    }
    return provider;
  };
}

const MAX_CACHED_SESSIONS = 1000;

const refusingRequester: AcpRequester = {
  request() {
    return Promise.reject(
      new Error(
        "the client does not offer terminals (clientCapabilities.terminal is not true) and no fallback host was given",
      ),
    );
  },
};

const refusingV2Requester: AcpRequester = {
  request() {
    return Promise.reject(
      new Error(
        "ACP v2 has no client terminals (terminal/* is gone): give a fallback host (its runs are published as v2 terminals) or have the client declare its MCP terminal server",
      ),
    );
  },
};
