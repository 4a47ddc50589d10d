import { describe, expect, it } from "vitest";
import { runTool, shellTool } from "../src/tools.js";
import { fitItems } from "../src/tools/shell/byte-budget.js";
import { useLocalRigs } from "./support.js";

const localRig = useLocalRigs();

const bytesOf = (items: { text: string }[]): number =>
  items.reduce((sum, item) => sum + Buffer.byteLength(item.text, "utf8"), 0);

describe("shell poll max_output_bytes", () => {
  it("caps a poll exactly, cutting an oversized item on a character boundary, and the next poll continues", async () => {
    const rig = localRig();
    const ctx = { manager: rig.manager, sessionId: "s" };
    // One 8001-byte line of two-byte characters (one item).
    const spawned = await runTool(shellTool, ctx, {
      action: "spawn",
      command: `${process.execPath} -e "process.stdout.write('é'.repeat(4000) + '\\n')"`,
    });
    const id = (spawned as { ok: true; result: { id: string } }).result.id;
    await rig.manager.wait(id);
    const first = (await runTool(shellTool, ctx, {
      action: "poll",
      id,
      since_seq: 0,
      max_output_bytes: 101,
    })) as { ok: true; result: Record<string, any> };
    expect(first.ok).toBe(true);
    expect(bytesOf(first.result.items)).toBeLessThanOrEqual(101);
    expect(first.result.items[0].text).toBe("é".repeat(50));
    // Items are numbered from 1 on the shell surface; next_seq is the last item returned.
    expect(first.result.cut_item).toMatchObject({ seq: 1, omitted_bytes: 8001 - 100 });
    expect(first.result.next_seq).toBe(1);
    const rest = (await runTool(shellTool, ctx, {
      action: "poll",
      id,
      since_seq: first.result.next_seq,
      max_output_bytes: 30_000,
    })) as { ok: true; result: Record<string, any> };
    expect(rest.result.done).toBe(true);
    const log = (await runTool(shellTool, ctx, { action: "log", id, offset: 0 })) as {
      ok: true;
      result: Record<string, any>;
    };
    expect(log.result.lines).toEqual(["é".repeat(4000)]);
  });

  it("fitItems keeps whole items while they fit in bytes, never more", () => {
    const items = ["aaaa", "€€", "bb"].map((text, seq) => ({
      seq,
      kind: "output" as const,
      text,
      atMs: 0,
      byteOffset: 0,
    }));
    expect(fitItems(items, 10, 3)).toEqual({ items: items.slice(0, 2), nextSeq: 2 });
    expect(fitItems(items, 12, 3)).toEqual({ items, nextSeq: 3 });
    expect(fitItems(items, 3, 3)).toEqual({
      items: [{ ...items[0], text: "aaa" }],
      nextSeq: 1,
      cut: { seq: 0, omittedBytes: 1 },
    });
  });
});

describe("a cursor past the end", () => {
  it("is refused (it would skip the output still to come), in the manager and in shell poll", async () => {
    const rig = localRig();
    const { run } = await rig.manager.run({ sessionId: "s", command: "echo x" });
    await expect(rig.manager.read(run.id, { sinceSeq: 1000 })).rejects.toThrow(
      /Invalid sinceSeq: expected a seq from 0 to 1 .*received 1000/,
    );
    await expect(rig.manager.read(run.id, { sinceSeq: 1 })).resolves.toMatchObject({
      items: [],
      nextSeq: 1,
      done: true,
    });
    const polled = await runTool(
      shellTool,
      { manager: rig.manager, sessionId: "s" },
      { action: "poll", id: run.id, since_seq: 1000 },
    );
    expect(polled).toMatchObject({
      ok: false,
      error: {
        code: "invalid_params",
        message: expect.stringMatching(/Invalid since_seq: .*pass next_seq/),
      },
    });
  });
});
