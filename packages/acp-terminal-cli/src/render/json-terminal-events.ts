import { TextDecoder } from "node:util";
import type { ExitStatus, TerminalInfo } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import type { AgentTerminal } from "../view/agent-terminal.js";
import { jsonLine } from "./json-line.js";
import {
  JsonOutputStream,
  LAGGING_FINAL_BYTES,
  MAX_EVENT_BYTES,
  type OutputEventFields,
} from "./json-output-stream.js";
import type { Output } from "./output.js";

export { LAGGING_FINAL_BYTES, MAX_EVENT_BYTES } from "./json-output-stream.js";
/** Line buffers kept for reuse once the stream let go of them. */
const MAX_SPARE_LINE_BUFFERS = 2;
/** Line buffers the stream may hold before the next output line waits for it to let go of one. */
const MAX_IN_FLIGHT_BYTES = 1024 * 1024;

/** An agent's terminal: its output read from the CLI's buffer of it by a cursor. */
interface FollowedTerminal {
  output: OutputReader;
  /** Stream offset up to which output was emitted (or skipped). */
  cursor: number;
  /** A snapshot replaced the output; the next `output` event says so (`replace: true`). */
  replace?: boolean;
  /** For its screen when it exits. */
  agent: AgentTerminal;
}

/**
 * `--json`'s `terminal` events: `create`, `update`, `output`, `exit`, `release`. The output of the
 * CLI's own terminals is handed over chunk by chunk (`hostedBytes`) and written as it arrives
 * while stdout keeps up; while the reader lags it waits in a buffer of its own per terminal, and
 * what was skipped is said exactly (`JsonOutputStream`), whatever the agent's `outputByteLimit`.
 * An agent's terminal's output is read from the CLI's buffer of it by a cursor, and what went by
 * unread while the reader lagged is reported as `skippedBytes`. The other events are always
 * written; `create` says what runs: the command line and whether a shell runs it, the request's
 * `args`, `cwd`, the names of the variables it set (their values with `--verbose`) and its limit.
 */
export class JsonTerminalEvents {
  private readonly terminals = new Map<string, FollowedTerminal>();
  private readonly hosted = new Map<string, JsonOutputStream>();
  private readonly pending = new Set<string>();
  private waitingForDrain = false;
  /** Buffers output lines were built in, once the stream let go of them. */
  private readonly spare: Buffer[] = [];
  /** Bytes of line buffers written whose buffer the stream still holds. */
  private inFlightBytes = 0;
  private waitingForLine = false;
  private readonly canWrite = () => !this.lagging() && !this.linesInFlight();

  constructor(
    private readonly out: Output,
    /** Write the values of the variables a terminal's request set (`--verbose`), not just their names. */
    private readonly envValues = false,
  ) {}

  terminalCreated(info: TerminalInfo): void {
    const { terminalId } = info;
    this.hosted.set(
      terminalId,
      new JsonOutputStream((bytes, fields) => this.emitOutput(terminalId, bytes, fields)),
    );
    this.emit({
      type: "terminal",
      event: "create",
      terminalId,
      command: info.command,
      args: info.argsGiven ? info.args : null,
      shell: info.shell ? (info.argv[0] ?? null) : null,
      argv: info.argv,
      cwd: info.cwd,
      env: info.env.map(({ name, value }) => (this.envValues ? { name, value } : { name })),
      outputByteLimit: info.outputByteLimit,
      pty: info.pty,
    });
  }

  /** A chunk of one of the CLI's terminals (a view valid during the call). */
  hostedBytes(terminalId: string, data: Uint8Array): void {
    const stream = this.hosted.get(terminalId);
    if (stream === undefined) {
      return;
    }
    stream.append(data, this.canWrite);
    if (stream.waiting) {
      this.pending.add(terminalId);
      this.resumeLater();
    }
  }

  agentTerminalCreated(terminal: AgentTerminal): void {
    this.terminals.set(terminal.terminalId, {
      output: terminal.output,
      cursor: 0,
      agent: terminal,
    });
    this.emit({ type: "terminal", event: "create", ...agentTerminalFields(terminal) });
  }

  agentTerminalChanged(terminal: AgentTerminal): void {
    this.emit({ type: "terminal", event: "update", ...agentTerminalFields(terminal) });
  }

  agentTerminalReplaced(terminal: AgentTerminal): void {
    const term = this.terminals.get(terminal.terminalId);
    if (term === undefined) {
      return;
    }
    term.output = terminal.output;
    term.cursor = 0;
    term.replace = true;
    this.terminalOutput(terminal.terminalId);
  }

  terminalOutput(terminalId: string): void {
    this.pending.add(terminalId);
    // At once, while the chunk is still in the buffer: by the next turn more may have pushed it out.
    if (!this.waitingForDrain) {
      this.writePending();
    }
  }

  terminalExited(terminalId: string, exitStatus: ExitStatus): void {
    this.pending.delete(terminalId);
    // Output before its exit, always; while the reader lags, only the newest bytes of it.
    const lagging = this.out.lagging === true;
    this.hosted.get(terminalId)?.end(lagging);
    const term = this.terminals.get(terminalId);
    if (term !== undefined) {
      const since = lagging
        ? Math.max(term.cursor, term.output.totalBytes - LAGGING_FINAL_BYTES)
        : term.cursor;
      if (this.emitAgentOutput(terminalId, term, since)) {
        while (this.emitAgentOutput(terminalId, term)) {
          // until the cursor is at the end
        }
      }
    }
    const screen = term === undefined ? {} : screenFields(term.agent);
    this.emit({ type: "terminal", event: "exit", terminalId, exitStatus, ...screen });
    // An agent's terminal is not released: after its exit nothing more of it is shown.
    this.terminals.delete(terminalId);
  }

  terminalReleased(terminalId: string): void {
    this.pending.delete(terminalId);
    this.hosted.get(terminalId)?.end(this.out.lagging === true);
    this.hosted.delete(terminalId);
    this.terminals.delete(terminalId);
    this.emit({ type: "terminal", event: "release", terminalId });
  }

  /** Output waits: it is written once the reader caught up, or the stream let go of a line. */
  private resumeLater(): void {
    if (this.lagging()) {
      this.waitForDrain();
    } else if (this.linesInFlight()) {
      this.waitingForLine = true; // resumed when the stream lets go of a line (see emitOutput)
    }
  }

  private writePending(): void {
    for (const terminalId of this.pending) {
      const stream = this.hosted.get(terminalId);
      const term = this.terminals.get(terminalId);
      if (stream !== undefined) {
        stream.drain(this.canWrite);
      } else if (term !== undefined) {
        while (this.canWrite() && this.emitAgentOutput(terminalId, term)) {
          // one bounded event at a time, checking the reader between them
        }
      }
      if (!this.canWrite()) {
        return this.resumeLater();
      }
      this.pending.delete(terminalId);
    }
  }

  /** The stream holds MAX_IN_FLIGHT_BYTES of line buffers: the next line waits (bounded memory). */
  private linesInFlight(): boolean {
    return this.spare.length === 0 && this.inFlightBytes >= MAX_IN_FLIGHT_BYTES;
  }

  private lagging(): boolean {
    return this.out.lagging === true && this.out.onDrain !== undefined;
  }

  private waitForDrain(): void {
    if (this.waitingForDrain) {
      return;
    }
    this.waitingForDrain = true;
    this.out.onDrain!(() => {
      this.waitingForDrain = false;
      this.writePending();
    });
  }

  /** Emits the next event's worth of an agent's terminal's output; false when there was none. */
  private emitAgentOutput(
    terminalId: string,
    term: FollowedTerminal,
    since = term.cursor,
  ): boolean {
    const { bytes, fromByte } = term.output.viewSince(since, MAX_EVENT_BYTES);
    const skippedBytes = fromByte - term.cursor;
    term.cursor = fromByte + bytes.byteLength;
    const replace = term.replace === true;
    if (bytes.byteLength === 0 && skippedBytes === 0 && !replace) {
      return false;
    }
    term.replace = false;
    this.emitOutput(terminalId, bytes, {
      ...(skippedBytes > 0 ? { skippedBytes } : {}),
      ...(replace ? { replace: true } : {}),
    });
    return bytes.byteLength > 0;
  }

  /** One `output` event: the output escaped straight into a reused line buffer. */
  private emitOutput(
    terminalId: string,
    bytes: Uint8Array,
    fields: OutputEventFields & { replace?: boolean },
  ): void {
    // The line as bytes, the output escaped straight into them: the JSON string of 64 KiB of
    // control bytes is 384 KiB, one more large string per event for V8 to collect (a 200 MB flood
    // grew the CLI's peak RSS by ~45 MB).
    const head = JSON.stringify({ type: "terminal", event: "output", terminalId });
    const tail = JSON.stringify(fields);
    const line = jsonLine(
      `${head.slice(0, -1)},"output":`,
      bytes,
      `${tail === "{}" ? "}" : `,${tail.slice(1)}`}\n`,
      this.spare.pop(),
    );
    // Its buffer is reused once the stream let go of it (a new one per line would be freed only by
    // a GC, which V8 starts after ~64 MB of them); at most MAX_IN_FLIGHT_BYTES of them are held.
    this.inFlightBytes += line.buffer.byteLength;
    this.out.write(line, () => {
      this.inFlightBytes -= line.buffer.byteLength;
      if (this.spare.length < MAX_SPARE_LINE_BUFFERS) {
        this.spare.push(Buffer.from(line.buffer));
      }
      if (this.waitingForLine) {
        this.waitingForLine = false;
        this.writePending();
      }
    });
  }

  private emit(value: Record<string, unknown>): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }
}

/**
 * An agent's terminal's `create`/`update` fields: those of the CLI's terminals (`args` empty:
 * `command` is the whole line), the protocol that reports it, and its size and cancel capability.
 */
function agentTerminalFields(terminal: AgentTerminal): Record<string, unknown> {
  return {
    terminalId: terminal.terminalId,
    command: terminal.command ?? null,
    args: [],
    cwd: terminal.cwd ?? null,
    protocol: terminal.protocol,
    size: terminal.size,
    cancellable: terminal.cancellable,
  };
}

/** What an agent's terminal's screen shows, at most MAX_EVENT_BYTES of its newest text. */
function screenFields(terminal: AgentTerminal): Record<string, unknown> {
  const text = terminal.text();
  const bytes = Buffer.from(text);
  const cut = bytes.byteLength > MAX_EVENT_BYTES;
  return {
    screen: cut
      ? new TextDecoder().decode(bytes.subarray(bytes.byteLength - MAX_EVENT_BYTES))
      : text,
    ...(cut ? { screenCut: true } : {}),
    size: terminal.size,
  };
}
