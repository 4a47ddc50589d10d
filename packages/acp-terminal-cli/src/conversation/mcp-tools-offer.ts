import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type {
  ClientApp,
  ClientConnection,
  InitializeResponse,
  McpServer,
} from "@agentclientprotocol/sdk";
import { McpOverAcpProvider, methods } from "@agentclientprotocol/sdk/unstable";
import type { TerminalHost } from "acp-terminal";
import { approvalFlagArgs, type ApprovalFlags } from "acp-terminal/approval";

const SERVER_NAME = "terminals";

export interface McpToolsOfferOptions {
  host: TerminalHost;
  /** The session's cwd: where commands start and may not leave. */
  cwd: string;
  /** The CLI's flags, passed on to the stdio server: `--yes` or the `--allow` patterns, `--sandbox`. */
  approval: ApprovalFlags;
  /** Someone can approve a stdin write (`--yes` or a TTY to ask on). */
  stdinWritable: boolean;
  version: string;
  /** `--on`: the stdio server runs its commands there too. */
  on?: string | undefined;
}

/**
 * `acp-terminal run --mcp-tools`: the CLI's terminals offered to the agent as MCP tools
 * (`acp-terminal mcp`'s `exec` + `process`) instead of v1 terminals. To an agent that advertises
 * `mcpCapabilities.acp`, over the ACP connection (MCP-over-ACP): the tools run in the CLI's own
 * host, under its approval policy, and show as its terminals. To any other agent, as the stdio
 * server `acp-terminal mcp --workspace <cwd>` with the policy's flags, which it launches itself.
 */
export class McpToolsOffer {
  private readonly provider = new McpOverAcpProvider();
  private served: { dispose(): Promise<void> } | undefined;

  constructor(private readonly options: McpToolsOfferOptions) {}

  /** Serves `mcp/message` on the app; call before connecting. */
  listen(app: ClientApp): void {
    app.onRequest(
      methods.client.mcp.message,
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- McpOverAcpProvider.handleRequest checks the mcp/message params itself
      (params: unknown) => params as Parameters<McpOverAcpProvider["handleRequest"]>[0]["params"],
      (context) => this.provider.handleRequest(context),
    );
  }

  /** The v1 terminal capability is not advertised: the terminals are the MCP tools. */
  clientCapabilities(): Record<string, unknown> {
    return { terminal: false };
  }

  /** The `mcpServers` of `session/new`, for the agent that answered `initialize` with `init`. */
  async mcpServers(connection: ClientConnection, init: InitializeResponse): Promise<McpServer[]> {
    // `mcpCapabilities.acp` is in the unstable schema only.
    const mcpCapabilities: unknown = init.agentCapabilities?.mcpCapabilities;
    const overAcp =
      typeof mcpCapabilities === "object" &&
      mcpCapabilities !== null &&
      "acp" in mcpCapabilities &&
      mcpCapabilities.acp === true;
    if (!overAcp) {
      return [this.stdioDeclaration()];
    }
    // `{type: "acp"}` is in the unstable schema only; the agent advertised that it takes it.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- SDK type gap: `{type: "acp"}` is in the unstable schema only
    return [(await this.overAcp(connection.agent)) as unknown as McpServer];
  }

  /** ACP v1 or v2: `mcp/message` requests from the agent, answered by the tools (register before connecting). */
  handleMessage(
    context: Parameters<McpOverAcpProvider["handleRequest"]>[0],
  ): ReturnType<McpOverAcpProvider["handleRequest"]> {
    return this.provider.handleRequest(context);
  }

  /**
   * Serves the tools over the ACP connection whose agent side is `agent` (v1's or v2's
   * `connection.agent`), in the CLI's host; returns the `{type: "acp"}` declaration for session/new.
   */
  async overAcp(
    agent: Parameters<McpOverAcpProvider["registerServer"]>[0],
  ): Promise<ReturnType<McpOverAcpProvider["registerServer"]>["declaration"]> {
    // Loaded with the first MCP-over-ACP offer, so a run without --mcp-tools does not load the MCP SDK.
    const { hostTools } = await import("acp-terminal-mcp");
    const served = hostTools({
      host: this.options.host,
      workspace: realpathSync(this.options.cwd),
      stdinWritable: this.options.stdinWritable,
      version: this.options.version,
    });
    this.served = served;
    const registration = this.provider.registerServer(agent, {
      name: SERVER_NAME,
      handler: served.handler,
    });
    return registration.declaration;
  }

  /** Kills every command the tools still run (before the host is disposed). */
  async dispose(): Promise<void> {
    await this.served?.dispose();
  }

  private stdioDeclaration(): McpServer {
    return stdioMcpServer(this.options);
  }
}

/** The stdio server `acp-terminal mcp --workspace <cwd>` with the CLI policy's flags, as declared. */
export function stdioMcpServer(
  options: Pick<McpToolsOfferOptions, "cwd" | "approval" | "on">,
): McpServer & { command: string; args: string[] } {
  const policy = approvalFlagArgs(options.approval);
  const main = fileURLToPath(new URL("../main.js", import.meta.url));
  return {
    name: SERVER_NAME,
    command: process.execPath,
    args: [
      ...[main, "mcp", "--workspace", options.cwd, ...policy],
      ...(options.on !== undefined ? ["--on", options.on] : []),
    ],
    env: [],
  };
}
