/**
 * Copies of the bytes a spill file still has to write, made in one reused ring. The bytes a run
 * hands over are views valid only during the call (the host's read buffer), so the spill copies
 * what it queues; a new buffer per 64 KiB chunk, freed only when the garbage collector found it,
 * kept several MB of a flood in memory. The ring only moves forward: `copy` takes the next free
 * span (or none when the ring is full or the bytes are large: the caller then copies on its own),
 * and a span is free again once it and every copy made before it were released (a synchronous
 * flush can write later copies while an earlier one is still being written).
 */
export class StagingRing {
  #ring: Buffer | undefined;
  /** Where the next copy goes. */
  #head = 0;
  /** Where the oldest copy not yet released starts (the end of the last one released). */
  #tail = 0;
  /** Copies not yet free again, oldest first, and whether each was released. */
  #outstanding: { copy: Buffer; released: boolean }[] = [];

  constructor(private readonly sizeBytes: number) {}

  /** A copy of `bytes` in the ring, or undefined when it has no room for them. */
  copy(bytes: Uint8Array): Buffer | undefined {
    const length = bytes.length;
    if (length === 0 || length > this.sizeBytes / 4) {
      return undefined;
    }
    if (this.#outstanding.length === 0) {
      this.#head = this.#tail = 0;
    }
    let at: number;
    if (this.#head >= this.#tail) {
      // Free: from the head to the end, then from the start to just before the tail.
      if (this.sizeBytes - this.#head >= length) {
        at = this.#head;
      } else if (this.#tail > length) {
        at = 0;
      } else {
        return undefined;
      }
    } else if (this.#tail - this.#head > length) {
      at = this.#head;
    } else {
      return undefined;
    }
    this.#ring ??= Buffer.allocUnsafeSlow(this.sizeBytes);
    this.#ring.set(bytes, at);
    this.#head = at + length;
    const copy = this.#ring.subarray(at, at + length);
    this.#outstanding.push({ copy, released: false });
    return copy;
  }

  /** Whether `bytes` is a copy this ring made. */
  holds(bytes: Buffer): boolean {
    return this.#ring !== undefined && bytes.buffer === this.#ring.buffer;
  }

  /** `copy` is written (or dropped): its span is free once the copies before it are too. */
  release(copy: Buffer): void {
    const entry = this.#outstanding.find((e) => e.copy === copy);
    if (entry) {
      entry.released = true;
    }
    while (this.#outstanding[0]?.released) {
      const { copy: oldest } = this.#outstanding.shift()!;
      this.#tail = oldest.byteOffset - this.#ring!.byteOffset + oldest.length;
    }
  }

  /** Lets the ring go (the file is closed and nothing waits). */
  dispose(): void {
    this.#ring = undefined;
    this.#outstanding = [];
    this.#head = this.#tail = 0;
  }
}
