import type { OutputBuffer } from "../output/output-buffer.js";
import type { PtyScreen } from "../output/pty-screen.js";
import { TerminalError } from "../core/errors.js";
import { nonNegativeInteger } from "./validate.js";

/** What a read from a stream offset returns, before the exit status is added. */
export interface OutputSince {
  output: string;
  truncated: boolean;
  totalBytes: number;
  droppedBytes: number;
  fromByte: number;
}

/**
 * The output from stream offset `sinceByte` on (the exact-increments extension): the retained
 * text from `max(sinceByte, droppedBytes)`, moved to a character boundary, to `totalBytes`;
 * `fromByte` is where it starts, so `fromByte - sinceByte` bytes were missed.
 *
 * PTY terminals (`screen`): offsets count raw bytes (escape sequences included), and the text is
 * the rendering of raw bytes `[fromByte, totalBytes)` alone on a blank screen of the terminal's
 * size. That is an approximation of the whole rendering: a `\r` or cursor movement that redraws a
 * line printed before `sinceByte`, or an escape sequence cut by the offset, renders differently
 * than it would in one piece.
 */
export function readOutputSince(
  buffer: OutputBuffer,
  screen: PtyScreen | undefined,
  sinceByteInput: unknown,
): OutputSince {
  const sinceByte = nonNegativeInteger("sinceByte", sinceByteInput, "a stream offset in bytes");
  const totalBytes = buffer.totalBytes - buffer.pendingBytes;
  if (sinceByte > totalBytes) {
    throw new TerminalError(
      "invalid_params",
      `Invalid sinceByte: ${sinceByte} is beyond totalBytes ${totalBytes}; pass the totalBytes of an earlier output read`,
      { field: "sinceByte", sinceByte, totalBytes },
    );
  }
  const { text, fromByte } = buffer.textSince(sinceByte);
  return {
    // Starting at the truncation cut, the text may begin inside an escape sequence.
    output: screen
      ? screen.renderIncrement(text, fromByte > 0 && fromByte === buffer.droppedBytes)
      : text,
    truncated: buffer.truncated,
    totalBytes,
    droppedBytes: buffer.droppedBytes,
    fromByte,
  };
}
