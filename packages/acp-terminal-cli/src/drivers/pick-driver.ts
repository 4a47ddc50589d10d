import type { Stream } from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION as V2 } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { containmentFor } from "acp-terminal";
import { placeBeforeConnecting } from "acp-terminal/internal";
import { containmentOption, type RunOptions } from "../command/args.js";
import type { ProtocolDriver } from "../conversation/driver.js";
import { offerV2 } from "./negotiate.js";
import type { ProtocolMemory } from "./protocol-memory.js";
import { v1ClientCapabilities, V1ClientTerminals } from "./v1-client-terminals.js";
import { v2ClientCapabilities, V2AgentTerminals } from "./v2-agent-terminals.js";

export interface PickedDriver {
  driver: ProtocolDriver;
  /** The agent's stream to speak on (after an offer, the one that answers the driver's `initialize`). */
  stream: Stream;
  /** The v2 offer waited `--init-timeout` for an answer in vain (or `signal` stopped the wait). */
  offerTimedOut: boolean;
  /** Why v1 was spoken although `auto` offers v2 first: learned this run, or `remembered`. */
  v1Because?: string;
  remembered?: boolean;
}

/** The agent answered the v2 offer in v1's format: it must be started again, and spoken to in v1. */
export interface RestartWithV1 {
  restartWithV1: string;
}

/** What the driver's capabilities depend on besides the flags. */
export interface PickIo {
  /** The CLI's version, for `clientInfo`/`info`. */
  version: string;
  /** A person is at the TTY: terminal logins can run (`auth.terminal`). */
  terminalLogin: boolean;
  /** What `auto` learned of agent commands before (an agent that answers v2 in v1's format). */
  memory?: ProtocolMemory | undefined;
}

/** The agent's process as `pickDriverOrRestart` needs it: started again on demand. */
export interface AgentLaunch {
  stream: Stream;
  /** Stops this agent and starts it again; resolves with the new one's stream. */
  restart(): Promise<Stream>;
}

/**
 * `pickDriver`, and when the agent answered the v2 offer in v1's format (droid 0.215.0 echoes
 * version 2 with v1's fields), the agent started again and spoken to in v1 (`_meta` output
 * declared), which `io.memory` remembers for its command line once the agent answered v1's
 * `initialize`: the next run speaks v1 at once.
 */
export async function pickDriverOrRestart(
  options: RunOptions,
  agent: AgentLaunch,
  io: PickIo,
  signal: AbortSignal,
): Promise<PickedDriver> {
  const picked = await pickDriver(options, agent.stream, io, signal);
  if (!("restartWithV1" in picked)) {
    return picked;
  }
  const stream = await agent.restart();
  // Remembered once the agent answered v1's initialize: one that fails at v1 too is offered v2 again.
  const remember = () => io.memory?.remember(options.agent, picked.restartWithV1);
  const again = await pickDriver({ ...options, protocol: "v1-meta" }, stream, io, signal, remember);
  if ("restartWithV1" in again) {
    throw new Error("a v1 driver never asks for a restart"); // unreachable: no offer is made
  }
  return { ...again, v1Because: picked.restartWithV1 };
}

/**
 * A v2 offer answered with version 2 but in v1's format: v1's `agentCapabilities` or
 * `agentInfo`, and none of v2's `info` or `capabilities`.
 */
export function answeredInV1Format(answer: unknown): boolean {
  const field = (key: string) => {
    const value: unknown = Reflect.get(Object(answer), key);
    return typeof value === "object" && value !== null;
  };
  return (
    !field("info") && !field("capabilities") && (field("agentCapabilities") || field("agentInfo"))
  );
}

/**
 * The driver of the best dialect the agent offers, or the one `--protocol` forces. The default
 * (auto) offers v2 on the stream (`offerV2`, one `initialize` that carries v1's fields too) and
 * reads the answer: v2 speaks the draft; an agent that answers with version 1, or refuses the
 * offer, gets v1 with `_meta` terminal output declared (client terminals are declared too, so an
 * agent that calls `terminal/create` is served as well; v1's own `initialize` is answered with the
 * agent's answer, not sent again). `--session` speaks v1 (v2 resume is not supported here).
 * Forced: `v2` offers v2 and ends, saying which version the agent answered, when not that one;
 * `v1-meta` and `v1` speak v1 at once, declaring `_meta` terminal output or not. Under `auto`, an
 * agent that answers version 2 in v1's format must be started again (`RestartWithV1`: see
 * `pickDriverOrRestart`), and one remembered so (`io.memory`) gets v1 at once.
 */
export async function pickDriver(
  options: RunOptions,
  stream: Stream,
  io: PickIo,
  signal: AbortSignal,
  /** Called once a v1 agent answered `initialize`. */
  v1Initialized?: () => void,
): Promise<PickedDriver | RestartWithV1> {
  const { version, terminalLogin } = io;
  const v1 = (declareMeta: boolean) =>
    new V1ClientTerminals({
      agent: options.agent,
      cwd: options.cwd,
      version,
      declareMeta,
      ...(options.noFs === true ? { noFs: true } : {}),
      initialized: v1Initialized,
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
  const remembered = auto ? io.memory?.recall(options.agent) : undefined;
  if (remembered !== undefined) {
    return {
      driver: v1(true),
      stream,
      offerTimedOut: false,
      v1Because: `${remembered.reason} (remembered in ${io.memory!.file})`,
      remembered: true,
    };
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
              // Sent before any connection opens: elsewhere, the kind and target only (the v1
              // driver's own initialize probes first, and says the OS and shell there too).
              host: {
                containment: containmentFor(containmentOption(options)),
                executor: placeBeforeConnecting(options.on ?? "local"),
              },
              ...(options.noFs === true ? { noFs: true } : {}),
            }),
          }
        : {}),
    },
    options.initTimeoutMs,
    signal,
  );
  const offerTimedOut = offer.kind === "timeout";
  if (
    auto &&
    offer.kind === "answered" &&
    offer.version === V2 &&
    answeredInV1Format(offer.answer)
  ) {
    return { restartWithV1: "answered the ACP v2 offer with version 2 in v1's format" };
  }
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
