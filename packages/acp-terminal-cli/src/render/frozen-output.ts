import type { OutputReader } from "acp-terminal";

/**
 * The newest bytes of a released terminal's output, kept so its tail can still be drawn, without
 * holding on to the whole buffer (up to its `outputByteLimit`). Offsets stay those of the stream.
 */
export class FrozenOutput implements OutputReader {
  readonly limit: number;
  readonly totalBytes: number;
  readonly droppedBytes: number;
  readonly version: number;
  readonly ended = true;
  readonly #bytes: Uint8Array;

  constructor(source: OutputReader, keepBytes: number) {
    const { bytes, fromByte } = source.bytesSince(Math.max(0, source.totalBytes - keepBytes));
    this.#bytes = bytes.slice(); // a view of the source's ring, which goes on changing
    this.limit = keepBytes;
    this.droppedBytes = fromByte;
    this.totalBytes = fromByte + bytes.byteLength;
    this.version = source.version;
  }

  /** Nothing held back: the kept bytes are all the output there is (`ended`). */
  pendingTail(): Uint8Array {
    return new Uint8Array(0);
  }

  viewSince(sinceByte: number, maxBytes?: number): { bytes: Uint8Array; fromByte: number } {
    return this.bytesSince(sinceByte, maxBytes);
  }

  bytesSince(
    sinceByte: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): { bytes: Uint8Array; fromByte: number } {
    const from = Math.min(Math.max(sinceByte, this.droppedBytes), this.totalBytes);
    const start = from - this.droppedBytes;
    return {
      bytes: this.#bytes.subarray(start, Math.min(this.#bytes.byteLength, start + maxBytes)),
      fromByte: from,
    };
  }
}
