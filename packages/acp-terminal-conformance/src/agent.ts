import { randomUUID } from "node:crypto";
import {
  agent,
  PROTOCOL_VERSION,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type Implementation,
} from "@agentclientprotocol/sdk";
import { packageVersion } from "acp-terminal/internal";
import { ACP_TERMINAL_META_KEY, readTerminalCapability } from "acp-terminal/protocol";
import type { Check } from "./base/check.js";
import { ALL_CHECKS } from "./checks/index.js";
import { summarize, summaryText, writeReport } from "./report.js";
import { runChecks } from "./runner.js";
import { messageOf } from "acp-terminal/internal";

export interface ConformanceAgentOptions {
  /** Write the JSON report here after every battery. */
  reportPath?: string | undefined;
  checks?: readonly Check[];
}

async function say(client: AgentContext, sessionId: string, text: string): Promise<void> {
  await client.notify("session/update", {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });
}

/**
 * An ACP agent whose every prompt runs the terminal conformance battery against the client that
 * launched it. One app serves one client (stdio).
 */
export function conformanceAgent(options: ConformanceAgentOptions = {}): AgentApp {
  const checks = options.checks ?? ALL_CHECKS;
  let capabilities: ClientCapabilities | undefined;
  let clientInfo: Implementation | null = null;
  const running = new Map<string, AbortController>();

  return agent({ name: "acp-terminal-conformance" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities;
      clientInfo = params.clientInfo ?? null;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: { loadSession: false },
        agentInfo: {
          name: "acp-terminal-conformance",
          version: packageVersion(new URL("../package.json", import.meta.url)),
        },
      };
    })
    .onRequest("session/new", () => ({ sessionId: randomUUID() }))
    .onNotification("session/cancel", ({ params }) => running.get(params.sessionId)?.abort())
    .onRequest("session/prompt", async ({ params, client }) => {
      const { sessionId } = params;
      if (capabilities?.terminal !== true) {
        await say(
          client,
          sessionId,
          "This client does not advertise clientCapabilities.terminal: true, so an agent may not call its terminal methods. Nothing to check: advertise the capability once the five terminal/* methods are implemented.\n",
        );
        return { stopReason: "end_turn" };
      }
      const extension = readTerminalCapability(capabilities);
      const name = clientInfo === null ? "this client" : `${clientInfo.name} ${clientInfo.version}`;
      const extensionNote =
        extension === undefined
          ? ` Extension checks are skipped: the client does not advertise _meta["${ACP_TERMINAL_META_KEY}"].`
          : "";
      await say(
        client,
        sessionId,
        `Running ${checks.length} terminal conformance checks against ${name}.${extensionNote}\n`,
      );
      const cancel = new AbortController();
      running.set(sessionId, cancel);
      try {
        const results = await runChecks(checks, {
          client,
          sessionId,
          signal: cancel.signal,
          extension,
        });
        const summary = summarize(results);
        if (options.reportPath !== undefined) {
          await writeReport(options.reportPath, {
            client: clientInfo,
            checks: results,
            summary,
          }).catch((error: unknown) =>
            say(
              client,
              sessionId,
              `Could not write the report to ${options.reportPath}: ${messageOf(error)}\n`,
            ),
          );
        }
        await say(client, sessionId, summaryText(summary));
        return { stopReason: cancel.signal.aborted ? "cancelled" : "end_turn" };
      } finally {
        running.delete(sessionId);
      }
    });
}
