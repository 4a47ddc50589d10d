import type { ReadResult } from "acp-process";
import { describeRun, fenced } from "../format.js";
import type { DemoSession } from "../session.js";

export interface PollResult {
  sinceSeq: number;
  page: ReadResult;
  text: string;
}

/**
 * `poll <id>`: the output items of a run since this session's previous poll of it. The cursor is
 * acp-process's `seq`: `read(id, {sinceSeq})` returns `nextSeq`, kept for the next poll.
 */
export async function pollCommand(session: DemoSession, id: string): Promise<PollResult> {
  return session.tool(`poll ${id}`, { id }, async (call) => {
    const sinceSeq = session.cursors.get(id) ?? 0;
    const page = await session.manager.read(id, { sessionId: session.id, sinceSeq });
    session.cursors.set(id, page.nextSeq);
    // The fence holds the command's bytes only: notices follow it, and watcher hits (event items)
    // are reported on their own as they happen (see background.ts).
    const text = page.items
      .filter((item) => item.kind === "output")
      .map((item) => item.text)
      .join("");
    const notices = page.items
      .filter((item) => item.kind === "notice")
      .map((item) => `notice: ${item.text}\n`)
      .join("");
    const missed = page.missedItems > 0 ? `, ${page.missedItems} items no longer retained` : "";
    const summary = `since_seq ${sinceSeq} → next_seq ${page.nextSeq}: ${page.items.length} new items${missed}; ${describeRun(page.run)}`;
    await call.finish(
      "completed",
      `${summary}\n${fenced(text)}${notices ? `\n${notices.trimEnd()}` : ""}`,
      {
        id,
        sinceSeq,
        nextSeq: page.nextSeq,
        items: page.items.length,
        done: page.done,
        status: page.run.status,
      },
    );
    return { sinceSeq, page, text };
  });
}
