import { encodeKeys, type KeyInput } from "acp-terminal/keys";
import { messageOf, ProcessError } from "../../base/errors.js";
import { withinMs } from "../run/deadline.js";
import type { Run } from "../run/run.js";

/**
 * Input to a running command: stdin writes, named keys, PTY resize. Each says clearly why it
 * cannot happen (a client without the extension, stdin not opened, no PTY).
 */
export async function writeInput(run: Run, data: string | Uint8Array, eof: boolean): Promise<void> {
  const terminalId = run.requireRunning();
  const { provider, record } = run;
  if (!provider.capabilities.write || !provider.write) {
    throw ProcessError.unsupported(
      "Writing to stdin",
      provider.kind,
      "the client does not advertise the acp-terminal stdin extension; pass input through the command line instead",
    );
  }
  if (!record.stdin && !record.pty) {
    throw new ProcessError(
      "stdin_closed",
      `stdin of run ${record.id} is closed: start it with stdin: true (exec: background or pty; shell: spawn) to write to it`,
    );
  }
  const answered = await withinMs(
    provider.write(terminalId, data, eof ? { eof: true } : {}),
    run.callWaitMs,
  );
  if (!answered.ok) {
    throw new ProcessError(
      "provider_error",
      `the client did not confirm the write within ${run.callWaitMs} ms (is the command reading its input?): run ${record.id}`,
    );
  }
  run.inputWatch?.noteInput();
}

/** `Enter` and its alias `Return`, matched as acp-terminal matches key names (any case). */
const ENTER_NAMES = /^(?:enter|return)$/i;

/**
 * Key names and text as the bytes a terminal expects (acp-terminal's key table). A PTY turns the
 * `\r` of Enter into a newline for the program; a pipe does not, so on a pipe run Enter is sent as
 * `\n` (a line-reading program such as `read` would otherwise wait for the end of the line forever).
 */
export function encodeKeyInput(
  keys: readonly KeyInput[],
  target: { pty: boolean } = { pty: true },
): string {
  const forTarget = target.pty
    ? keys
    : keys.map((key) => (typeof key === "string" && ENTER_NAMES.test(key) ? { text: "\n" } : key));
  try {
    return encodeKeys(forTarget);
  } catch (error) {
    throw new ProcessError("invalid_params", messageOf(error), { cause: error });
  }
}

export async function resizeRun(run: Run, cols: number, rows: number): Promise<void> {
  const terminalId = run.requireRunning();
  const { provider, record } = run;
  if (!record.pty || !provider.resize) {
    throw ProcessError.unsupported(
      "Resizing",
      provider.kind,
      record.pty ? "the client cannot resize terminals" : "the run has no PTY; start it with pty",
    );
  }
  const answered = await withinMs(provider.resize(terminalId, cols, rows), run.callWaitMs);
  if (!answered.ok) {
    throw new ProcessError(
      "provider_error",
      `the client did not confirm the resize within ${run.callWaitMs} ms: run ${record.id}`,
    );
  }
}
