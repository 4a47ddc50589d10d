/** Where a renderer writes. `isTTY`/`columns` decide in-place updates; tests pass plain buffers. */
export interface Output {
  /**
   * Bytes are written as they are (UTF-8 already): `--json` builds its output lines as bytes, and
   * reuses their buffer once `written` says the stream let go of it. An Output must call
   * `written` (later or at once): `--json` holds further output lines until it does.
   */
  write(text: string | Uint8Array, written?: () => void): void;
  isTTY: boolean;
  columns?: number;
  /** True while the reader lags (written text still waits in memory): live output waits, finals do not. */
  readonly lagging?: boolean;
  /** Calls `listener` once when the reader has caught up. */
  onDrain?(listener: () => void): void;
}

export function outputOf(stream: NodeJS.WriteStream): Output {
  return {
    write: (text, written) => void stream.write(text, written && (() => written())),
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns;
    },
    get lagging() {
      return stream.writableNeedDrain;
    },
    onDrain: (listener) => void stream.once("drain", listener),
  };
}
