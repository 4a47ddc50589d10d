import type { Stream } from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION as V2 } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { containmentFor } from "acp-terminal";
import { containmentOption, type RunOptions } from "../command/args.js";
import type { ProtocolDriver } from "../conversation/driver.js";
import { offerV2 } from "./negotiate.js";
import { v1ClientCapabilities, V1ClientTerminals } from "./v1-client-terminals.js";
import { v2ClientCapabilities, V2AgentTerminals } from "./v2-agent-terminals.js";

export interface PickedDriver {
  driver: ProtocolDriver;
  /** The agent's stream to speak on (after an offer, the one that answers the driver's `initialize`). */
  stream: Stream;
  /** The v2 offer waited `--init-timeout` for an answer in vain (or `signal` stopped the wait). */
  offerTimedOut: boolean;
}

/** What the driver's capabilities depend on besides the flags. */
export interface PickIo {
  /** The CLI's version, for `clientInfo`/`info`. */
  version: string;
  /** A person is at the TTY: terminal logins can run (`auth.terminal`). */
  terminalLogin: boolean;
}

/**
 * The driver of the best dialect the agent offers, or the one `--protocol` forces. The default
 * (auto) offers v2 on the stream (`offerV2`, one `initialize` that carries v1's fields too) and
 * reads the answer: v2 speaks the draft; an agent that answers with version 1, or refuses the
 * offer, gets v1 with `_meta` terminal output declared (client terminals are declared too, so an
 * agent that calls `terminal/create` is served as well; v1's own `initialize` is answered with the
 * agent's answer, not sent again). `--session` speaks v1 (v2 resume is not supported here).
 * Forced: `v2` offers v2 and ends, saying which version the agent answered, when not that one;
 * `v1-meta` and `v1` speak v1 at once, declaring `_meta` terminal output or not.
 */
export async function pickDriver(
  options: RunOptions,
  stream: Stream,
  io: PickIo,
  signal: AbortSignal,
): Promise<PickedDriver> {
  const { version, terminalLogin } = io;
  const v1 = (declareMeta: boolean) =>
    new V1ClientTerminals({
      agent: options.agent,
      cwd: options.cwd,
      version,
      declareMeta,
      ...(options.noFs === true ? { noFs: true } : {}),
      maxTerminals: options.maxTerminals,
      maxTotalTerminals: options.maxTotalTerminals,
    });
  const forced = options.protocol;
  if (forced === "v1" || forced === "v1-meta") {
    return { driver: v1(forced === "v1-meta"), stream, offerTimedOut: false };
  }
  const auto = forced === undefined;
  if (auto && options.session?.resume !== undefined) {
    return { driver: v1(true), stream, offerTimedOut: false };
  }
  const offer = await offerV2(
    stream,
    {
      protocolVersion: V2,
      info: { name: "acp-terminal", version },
      capabilities: v2ClientCapabilities(terminalLogin),
      // For a v1 agent, which reads these and drops the v2 fields as unknown.
      ...(auto
        ? {
            clientInfo: { name: "acp-terminal", version },
            clientCapabilities: v1ClientCapabilities({
              mcpTools: options.mcpTools === true,
              declareMeta: true,
              terminalLogin,
              host: { containment: containmentFor(containmentOption(options)) },
              ...(options.noFs === true ? { noFs: true } : {}),
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
    return { driver: v1(true), stream: offer.stream, offerTimedOut };
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
