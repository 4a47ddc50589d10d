import { ProcessError } from "../../base/errors.js";
import type { RunStore } from "../../store/types.js";
import { snapshotOf } from "../run/describe.js";
import { isFinished, type RunItem, type RunRecord } from "../../model/run-record.js";
import { type RunSnapshot } from "../../model/run-events.js";

export interface ReadResult {
  run: RunSnapshot;
  items: RunItem[];
  /** Pass as `sinceSeq` to continue. */
  nextSeq: number;
  /** Items between `sinceSeq` and the oldest retained one that retention dropped. */
  missedItems: number;
  /** The run finished and every item up to its end has been returned. */
  done: boolean;
}

const MAX_READ_ITEMS = 1000;

/** Items from `sinceSeq`, at most `limit` and `maxChars` (whole items, at least one). */
export function readPage(
  store: RunStore,
  record: RunRecord,
  query: { sinceSeq?: number; limit?: number; maxChars: number },
  nowMs: number,
): ReadResult {
  const since = Math.max(0, query.sinceSeq ?? 0);
  // A cursor past the end would silently skip the output still to come.
  if (since > record.nextSeq) {
    throw ProcessError.invalidParams(
      "sinceSeq",
      `a seq from 0 to ${record.nextSeq} (the run's next seq; pass nextSeq from the previous read)`,
      query.sinceSeq,
    );
  }
  const limit = Math.min(Math.max(1, query.limit ?? 200), MAX_READ_ITEMS);
  const page = store.readItems(record.id, { sinceSeq: since, limit });
  const items: RunItem[] = [];
  let chars = 0;
  for (const item of page.items) {
    if (items.length > 0 && chars + item.text.length > query.maxChars) {
      break;
    }
    items.push(item);
    chars += item.text.length;
  }
  const nextSeq =
    items.length > 0 ? items[items.length - 1]!.seq + 1 : Math.max(since, page.firstSeq);
  return {
    run: snapshotOf(record, nowMs),
    items,
    nextSeq,
    missedItems: Math.max(0, page.firstSeq - since),
    done: isFinished(record.status) && nextSeq >= record.nextSeq,
  };
}
