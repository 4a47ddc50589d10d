import { encodeKeys } from "acp-terminal/keys";
import type { DemoSession } from "../session.js";

/**
 * `keys <id> <key>...`: named keys (`Enter`, `C-c`, `Up`, ...) and text, encoded by acp-terminal's
 * key table and written to the run's input: `keys run_3 y Enter`, `keys run_3 C-c`. In a PTY
 * (`bg --pty`) `C-c` interrupts the command and `Enter` ends a line; on a pipe the bytes arrive as
 * they are. A mistyped key name fails with the list of valid ones.
 */
export async function keysCommand(
  session: DemoSession,
  id: string,
  keys: string[],
): Promise<string> {
  return session.tool(`keys ${id} ${keys.join(" ")}`, { id, keys }, async (call) => {
    await session.manager.sendKeys(id, keys, { sessionId: session.id });
    const bytes = encodeKeys(keys); // what sendKeys wrote, for the record
    await call.finish("completed", `Sent ${keys.join(" ")} (${JSON.stringify(bytes)}) to ${id}.`, {
      id,
      keys,
      bytes,
    });
    return bytes;
  });
}
