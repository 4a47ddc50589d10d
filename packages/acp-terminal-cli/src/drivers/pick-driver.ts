import type { Stream } from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION as V2 } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { containmentFor, terminalClientCapabilities } from "acp-terminal";
import { containmentOption, type RunOptions } from "../command/args.js";
import type { ProtocolDriver } from "../conversation/driver.js";
import { offerV2 } from "./negotiate.js";
import { V1ClientTerminals } from "./v1-client-terminals.js";
import { V2AgentTerminals } from "./v2-agent-terminals.js";

export interface PickedDriver {
  driver: ProtocolDriver;
  /** The agent's stream to speak on (after an offer, the one that answers the driver's `initialize`). */
  stream: Stream;
  /** The v2 offer waited `--init-timeout` for an answer in vain (or `signal` stopped the wait). */
  offerTimedOut: boolean;
}

/**
 * The driver for `--protocol`: v1 (the default) at once. `v2` and `auto` first offer v2 on the
 * stream (`offerV2`) and read the answer: v2 speaks the draft, or ends saying which version the
 * agent answered with; auto speaks v1 when the agent answers with another version or refuses the
 * offer (v1's own `initialize` is then answered with the agent's answer, not sent again).
 */
export async function pickDriver(
  options: RunOptions,
  stream: Stream,
  version: string,
  signal: AbortSignal,
): Promise<PickedDriver> {
  const v1 = () => new V1ClientTerminals({ agent: options.agent, cwd: options.cwd, version });
  if (options.protocol === undefined) {
    return { driver: v1(), stream, offerTimedOut: false };
  }
  const auto = options.protocol === "auto";
  const offer = await offerV2(
    stream,
    {
      protocolVersion: V2,
      info: { name: "acp-terminal", version },
      capabilities: {},
      // For a v1 agent, which reads these and drops the v2 fields as unknown.
      ...(auto
        ? {
            clientInfo: { name: "acp-terminal", version },
            clientCapabilities: options.mcpTools
              ? { terminal: false }
              : terminalClientCapabilities({
                  containment: containmentFor(containmentOption(options)),
                }),
          }
        : {}),
    },
    options.initTimeoutMs,
    signal,
  );
  const offerTimedOut = offer.kind === "timeout";
  const v2 = offer.kind === "answered" && offer.version === V2;
  if (auto && !v2) {
    return { driver: v1(), stream: offer.stream, offerTimedOut };
  }
  const driver = new V2AgentTerminals({
    cwd: options.cwd,
    approval: options.approval,
    on: options.on,
    maxTerminals: options.maxTerminals,
    maxTotalTerminals: options.maxTotalTerminals,
    version,
    ...(offer.kind === "answered" && !v2 ? { answeredVersion: offer.version } : {}),
  });
  return { driver, stream: offer.stream, offerTimedOut };
}
