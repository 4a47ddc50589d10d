import { TextDecoder } from "node:util";
import type { ExitStatus, TerminalInfo } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import type { AgentTerminal } from "../view/agent-terminal.js";
import { jsonLine } from "./json-line.js";
import type { Output } from "./output.js";

/** Bytes of terminal output one `output` event carries at most. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** A terminal that exits while the reader lags: the newest bytes its last `output` event carries. */
export const LAGGING_FINAL_BYTES = 4 * 1024;
/** Line buffers kept for reuse once the stream let go of them. */
const MAX_SPARE_LINE_BUFFERS = 2;
/** Line buffers the stream may hold before the next output line waits for it to let go of one. */
const MAX_IN_FLIGHT_BYTES = 1024 * 1024;

interface FollowedTerminal {
  output: OutputReader;
  /** Stream offset up to which output was emitted (or skipped). */
  cursor: number;
  /** An agent's terminal: a snapshot replaced the output; the next `output` event says so (`replace: true`). */
  replace?: boolean;
  /** An agent's terminal, for its screen when it exits. */
  agent?: AgentTerminal;
}

/**
 * `--json`'s `terminal` events: `create`, `update`, `output`, `exit`, `release`. Terminal output is
 * read from the host's buffer by a cursor per terminal, in whole characters, as it arrives while
 * stdout keeps up: while the reader lags, output waits in that buffer, which keeps only its newest
 * bytes, and what went by unread is reported as `skippedBytes` on the next `output` event. The
 * other events are always written.
 */
export class JsonTerminalEvents {
  private readonly terminals = new Map<string, FollowedTerminal>();
  private readonly pending = new Set<string>();
  private waitingForDrain = false;
  /** Buffers output lines were built in, once the stream let go of them. */
  private readonly spare: Buffer[] = [];
  /** Bytes of line buffers written whose buffer the stream still holds. */
  private inFlightBytes = 0;
  private waitingForLine = false;

  constructor(private readonly out: Output) {}

  terminalCreated(info: TerminalInfo, output: OutputReader): void {
    this.terminals.set(info.terminalId, { output, cursor: 0 });
    this.emit({
      type: "terminal",
      event: "create",
      terminalId: info.terminalId,
      command: info.command,
      args: info.args,
      cwd: info.cwd,
      pty: info.pty,
    });
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
    const term = this.terminals.get(terminalId);
    if (term !== undefined) {
      this.pending.delete(terminalId);
      // Output before its exit, always; while the reader lags, only the newest bytes of it.
      const since =
        this.out.lagging === true
          ? Math.max(term.cursor, term.output.totalBytes - LAGGING_FINAL_BYTES)
          : term.cursor;
      if (this.emitOutput(terminalId, term, since)) {
        while (this.emitOutput(terminalId, term)) {
          // until the cursor is at the end
        }
      }
    }
    const screen = term?.agent === undefined ? {} : screenFields(term.agent);
    this.emit({ type: "terminal", event: "exit", terminalId, exitStatus, ...screen });
    // An agent's terminal is not released: after its exit nothing more of it is shown.
    if (term?.agent !== undefined) {
      this.terminals.delete(terminalId);
    }
  }

  terminalReleased(terminalId: string): void {
    this.pending.delete(terminalId);
    this.terminals.delete(terminalId);
    this.emit({ type: "terminal", event: "release", terminalId });
  }

  private writePending(): void {
    for (const terminalId of this.pending) {
      const term = this.terminals.get(terminalId);
      if (term === undefined) {
        this.pending.delete(terminalId);
        continue;
      }
      while (!this.lagging() && !this.linesInFlight() && this.emitOutput(terminalId, term)) {
        // one bounded event at a time, checking the reader between them
      }
      if (this.lagging()) {
        return this.waitForDrain();
      }
      if (this.linesInFlight()) {
        this.waitingForLine = true; // resumed when the stream lets go of a line (see emitOutput)
        return;
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

  /** Emits the next event's worth of a terminal's output; false when there was none. */
  private emitOutput(terminalId: string, term: FollowedTerminal, since = term.cursor): boolean {
    const { bytes, fromByte } = term.output.viewSince(since, MAX_EVENT_BYTES);
    const skippedBytes = fromByte - term.cursor;
    term.cursor = fromByte + bytes.byteLength;
    const replace = term.replace === true;
    if (bytes.byteLength === 0 && skippedBytes === 0 && !replace) {
      return false;
    }
    term.replace = false;
    // The line as bytes, the output escaped straight into them: the JSON string of 64 KiB of
    // control bytes is 384 KiB, one more large string per event for V8 to collect (a 200 MB flood
    // grew the CLI's peak RSS by ~45 MB).
    const head = JSON.stringify({ type: "terminal", event: "output", terminalId });
    const tail = JSON.stringify({
      ...(skippedBytes > 0 ? { skippedBytes } : {}),
      ...(replace ? { replace: true } : {}),
    });
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
    return bytes.byteLength > 0;
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
