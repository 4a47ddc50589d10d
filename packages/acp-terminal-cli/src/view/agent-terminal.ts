import { DEFAULT_PTY_SIZE, type ExitStatus } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import { OutputBuffer } from "acp-terminal/internal";
import { PtyScreen } from "acp-terminal/internal";
import { plainScreenText } from "./plain-screen-text.js";
import type { ProtocolName } from "./protocol.js";

/** Bytes of one agent's terminal's output held (its newest), as for a CLI terminal's default limit. */
export const AGENT_TERMINAL_BYTES = 1024 * 1024;
/** An advertised size is clamped to this: a screen's cells cost memory (xterm keeps ~12 B each). */
export const MAX_COLS = 1000;
export const MAX_ROWS = 500;
/** UTF-8 bytes of an exited terminal's screen text kept once its emulator is disposed. */
export const FROZEN_TEXT_BYTES = 64 * 1024;

export interface TerminalSize {
  cols: number;
  rows: number;
}

/** A reported `size`, or the default, with each side a whole number within its cap. */
export function clampSize(
  size: { cols?: unknown; rows?: unknown } | null | undefined,
): TerminalSize {
  const side = (value: unknown, fallback: number, max: number) =>
    typeof value === "number" && Number.isFinite(value) && value >= 1
      ? Math.min(max, Math.floor(value))
      : fallback;
  return {
    cols: side(size?.cols, DEFAULT_PTY_SIZE.cols, MAX_COLS),
    rows: side(size?.rows, DEFAULT_PTY_SIZE.rows, MAX_ROWS),
  };
}

/**
 * A terminal the agent runs and reports (ACP v2's agent-owned terminals; any dialect in which the
 * agent runs commands itself), as the CLI holds it: the newest bytes of its output in an
 * `OutputBuffer` (the limit bounds memory whatever the agent sends), and a terminal emulator
 * (`PtyScreen`, `@xterm/headless`) at the terminal's reported size that renders them, fed lazily
 * when the screen is read. A snapshot is authoritative: it replaces the output (a new buffer and
 * screen); a chunk appends. Once frozen (exited and drawn for good) only the screen's text is
 * kept, cut to FROZEN_TEXT_BYTES.
 */
export class AgentTerminal {
  command: string | undefined;
  cwd: string | undefined;
  cancellable = false;
  exitStatus: ExitStatus | undefined;
  #size: TerminalSize = { ...DEFAULT_PTY_SIZE };
  #buffer: OutputBuffer;
  #screen: PtyScreen | undefined;
  #frozen: string | undefined;
  /** Changes whenever what `text()` returns may have changed. */
  #version = 0;

  constructor(
    readonly terminalId: string,
    private readonly byteLimit = AGENT_TERMINAL_BYTES,
    /** The version whose wire reports it (`--json` names it). */
    readonly protocol: ProtocolName = "v2",
  ) {
    this.#buffer = new OutputBuffer(byteLimit);
  }

  get size(): TerminalSize {
    return this.#size;
  }

  /** The output bytes held (a cursor reads them; a snapshot swaps in a new reader). */
  get output(): OutputReader {
    return this.#buffer;
  }

  get version(): number {
    return this.#version;
  }

  get frozen(): boolean {
    return this.#frozen !== undefined;
  }

  append(bytes: Uint8Array): void {
    if (this.#frozen !== undefined || bytes.byteLength === 0) {
      return;
    }
    this.#buffer.append(bytes);
    this.#version++;
  }

  /** The authoritative output: everything before it is gone, from the screen too. */
  replace(bytes: Uint8Array): void {
    if (this.#frozen !== undefined) {
      return;
    }
    this.#screen?.dispose();
    this.#screen = undefined;
    this.#buffer = new OutputBuffer(this.byteLimit);
    this.#buffer.append(bytes);
    this.#version++;
  }

  resize(size: TerminalSize): void {
    if (size.cols === this.#size.cols && size.rows === this.#size.rows) {
      return;
    }
    this.#size = size;
    this.#screen?.resize(size.cols, size.rows);
    this.#version++;
  }

  /**
   * The screen of a terminal never drawn, for its frozen text: rendered from its newest
   * FREEZE_RENDER_BYTES only (from the first line that starts in them), since only the newest
   * FROZEN_TEXT_BYTES of text are kept: an emulator fed a whole 1 MiB of lines holds ~16 MB of
   * cells and history for text that is dropped at once. Plain text needs no emulator.
   */
  #newestText(): string {
    const buffer = this.#buffer;
    if (buffer.totalBytes - buffer.droppedBytes <= FREEZE_RENDER_BYTES) {
      const { bytes } = buffer.bytesSince(buffer.droppedBytes);
      return plainScreenText(bytes, this.#size.cols) ?? this.text();
    }
    // A copy where the ring wraps (a view would stop there, before the newest bytes).
    const { bytes } = buffer.bytesSince(buffer.totalBytes - FREEZE_RENDER_BYTES);
    const lineStart = bytes.indexOf(0x0a) + 1;
    const plain = plainScreenText(bytes.subarray(lineStart), this.#size.cols);
    if (plain !== undefined) {
      return plain;
    }
    const newest = new OutputBuffer(FREEZE_RENDER_BYTES);
    newest.append(bytes.subarray(lineStart));
    newest.end();
    const screen = new PtyScreen(newest, this.#size, { convertEol: true });
    try {
      return screen.snapshot().output;
    } finally {
      screen.dispose();
    }
  }

  /** What the terminal's screen shows (scrollback included, cut to the byte limit from the front). */
  text(): string {
    if (this.#frozen !== undefined) {
      return this.#frozen;
    }
    // Whether the bytes came from a PTY (which sends "\r\n") or a pipe (a bare "\n") is not said.
    this.#screen ??= new PtyScreen(this.#buffer, this.#size, { convertEol: true });
    return this.#screen.snapshot().output;
  }

  /** Keeps only the screen's newest text; the emulator and the bytes are let go. */
  freeze(): void {
    if (this.#frozen !== undefined) {
      return;
    }
    this.#buffer.end();
    const text = this.#screen === undefined ? this.#newestText() : this.text();
    const bytes = Buffer.from(text);
    this.#frozen =
      bytes.byteLength <= FROZEN_TEXT_BYTES
        ? text
        : new TextDecoder().decode(bytes.subarray(bytes.byteLength - FROZEN_TEXT_BYTES));
    this.#screen?.dispose();
    this.#screen = undefined;
    this.#buffer = new OutputBuffer(0);
    this.#version++;
  }
}

/** Bytes of output a terminal never drawn is rendered from when it freezes (its newest). */
export const FREEZE_RENDER_BYTES = FROZEN_TEXT_BYTES;

/** A screen's text as rendered, and a version that changes whenever the text may have. */
export interface ScreenSource {
  readonly version: number;
  text(): string;
  /** Keeps the text as it is now and lets the emulator go. */
  freeze(): void;
}
