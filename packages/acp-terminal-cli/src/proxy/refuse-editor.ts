import type { Readable, Writable } from "node:stream";
import { ExitCode } from "../exit-codes.js";
import { LineReader, LineWriter } from "./line-io.js";
import { errorAnswer } from "./json-rpc.js";
import { readWireMessage } from "./wire-message.js";

/** How long a proxy that cannot start waits for the editor's first request, to answer it. */
const FIRST_REQUEST_MS = 5000;

/**
 * The proxy cannot start (bad arguments, an agent that is not there): `problem` goes to stderr,
 * and, since an editor that started the proxy may show only what it answers, the editor's first
 * request (read for at most FIRST_REQUEST_MS, not from a TTY) is answered with it as an error.
 * Resolves with the usage exit code.
 */
export async function refuseEditor(
  io: { stdin: Readable & { isTTY?: boolean }; stdout: Writable; stderr: Writable },
  problem: string,
): Promise<number> {
  io.stderr.write(`${problem}\n`);
  if (io.stdin.isTTY === true) {
    return ExitCode.usage;
  }
  const writer = new LineWriter(io.stdout, () => undefined);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, FIRST_REQUEST_MS);
    const reader = new LineReader(
      io.stdin,
      (line) => {
        const message = readWireMessage(line);
        if (message.kind === "request") {
          writer.message(errorAnswer(message.id, problem));
          done();
        }
      },
      () => undefined,
    );
    void reader.ended.then(done);
    function done() {
      clearTimeout(timer);
      reader.destroy();
      resolve();
    }
  });
  await writer.flush();
  return ExitCode.usage;
}
