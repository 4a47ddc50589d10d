import type { DemoSession } from "../session.js";

export interface SendResult {
  /** What was written: the line with its newline, or "" for `--eof` alone. */
  data: string;
  eof: boolean;
}

/**
 * `send <id> <text>`: writes the text and a newline to a run's stdin, as if typed and ended with
 * Enter on a pipe; `send --eof <id> [text]` closes stdin afterwards (the command reads end-of-file).
 * The run must have been started with its input open (`bg --stdin` or `bg --pty`).
 */
export async function sendCommand(
  session: DemoSession,
  id: string,
  text: string | null,
  eof: boolean,
): Promise<SendResult> {
  const title = `send${eof ? " --eof" : ""} ${id}${text === null ? "" : `: ${text}`}`;
  return session.tool(title, { id, text, eof }, async (call) => {
    const data = text === null ? "" : `${text}\n`;
    await session.manager.write(id, data, { sessionId: session.id, eof });
    const what =
      data === ""
        ? "Closed"
        : `Wrote ${Buffer.byteLength(data)} bytes (${JSON.stringify(data)}) to`;
    const closed = data !== "" && eof ? ", then closed it" : "";
    await call.finish("completed", `${what} the stdin of ${id}${closed}.`, {
      id,
      bytes: Buffer.byteLength(data),
      eof,
    });
    return { data, eof };
  });
}
