import type { Stream } from "@agentclientprotocol/sdk";
import type { AgentExit } from "../agent/agent-process.js";
import type { LineTap } from "../agent/ndjson-stdio.js";
import type { RunOptions } from "../command/args.js";
import type { Renderer } from "../view/renderer.js";
import type { ConversationIo } from "./client-side.js";
import type { ProtocolDriver, SessionStarted, UserMcpServer } from "./driver.js";
import type { PromptSource } from "./prompts.js";

/** The agent behind the stream, when it is a process of ours. */
export interface AgentHandle {
  /** Resolves when it exits; the conversation then ends, saying when. */
  readonly exited: Promise<AgentExit>;
  /** Resolves with its first line on stdout when that is not JSON. */
  readonly notJson: Promise<string>;
  readonly lastStderrLine: string | undefined;
  /** Stops it and everything it started (`graceMs` before SIGKILL). */
  kill(graceMs?: number): Promise<void>;
  /** Puts a tap in front of the parser of its stdout, for a driver's fast lane. */
  tapLines?(tap: LineTap): void;
}

export interface ConversationInit {
  options: RunOptions;
  io: ConversationIo;
  view: Renderer;
  driver: ProtocolDriver;
  /** The agent's messages (the SDK's ndjson stream over its stdio, or an in-memory pair). */
  stream: Stream;
  /** Aborting ends the conversation at once; the reason (a `Stopped`, or anything) says why. */
  signal: AbortSignal;
  agent?: AgentHandle;
  /** The v2 offer already waited `--init-timeout` for an answer in vain. */
  offerTimedOut?: boolean;
  /** When the agent was started (the run's elapsed time counts from it). */
  startedAt?: number;
  /** The prompts, one a turn: by default the one of `options.prompt`. */
  prompts?: PromptSource;
  /** The user's MCP servers (`--mcp-config`), passed to the agent where it takes their kind. */
  userServers?: readonly UserMcpServer[];
  /** Told once the session exists (to remember it, name it, hold it against other runs). */
  onSessionStarted?: (session: SessionStarted) => void;
  /** The environment the agent inherits (an `env_var` login method's variables are looked up there). */
  env?: NodeJS.ProcessEnv;
}
