import { commandLine } from "./command-line.js";
import type {
  ProviderCapabilities,
  ProviderCreateParams,
  ProviderExitStatus,
  ProviderOutput,
  TerminalProvider,
} from "./types.js";
import { messageOf } from "../base/errors.js";

/**
 * Calls one tool of an MCP server and resolves with its `structuredContent`; rejects when the
 * call fails or answers `isError` (see `mcpOverAcpTools` for a client's server over ACP).
 */
export type McpToolCall = (
  name: string,
  args: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

export interface McpToolsProviderOptions {
  /** Bytes of output kept per terminal (the tail). Default 1 MiB, the host's default. */
  outputByteLimit?: number;
}

/** 30 days, the longest timeout `exec` accepts: the agent's own ProcessManager decides when to stop a run. */
const EXEC_TIMEOUT_S = 30 * 24 * 3600;
const DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024;
const WAIT_MIN_MS = 20;
const WAIT_MAX_MS = 500;
/** Answers to closing stdin that mean there is nothing to close (see `closeStdin`). */
const STDIN_UNWRITABLE =
  /\b(?:not_running|stdin_closed|unsupported)\b|stdin is closed|has exited|Denied/;
const FINISHED = new Set(["completed", "failed", "killed", "timed_out", "lost"]);

/** Most of the server's notices kept per terminal. */
const MAX_NOTICES = 20;

interface RemoteTerminal {
  tail: string;
  /** The server's notices about the run (its poll's `notices`), oldest first. */
  notices: string[];
  totalBytes: number;
  truncated: boolean;
  exitStatus: ProviderExitStatus | null;
  /** The read in flight: concurrent reads share it, so the server's poll cursor advances once. */
  reading?: Promise<void> | undefined;
  limit: number;
}

/**
 * Terminals over a client's MCP terminal server (`acp-terminal mcp`'s default tools, `exec` and
 * `process`): create = `exec` in the background (its stdin closed at once unless asked for: exec
 * keeps it open), output = `process poll` (increments, kept here as a byte-bounded tail with exact
 * counts: a poll that skips pending output past the server's cap says how many bytes with
 * `skippedBytes`), kill/signal = `process kill`, write = `process write`, release = `process
 * remove`. No PTY. Output is what the server's poll returns (the command's bytes only); the
 * server's notices come as the run's notices.
 */
export class McpToolsProvider implements TerminalProvider {
  readonly kind = "mcp";
  readonly capabilities: ProviderCapabilities = Object.freeze({
    cursors: true,
    outputSince: false,
    write: true,
    pty: false,
    signal: true,
  });
  private readonly terminals = new Map<string, RemoteTerminal>();
  /** Whether polls ask for `keep: "tail"` (false once a server refused the field). */
  private keepTail = true;

  constructor(
    private readonly call: McpToolCall,
    private readonly options: McpToolsProviderOptions = {},
  ) {}

  async create(params: ProviderCreateParams): Promise<string> {
    if (params.pty) {
      throw new Error("an MCP terminal server offers no PTY");
    }
    const answer = await this.call("exec", {
      command: commandLine({ command: params.command, args: params.args ?? null }),
      ...(params.cwd ? { workdir: params.cwd } : {}),
      ...(params.env ? { env: params.env } : {}),
      background: true,
      timeout: EXEC_TIMEOUT_S,
    });
    if (answer.status !== "running" || typeof answer.sessionId !== "string") {
      throw new Error(
        typeof answer.error === "string"
          ? answer.error
          : `exec answered ${JSON.stringify(answer).slice(0, 300)}`,
      );
    }
    const terminalId = answer.sessionId;
    if (!params.stdin) {
      await this.closeStdin(terminalId);
    }
    const terminal: RemoteTerminal = {
      tail: "",
      notices: [],
      totalBytes: 0,
      truncated: false,
      exitStatus: null,
      limit: params.outputByteLimit ?? this.options.outputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT,
    };
    this.terminals.set(terminalId, terminal);
    startingOutput(terminal, answer);
    return terminalId;
  }

  /**
   * `exec` keeps stdin open (a run it sends to the background may take `process write`); a
   * terminal created without `stdin` must see end-of-file, as the host gives it, not wait forever.
   */
  private async closeStdin(terminalId: string): Promise<void> {
    try {
      await this.call("process", { action: "write", sessionId: terminalId, data: "", eof: true });
    } catch (error) {
      // Nothing to close: the command already ended, its stdin is closed, the server cannot write,
      // or its policy refuses stdin writes (`acp-terminal mcp --allow` then starts commands with stdin closed).
      if (error instanceof Error && STDIN_UNWRITABLE.test(error.message)) {
        return;
      }
      await this.call("process", { action: "remove", sessionId: terminalId }).catch(
        () => undefined /* the first error is the one to report */,
      );
      throw new Error(
        `could not close the stdin of ${terminalId} (${messageOf(error)}); the command was removed`,
        { cause: error },
      );
    }
  }

  async output(terminalId: string): Promise<ProviderOutput> {
    const terminal = this.terminal(terminalId);
    await this.read(terminalId, terminal);
    return {
      output: terminal.tail,
      truncated: terminal.truncated,
      exitStatus: terminal.exitStatus,
      totalBytes: terminal.totalBytes,
      droppedBytes: terminal.totalBytes - Buffer.byteLength(terminal.tail),
      ...(terminal.notices.length > 0 ? { notices: [...terminal.notices] } : {}),
    };
  }

  async waitForExit(terminalId: string): Promise<ProviderExitStatus> {
    const terminal = this.terminal(terminalId);
    for (
      let delay = WAIT_MIN_MS;
      terminal.exitStatus === null;
      delay = Math.min(WAIT_MAX_MS, delay * 2)
    ) {
      await this.read(terminalId, terminal);
      if (terminal.exitStatus === null) {
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    return terminal.exitStatus;
  }

  async kill(terminalId: string): Promise<void> {
    await this.call("process", { action: "kill", sessionId: terminalId });
  }

  async signal(terminalId: string, signal: string): Promise<void> {
    await this.call("process", { action: "kill", sessionId: terminalId, signal });
  }

  async write(
    terminalId: string,
    data: string | Uint8Array,
    options?: { eof?: boolean },
  ): Promise<void> {
    const text = typeof data === "string" ? data : new TextDecoder().decode(data);
    await this.call("process", {
      action: "write",
      sessionId: terminalId,
      data: text,
      eof: options?.eof ?? false,
    });
  }

  async release(terminalId: string): Promise<void> {
    if (!this.terminals.delete(terminalId)) {
      return;
    }
    await this.call("process", { action: "remove", sessionId: terminalId });
  }

  private terminal(terminalId: string): RemoteTerminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) {
      throw new Error(`unknown or released terminal ${terminalId}`);
    }
    return terminal;
  }

  private read(terminalId: string, terminal: RemoteTerminal): Promise<void> {
    terminal.reading ??= this.poll(terminalId, terminal).finally(
      () => (terminal.reading = undefined),
    );
    return terminal.reading;
  }

  /** One poll returns everything pending (the newest part, with `skippedBytes` for the rest, past the server's cap). */
  private async poll(terminalId: string, terminal: RemoteTerminal): Promise<void> {
    if (terminal.exitStatus !== null) {
      return;
    }
    // The newest part when more is pending (not head and tail): this keeps a contiguous tail. A
    // server from before `keep` existed refuses the field; it keeps the newest part anyway.
    const ask = (keep: boolean) =>
      this.call("process", {
        action: "poll",
        sessionId: terminalId,
        ...(keep ? { keep: "tail" } : {}),
      });
    const page = await ask(this.keepTail).catch((error: unknown) => {
      if (!this.keepTail || !/\bkeep\b/.test(messageOf(error))) {
        throw error;
      }
      this.keepTail = false;
      return ask(false);
    });
    if (typeof page.skippedBytes === "number" && page.skippedBytes > 0) {
      skip(terminal, page.skippedBytes);
    }
    if (typeof page.output === "string" && page.output.length > 0) {
      append(terminal, page.output);
    }
    if (typeof page.missedItems === "number" && page.missedItems > 0) {
      terminal.truncated = true;
    }
    if (Array.isArray(page.notices)) {
      for (const text of page.notices) {
        if (typeof text === "string" && terminal.notices.length < MAX_NOTICES) {
          terminal.notices.push(`the server: ${text}`);
        }
      }
    }
    if (typeof page.status === "string" && FINISHED.has(page.status)) {
      terminal.exitStatus = {
        exitCode: typeof page.exitCode === "number" ? page.exitCode : null,
        signal: typeof page.signal === "string" ? page.signal : null,
      };
    }
  }
}

/**
 * What exec's `running` answer already showed: the server's polls continue after it. Earlier
 * output it left out (`omitted`, with a marker line first) is counted as skipped.
 */
function startingOutput(terminal: RemoteTerminal, answer: Record<string, unknown>): void {
  const shown = typeof answer["tail"] === "string" ? answer["tail"] : "";
  const omitted = answer["omitted"];
  const bytes =
    typeof omitted === "object" && omitted !== null && "bytes" in omitted ? omitted.bytes : 0;
  if (typeof bytes === "number" && bytes > 0) {
    skip(terminal, bytes);
    append(terminal, shown.slice(shown.indexOf("\n") + 1));
  } else if (shown !== "") {
    append(terminal, shown);
  }
}

/** Output the server skipped: counted, and the tail restarts after it (the tail is the stream's contiguous end). */
function skip(terminal: RemoteTerminal, bytes: number): void {
  terminal.totalBytes += bytes;
  terminal.tail = "";
  terminal.truncated = true;
}

/** Appends `text` and keeps the last `limit` bytes, cut on a character boundary. */
function append(terminal: RemoteTerminal, text: string): void {
  terminal.totalBytes += Buffer.byteLength(text);
  const tail = terminal.tail + text;
  const bytes = Buffer.from(tail);
  if (bytes.length <= terminal.limit) {
    terminal.tail = tail;
    return;
  }
  let start = bytes.length - terminal.limit;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) {
    start++; // not inside a character
  }
  terminal.tail = bytes.subarray(start).toString();
  terminal.truncated = true;
}
