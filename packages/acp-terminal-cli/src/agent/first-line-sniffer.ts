/** Longest prefix of the agent's first stdout line kept for an error message. */
const SNIPPET_BYTES = 120;

/**
 * Watches the first non-blank line an agent writes on stdout. An ACP agent's first line is a
 * JSON-RPC object; anything else (a banner, `hello`, a usage text) means we launched something
 * that does not speak ACP, and the user deserves to hear that at once instead of after a timeout.
 */
export class FirstLineSniffer {
  private readonly bytes: number[] = [];
  private done = false;
  private verdict: { json: boolean; snippet: string } | undefined;

  constructor(private readonly onNotJson: (snippet: string) => void) {}

  get firstLine(): { json: boolean; snippet: string } | undefined {
    return this.verdict;
  }

  push(chunk: Uint8Array): void {
    if (this.done) {
      return;
    }
    for (const byte of chunk) {
      const blank =
        this.bytes.length === 0 &&
        (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d);
      if (blank) {
        continue;
      }
      if (this.bytes.length === 0 && byte === 0x7b /* { */) {
        this.finish(true);
        return;
      }
      if (byte === 0x0a || this.bytes.length >= SNIPPET_BYTES) {
        this.finish(false);
        return;
      }
      this.bytes.push(byte);
    }
  }

  /** The stream ended: whatever partial line we hold is the verdict. */
  end(): void {
    if (!this.done && this.bytes.length > 0) {
      this.finish(false);
    }
  }

  private finish(json: boolean): void {
    this.done = true;
    const snippet = new TextDecoder().decode(Uint8Array.from(this.bytes)).trimEnd();
    this.verdict = { json, snippet };
    if (!json) {
      this.onNotJson(snippet);
    }
  }
}
