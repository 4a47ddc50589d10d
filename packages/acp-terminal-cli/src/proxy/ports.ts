import type { LineWriter } from "./line-io.js";
import type { WireMessage } from "./wire-message.js";

/**
 * Where the proxy writes to one side: a line it received from the other side, passed on (as it
 * came, where the side is a plain stdio peer), or a message of its own. `full` and `drained` carry
 * the side's backpressure to the reader that feeds it.
 */
export interface Port {
  pass(line: Buffer, message: WireMessage): void;
  send(message: object): void;
  readonly full: boolean;
  drained(then: () => void): void;
}

/** A side that is a plain stdio peer: every line passed on goes byte for byte. */
export function stdioPort(writer: LineWriter): Port {
  return {
    pass: (line) => writer.line(line),
    send: (message) => writer.message(message),
    get full() {
      return writer.full;
    },
    drained: (then) => writer.drained(then),
  };
}
