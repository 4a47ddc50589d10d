import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../src/index.js";
import {
  crashAgent,
  killOrphans,
  processesWith,
  readAll,
  reopen,
  type Cleanups,
} from "./crash-support.js";

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

describe("after a SIGKILL of the agent, recover() keeps every acknowledged item readable", () => {
  for (const [point, wanted] of [
    ["streaming", 500],
    ["beside-finished", 750],
    ["with-queued", 1050],
  ] as const) {
    it(`crash point ${point}: every item a read() returned before the kill is readable after reopen, recover() and read`, async () => {
      const crashed = await crashAgent(cleanups, point, wanted);
      const events: RunEvent[] = [];
      const { manager, store } = reopen(cleanups, crashed.path, events);
      await killOrphans(crashed.marker);
      const before = store.allItems(crashed.runId);
      expect(before.length).toBeGreaterThan(crashed.ackedSeq);

      const report = await manager.recover();
      expect(report.lost).toContain(crashed.runId);

      const after = await readAll(manager, crashed.runId);
      const acked = after.filter((item) => item.seq <= crashed.ackedSeq);
      console.log(
        `[store-crash] ${point}: acknowledged items readable after recover(): ${acked.length}/${crashed.ackedSeq + 1}`,
      );
      expect(acked.map((item) => item.seq)).toEqual([...Array(crashed.ackedSeq + 1).keys()]);
      // Nothing stored was changed or dropped: the history is what was there before, plus the notice.
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.slice(before.length)).toEqual([
        expect.objectContaining({
          kind: "notice",
          text: expect.stringContaining("the agent restarted while this run was running"),
        }),
      ]);
      expect(after.map((item) => item.text).join("")).toMatch(/^pid \d+\ntick 0\ntick 1\n/);
      expect(manager.get(crashed.runId).status).toBe("lost");

      if (point === "beside-finished") {
        const [, finishedId, nextSeq] = crashed.lines
          .find((l) => l.startsWith("FINISHED "))!
          .split(" ");
        const finished = await readAll(manager, finishedId!);
        expect(finished).toHaveLength(Number(nextSeq));
        expect(finished.map((i) => i.text).join("")).toBe(
          Array.from({ length: 300 }, (_, i) => `${i + 1}\n`).join(""),
        );
        expect(manager.get(finishedId!)).toMatchObject({ status: "completed", exitCode: 0 });
        expect(events.filter((e) => e.type === "exit" && e.run.id === finishedId)).toHaveLength(0);
      }
      if (point === "with-queued") {
        const [, queuedId, status] = crashed.lines.find((l) => l.startsWith("QUEUED "))!.split(" ");
        expect(status).toBe("queued");
        expect(report.lost).toEqual(expect.arrayContaining([crashed.runId, queuedId]));
        expect((await readAll(manager, queuedId!)).map((i) => i.text)).toEqual([
          expect.stringContaining("the agent restarted while this run was queued"),
        ]);
      }
      expect(processesWith(crashed.marker)).toEqual([]);
    });
  }
});
