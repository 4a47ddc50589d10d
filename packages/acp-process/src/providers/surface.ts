import { detectClientTerminalSupport } from "./acp-capabilities.js";

/**
 * Where a session's commands run:
 * - `client-terminals`: the client's own terminals over ACP v1 (`terminal/*`);
 * - `mcp-tools`: the client's MCP terminal server (`exec` and `process` tools);
 * - `local`: an in-process host on the agent's machine;
 * - `none`: nowhere (every run fails to start, saying why).
 */
export type TerminalSurface = "client-terminals" | "mcp-tools" | "local" | "none";

export interface SurfaceChoice {
  surface: TerminalSurface;
  /**
   * Whether runs should be published as ACP v2 agent-owned terminals (`TerminalPublisher`): under
   * v2 the client has no terminals of its own to embed, so it sees a run only as a published one.
   */
  publishV2: boolean;
}

export interface SurfaceInputs {
  /** The protocol version negotiated by `initialize` (1 or 2). */
  protocolVersion: number;
  /** `clientCapabilities` from a v1 `initialize` (v2 has no terminal capability). */
  clientCapabilities?: unknown;
  /** The session declared an MCP terminal server in `mcpServers`. */
  mcpTools: boolean;
  /** A local host is available. */
  fallbackHost: boolean;
}

/**
 * The decision table (README "Surfaces"): v1 → the client's terminals when it advertises
 * `terminal: true`, else its MCP tools, else local; v2 (no `terminal/*` exists) → the client's MCP
 * tools when offered, else local; either way published as v2 terminals.
 */
export function chooseSurface(inputs: SurfaceInputs): SurfaceChoice {
  const v2 = inputs.protocolVersion >= 2;
  const clientTerminals = !v2 && detectClientTerminalSupport(inputs.clientCapabilities).terminal;
  const surface: TerminalSurface = clientTerminals
    ? "client-terminals"
    : inputs.mcpTools
      ? "mcp-tools"
      : inputs.fallbackHost
        ? "local"
        : "none";
  return { surface, publishV2: v2 && surface !== "none" };
}
