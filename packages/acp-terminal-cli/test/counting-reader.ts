import type { OutputReader } from "acp-terminal";
import type { OutputBuffer } from "acp-terminal/internal";

/** A reader of `buffer` that counts the bytes a view reads from it, in `bytesRead`. */
export function counting(buffer: OutputBuffer): OutputReader & { bytesRead: number } {
  return {
    bytesRead: 0,
    get limit() {
      return buffer.limit;
    },
    get totalBytes() {
      return buffer.totalBytes;
    },
    get droppedBytes() {
      return buffer.droppedBytes;
    },
    get version() {
      return buffer.version;
    },
    get ended() {
      return buffer.ended;
    },
    bytesSince(sinceByte: number, maxBytes?: number) {
      const read = buffer.bytesSince(sinceByte, maxBytes);
      this.bytesRead += read.bytes.byteLength;
      return read;
    },
    pendingTail() {
      const tail = buffer.pendingTail();
      this.bytesRead += tail.byteLength;
      return tail;
    },
    viewSince(sinceByte: number, maxBytes?: number) {
      const read = buffer.viewSince(sinceByte, maxBytes);
      this.bytesRead += read.bytes.byteLength;
      return read;
    },
  };
}
