import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import { KILL_GRACE_MS } from "acp-terminal";
import { terminateProcessGroup } from "acp-terminal/internal";
import { FirstLineSniffer } from "./first-line-sniffer.js";
import { ndJsonStdio, type LineTap, type TappableStream } from "./ndjson-stdio.js";

/** Characters of the agent's stderr kept to explain a failure. */
const STDERR_TAIL_CHARS = 2048;

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the shell could not be started at all. */
  error?: Error;
}

export interface LaunchOptions {
  commandLine: string;
  /** Where the agent process starts (the user's directory, not necessarily the session's cwd). */
  cwd: string;
  /** Agent stderr goes here; default: our stderr. */
  agentLogPath?: string | undefined;
  stderr: NodeJS.WritableStream;
}

/**
 * The agent as a child process: its command line runs through the shell in a process group of
 * its own (`detached: true`), so that `kill()` reaches the whole tree the agent may have started
 * (npx → node → …), exactly as the host kills a terminal's command. Its stderr goes to ours (or
 * `--agent-log`), its tail kept for error messages; its stdin and stdout are the subclass's.
 */
export class AgentChild {
  readonly exited: Promise<AgentExit>;
  protected readonly child: ChildProcess;
  private readonly log: WriteStream | undefined;
  private exitInfo: AgentExit | undefined;
  private stderrTail = "";

  constructor(options: LaunchOptions) {
    this.log =
      options.agentLogPath === undefined
        ? undefined
        : createWriteStream(options.agentLogPath, { flags: "a" });
    // Checked writable before launch; should it fail later (disk full), the agent's stderr is lost, not us.
    this.log?.on("error", (error) =>
      options.stderr.write(`acp-terminal: --agent-log: ${error.message}\n`),
    );
    this.child = spawn(options.commandLine, {
      shell: true,
      detached: true,
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.exited = new Promise<AgentExit>((resolve) => {
      this.child.once("exit", (code, signal) => resolve(this.recordExit({ code, signal })));
      this.child.once("error", (error) =>
        resolve(this.recordExit({ code: null, signal: null, error })),
      );
    });
    // A dead agent makes writes fail with EPIPE; the exit is reported through `exited` instead.
    this.child.stdin!.on("error", () => undefined);
    // One streaming decoder, so a character split across chunks is not garbled.
    const decoder = new TextDecoder();
    this.child.stderr!.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + decoder.decode(chunk, { stream: true })).slice(
        -STDERR_TAIL_CHARS,
      );
      (this.log ?? options.stderr).write(chunk);
    });
  }

  /** The last non-empty line the agent wrote on stderr, for error messages. */
  get lastStderrLine(): string | undefined {
    const lines = this.stderrTail.split(/\r?\n/).filter((line) => line.trim() !== "");
    return lines.at(-1)?.trim();
  }

  /** The agent's stdin, for a relay that writes it itself (a dead agent's EPIPE is ignored). */
  get stdin(): Writable {
    return this.child.stdin!;
  }

  /** The agent's stdout, for a relay that reads it itself. */
  get stdout(): Readable {
    return this.child.stdout!;
  }

  /** The agent's exit, once it has exited. */
  get exit(): AgentExit | undefined {
    return this.exitInfo;
  }

  /**
   * SIGTERM to the agent's process group, SIGKILL after `graceMs`, then SIGKILL to whatever is
   * left in the group (the host's process-group termination, src/terminate/kill.ts); resolves once
   * the agent has exited and its log is closed.
   */
  async kill(graceMs = KILL_GRACE_MS): Promise<void> {
    this.child.stdin?.end();
    const pid = this.child.pid;
    // No pid: the shell never started; `exited` has its spawn error.
    if (pid !== undefined) {
      await terminateProcessGroup(
        { pid, leaderExited: this.exited, hasExited: () => this.exitInfo !== undefined },
        { signal: "SIGTERM", graceMs },
      );
    }
    await this.exited;
    if (this.log !== undefined) {
      this.log.end();
      await once(this.log, "close").catch(() => undefined);
    }
  }

  private recordExit(exit: AgentExit): AgentExit {
    this.exitInfo ??= exit;
    return this.exitInfo;
  }
}

/** The agent as a child process speaking ACP: its stdio as a stream of JSON-RPC messages. */
export class AgentProcess extends AgentChild {
  readonly stream: TappableStream;
  /** Resolves with the start of the agent's first stdout line when that line is not JSON. */
  readonly notJson: Promise<string>;

  constructor(options: LaunchOptions) {
    super(options);
    let notJson!: (snippet: string) => void;
    this.notJson = new Promise((resolve) => (notJson = resolve));
    const sniffer = new FirstLineSniffer(notJson);
    this.stream = ndJsonStdio(this.child.stdin!, this.child.stdout!, sniffer);
  }

  /** Puts a tap in front of the parser of the agent's stdout (see LineTap). */
  tapLines(tap: LineTap): void {
    this.stream.tap(tap);
  }
}
