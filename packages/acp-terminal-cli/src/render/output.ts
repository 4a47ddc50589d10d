/** Where a renderer writes. `isTTY`/`columns` decide in-place updates; tests pass plain buffers. */
export interface Output {
  write(text: string): void;
  isTTY: boolean;
  columns?: number;
  /** True while the reader lags (written text still waits in memory): live output waits, finals do not. */
  readonly lagging?: boolean;
  /** Calls `listener` once when the reader has caught up. */
  onDrain?(listener: () => void): void;
}

export function outputOf(stream: NodeJS.WriteStream): Output {
  return {
    write: (text) => void stream.write(text),
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
