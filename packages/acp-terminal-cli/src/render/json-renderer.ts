/**
 * `--json` rendering. Over 300 lines: with the renderer lives the byte-level JSON string writer its
 * output events need (`jsonLine`), which makes neither a string of the output nor one of its JSON.
 */
import { TextDecoder } from "node:util";
import type { ExitStatus, TerminalInfo } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import type { AgentTerminal } from "../view/agent-terminal.js";
import type {
  BackgroundItem,
  InitializeShown,
  PermissionShown,
  ProtocolName,
  Renderer,
  RunResult,
  TurnShown,
} from "../view/renderer.js";
import type { Output } from "./output.js";

/** Bytes of terminal output one `output` event carries at most. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** A terminal that exits while the reader lags: the newest bytes its last `output` event carries. */
export const LAGGING_FINAL_BYTES = 4 * 1024;

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
 * `--json`: one JSON object per line on stdout and nothing else there. Terminal output is read
 * from the host's buffer by a cursor per terminal, in whole characters, as it arrives while
 * stdout keeps up:
 * while the reader lags, output waits in that buffer, which keeps only its newest bytes, and what
 * went by unread is reported as `skippedBytes` on the next `output` event. Every other event
 * (session updates, exits, releases, the result) is always written. Notices go to stderr.
 *
 * Session updates are written as the agent sent them (`rawUpdate`), with the protocol version
 * named when it is not v1 (the default, and the only one before v2); the events that tell their
 * meaning (messages, tool calls, thoughts, plans) are for people and not written again.
 */
export class JsonRenderer implements Renderer {
  /** Every byte is shown while stdout keeps up: a look once a frame could miss what the buffer dropped. */
  readonly everyChunk = true;
  readonly wantsRawUpdates = true;
  private readonly terminals = new Map<string, FollowedTerminal>();
  private readonly pending = new Set<string>();
  private waitingForDrain = false;
  /** The line that ends a failed run was written to stderr already. */
  private failedShown = false;
  /** Buffers output lines were built in, once the stream let go of them. */
  private readonly spare: Buffer[] = [];
  /** Bytes of line buffers written whose buffer the stream still holds. */
  private inFlightBytes = 0;
  private waitingForLine = false;

  constructor(
    private readonly out: Output,
    private readonly err: Output,
  ) {}

  rawUpdate(update: unknown, protocol: ProtocolName): void {
    this.emit({ type: "session_update", ...(protocol === "v1" ? {} : { protocol }), update });
  }

  messageText(): void {
    // Written as the session update that carried it.
  }

  thoughtText(): void {
    // Written as the session update that carried it.
  }

  plan(): void {
    // Written as the session update that carried it.
  }

  toolCallStarted(): void {
    // Written as the session update that carried it.
  }

  toolCallUpdated(): void {
    // Written as the session update that carried it.
  }

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

  background(items: BackgroundItem[], protocol: ProtocolName): void {
    this.emit({ type: "background", protocol, work: items });
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

  notice(message: string): void {
    this.err.write(`${message}\n`);
  }

  /** The agent's `initialize` answer: who it is, what it can do, how to log in. */
  initialized(intro: InitializeShown): void {
    this.emit({
      type: "initialize",
      protocol: intro.protocol,
      dialect: intro.dialect,
      protocolVersion: intro.protocolVersion,
      agentInfo: intro.agentInfo,
      agentCapabilities: intro.capabilities,
      authMethods: intro.authMethods,
    });
  }

  sessionStarted(session: { sessionId: string; how: string }): void {
    this.emit({ type: "session", sessionId: session.sessionId, how: session.how });
  }

  turnStarted(prompt: string): void {
    this.emit({ type: "turn", event: "start", prompt });
  }

  turnEnded(turn: TurnShown): void {
    this.emit({
      type: "turn",
      event: "end",
      stopReason: turn.stopReason ?? null,
      ...(turn.error === undefined ? {} : { error: turn.error }),
      runningTerminals: turn.running,
    });
  }

  /** A permission request and the answer the user's policy gave. */
  permission(asked: PermissionShown): void {
    this.emit({ type: "permission", ...asked });
  }

  failed(error: string): void {
    this.failedShown = true;
    this.err.write(`${error}\n`);
  }

  pause(): void {
    // Nothing is drawn in place in JSON mode.
  }

  resume(): void {
    // Nothing is drawn in place in JSON mode.
  }

  finish(result: RunResult): void {
    if (result.error !== undefined && !this.failedShown) {
      this.err.write(`${result.error}\n`);
    }
    this.emit({
      type: "result",
      stopReason: result.stopReason ?? null,
      exitCode: result.exitCode,
      ...(result.error === undefined ? {} : { error: result.error }),
      elapsedMs: Math.round(result.elapsedMs),
      terminals: result.terminals,
    });
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

/** Line buffers kept for reuse once the stream let go of them. */
const MAX_SPARE_LINE_BUFFERS = 2;
/** Line buffers the stream may hold before the next output line waits for it to let go of one. */
const MAX_IN_FLIGHT_BYTES = 1024 * 1024;
/** A line buffer is at least this large, so that short lines reuse one too. */
const MIN_LINE_BUFFER_BYTES = 64 * 1024;
/** What a byte below 0x80 becomes: 0 itself, else `\\` and this letter, or `\\u00XX` (0xff). */
const ASCII_ESCAPES = new Uint8Array(0x80);
for (let byte = 0; byte < 0x20; byte++) {
  ASCII_ESCAPES[byte] = 0xff;
}
for (const [byte, letter] of [
  [0x08, "b"],
  [0x09, "t"],
  [0x0a, "n"],
  [0x0c, "f"],
  [0x0d, "r"],
  [0x22, '"'],
  [0x5c, "\\"],
] as const) {
  ASCII_ESCAPES[byte] = letter.charCodeAt(0);
}
const HEX_DIGITS = Buffer.from("0123456789abcdef");

/**
 * The bytes of a valid UTF-8 character starting at `at` (2 to 4), or how many bytes make the
 * invalid sequence there, negated (-1 to -3), which becomes one U+FFFD: the WHATWG decoder's
 * maximal-subpart rule, so the result is what TextDecoder gives.
 */
function utf8Length(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  let length = 0;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    low = lead === 0xe0 ? 0xa0 : 0x80;
    high = lead === 0xed ? 0x9f : 0xbf;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    low = lead === 0xf0 ? 0x90 : 0x80;
    high = lead === 0xf4 ? 0x8f : 0xbf;
  } else {
    return -1;
  }
  for (let i = 1; i < length; i++) {
    const next = at + i < bytes.length ? bytes[at + i]! : -1;
    if (next < (i === 1 ? low : 0x80) || next > (i === 1 ? high : 0xbf)) {
      return -i;
    }
  }
  return length;
}

/**
 * `head`, then the UTF-8 `bytes` as a JSON string (the bytes `JSON.stringify(new
 * TextDecoder().decode(bytes))` encodes to, without making either string), then `tail`, in
 * `reuse` when it is large enough for the worst case (every byte escaped to 6), else in a new
 * buffer of its own (its `buffer` is all of it: it can be reused whole).
 */
export function jsonLine(head: string, bytes: Uint8Array, tail: string, reuse?: Buffer): Buffer {
  const size = Buffer.byteLength(head) + 6 * bytes.byteLength + 2 + Buffer.byteLength(tail);
  // Never from Node's shared pool: the caller may reuse the whole buffer.
  const out =
    reuse !== undefined && reuse.byteLength >= size
      ? reuse
      : Buffer.allocUnsafeSlow(Math.max(size, MIN_LINE_BUFFER_BYTES));
  let at = out.write(head, 0);
  out[at++] = 0x22;
  // Byte by byte: copying runs with subarray() made an object per line, garbage V8 had to collect.
  const length = bytes.length;
  for (let i = 0; i < length;) {
    const byte = bytes[i]!;
    if (byte < 0x80) {
      const escape = ASCII_ESCAPES[byte]!;
      if (escape === 0) {
        out[at++] = byte;
      } else {
        out[at++] = 0x5c;
        if (escape === 0xff) {
          out[at++] = 0x75; // u00XX
          out[at++] = 0x30;
          out[at++] = 0x30;
          out[at++] = HEX_DIGITS[byte >> 4]!;
          out[at++] = HEX_DIGITS[byte & 15]!;
        } else {
          out[at++] = escape;
        }
      }
      i++;
      continue;
    }
    const character = utf8Length(bytes, i);
    if (character > 0) {
      for (const end = i + character; i < end; i++) {
        out[at++] = bytes[i]!; // a valid character, as it is
      }
    } else {
      out[at++] = 0xef; // U+FFFD
      out[at++] = 0xbf;
      out[at++] = 0xbd;
      i -= character;
    }
  }
  out[at++] = 0x22;
  at += out.write(tail, at);
  return out.subarray(0, at);
}
