import type { ExtensionFeatures } from "acp-terminal/protocol";
import type { ResourceUsage } from "./proc-usage.js";
import type { InputWait } from "./input-probe.js";
/**
 * The five ACP terminal primitives as an interface, plus the optional capabilities our host
 * advertises (exact cursors, stdin write, resize, signals). A provider is bound to one session.
 */

export interface ProviderExitStatus {
  exitCode: number | null;
  /** Signal name (`"SIGTERM"`) or null. */
  signal: string | null;
}

export interface ProviderCreateParams {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Absolute path; omitted means the client's default for the session. */
  cwd?: string;
  /** Bytes of output the client retains (tail). */
  outputByteLimit?: number;
  /** Run in a PTY (requires `capabilities.pty`). */
  pty?: boolean | { cols: number; rows: number };
  /** Keep stdin open for `write` (requires `capabilities.write`). */
  stdin?: boolean;
  /** The run's labels, for a provider that acts on who started it; never sent to a client. */
  labels?: Readonly<Record<string, string>>;
}

export interface ProviderOutput {
  /** The retained tail of the output, decoded as text. */
  output: string;
  truncated: boolean;
  /** Present once the command exited (and, on our host, its output is drained). */
  exitStatus?: ProviderExitStatus | null;
  /** Cursor extension: bytes written since start. Absent on clients without cursors. */
  totalBytes?: number;
  /** Cursor extension: bytes dropped from the beginning. */
  droppedBytes?: number;
  /**
   * Exact increments: present when the read asked for `sinceByte` and the client honoured it.
   * `output` is then the text from stream offset `fromByte` to `totalBytes`; `fromByte - sinceByte`
   * bytes were dropped before they could be read.
   */
  fromByte?: number;
  /**
   * The client's remarks about the command so far, oldest first (acp-terminal's host: the
   * connection to where it ran was lost): shown beside the run's output as notices, never in it.
   */
  notices?: string[];
}

export interface ProviderOutputOptions {
  /** Ask for only the text from this stream offset on (requires `capabilities.outputSince`). */
  sinceByte?: number;
}

/**
 * Output pushed as the provider reads it (`TerminalProvider.stream`): the raw bytes of a terminal,
 * so a fast command loses nothing to a retention limit between two polls.
 */
export interface OutputStream {
  /** What the terminal held when the stream began, from byte `fromByte` (bytes before it were dropped). */
  backlog: Uint8Array;
  fromByte: number;
  /** No more pushes. */
  stop(): void;
}

/** Which acp-terminal extension features a provider offers: one flag per feature the vocabulary defines. */
export type ProviderCapabilities = ExtensionFeatures;

export interface TerminalProvider {
  /** Short name for messages and listings: `"local"`, `"acp"`. */
  readonly kind: string;
  readonly capabilities: ProviderCapabilities;
  create(params: ProviderCreateParams): Promise<string>;
  /** The retained tail, or with `sinceByte` (when `capabilities.outputSince`) only what follows it. */
  output(terminalId: string, options?: ProviderOutputOptions): Promise<ProviderOutput>;
  waitForExit(terminalId: string): Promise<ProviderExitStatus>;
  /** Ends the command (the client's own escalation); the terminal stays readable. */
  kill(terminalId: string): Promise<void>;
  release(terminalId: string): Promise<void>;
  /** Present when `capabilities.write`. */
  write?(terminalId: string, data: string | Uint8Array, options?: { eof?: boolean }): Promise<void>;
  /** Present when `capabilities.pty`. */
  resize?(terminalId: string, cols: number, rows: number): Promise<void>;
  /** Present when `capabilities.signal`. */
  signal?(terminalId: string, signal: string): Promise<void>;
  /**
   * Pushes the terminal's raw output bytes from now on (each byte once, in order), with what it
   * holds already (the start of a character whose rest is still to come included); undefined
   * where it cannot (a PTY, whose output is read rendered, or a host without events). The run
   * then never reads the output: `waitForExit` must resolve after the last push. Local provider
   * only: ACP has no push.
   */
  stream?(
    terminalId: string,
    /** Each chunk in order: valid only during the call (copy what you keep). */
    onBytes: (bytes: Uint8Array) => void,
    /** The client's remarks about the command as they come (see `ProviderOutput.notices`). */
    onNotice?: (text: string) => void,
  ): OutputStream | undefined;
  /**
   * Whether the command is blocked reading its input now (the local provider, from /proc on
   * Linux): the process and how; undefined = not waiting; null = cannot be told here.
   */
  inputWait?(terminalId: string): Promise<InputWait | undefined | null>;
  /** CPU time and memory of the command's process group; null when it cannot be measured now. */
  resourceUsage?(terminalId: string): Promise<ResourceUsage | null>;
}

export const NO_EXTENSIONS: ProviderCapabilities = Object.freeze({
  cursors: false,
  outputSince: false,
  write: false,
  pty: false,
  signal: false,
});
