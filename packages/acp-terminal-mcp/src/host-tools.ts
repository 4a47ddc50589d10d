import { ProcessManager } from "acp-process";
import type { TerminalHost } from "acp-terminal";
import {
  fromMcpServer,
  type McpServerAdapter,
} from "@agentclientprotocol/sdk/experimental/mcp-server";
import { toolServerFactory } from "./tool-server.js";
import { TOOL_SETS } from "./tool-sets.js";
import { WorkspaceProvider } from "./workspace-provider.js";

export interface HostToolsOptions {
  /** The embedder's host: its `authorize` hook is the approval policy, its events show the commands. */
  host: TerminalHost;
  /** Absolute and resolved: where commands start and may not leave. */
  workspace: string;
  /** Whether the host's policy can approve a stdin write (someone to ask, or allow-all); else commands start with stdin closed. */
  stdinWritable: boolean;
  version: string;
  progressIntervalMs?: number;
}

/**
 * `acp-terminal mcp`'s default tools (`exec` + `process`) over a host someone else owns, as an
 * MCP-over-ACP handler (register it with the ACP SDK's `McpOverAcpProvider`), for `acp-terminal
 * run --mcp-tools`: commands run in the CLI's host, under its approval policy, and show as its
 * terminals. `dispose` kills every run; the host stays the owner's.
 */
export function hostTools(options: HostToolsOptions): {
  handler: McpServerAdapter["handler"];
  dispose(): Promise<void>;
} {
  const manager = new ProcessManager({
    provider: new WorkspaceProvider(options.host, options.workspace, !options.stdinWritable),
  });
  const factory = toolServerFactory({
    tools: TOOL_SETS.exec,
    manager,
    sessionId: "mcp",
    progressIntervalMs: options.progressIntervalMs ?? 1000,
    version: options.version,
    instructions: `Command lines run through bash (or /bin/sh where there is no bash) in the user's acp-terminal, starting in ${options.workspace} (a working directory outside it is refused); the user's approval policy applies.`,
  });
  const adapter = fromMcpServer(factory);
  return {
    handler: adapter.handler,
    dispose: async () => {
      await adapter.close();
      await manager.dispose();
    },
  };
}
