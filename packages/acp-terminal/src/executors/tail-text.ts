/** The last `maxBytes` of what a process wrote on stderr, for error messages (bounded whatever it writes). */
export class TailText {
  #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(private readonly maxBytes: number) {}

  append(chunk: Uint8Array): void {
    this.#chunks.push(Buffer.from(chunk));
    this.#bytes += chunk.byteLength;
    while (this.#bytes > this.maxBytes && this.#chunks.length > 1) {
      this.#bytes -= this.#chunks.shift()?.byteLength ?? 0;
    }
  }

  /** The kept text, cut to `maxBytes` from the end (a cut character becomes U+FFFD). */
  text(): string {
    const all = Buffer.concat(this.#chunks);
    return all.subarray(Math.max(0, all.byteLength - this.maxBytes)).toString("utf8");
  }
}
