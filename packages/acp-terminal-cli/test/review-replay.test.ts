/**
 * What a person reviews of the agents' edits, against the public adapters replayed (recorded by
 * test/adapters/record-cli.mjs: claude-agent-acp 0.101.0 and codex-acp 2.6.0 editing notes.txt
 * and creating todo.txt, under the default dialect and v1 `_meta`): each edit's tool call is
 * printed with a unified diff (`+`/`-` lines, coloured on a TTY), bounded.
 */
import { describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { diffLines, MAX_DIFF_LINES } from "../src/view/diff-lines.js";
import { unifiedDiff } from "../src/view/unified-diff.js";
import { run } from "./replay-run.js";

const EDIT = [" @@ -1,3 +1,3 @@", "   alpha", "  -beta", "  +BETA", "   gamma"].map(
  (l) => `  ${l}`,
);

describe("edits reviewed as diffs, replayed", () => {
  it("gemini-edit-no-fs: Gemini CLI (as --agent gemini runs it, --no-fs) reads, edits and creates a file, each shown, the edits as diffs; no fs request reaches the client", async () => {
    const { done, out, played } = await run("gemini-edit-no-fs", ["--no-fs"]);
    expect(await done).toBe(ExitCode.ok);
    const text = out.text;
    expect(text).toMatch(/✓ notes\.txt \[completed\]\n/); // the read
    expect(text).toMatch(
      /✓ notes\.txt: beta => BETA \[completed\]\n {2}┄ \S*notes\.txt \(\+1 −1\)\n/,
    );
    expect(text).toContain(`${EDIT.join("\n")}\n`);
    expect(text).toMatch(
      /✓ Writing to todo\.txt \[completed\]\n {2}┄ \S*todo\.txt \(\+2 −0\)\n {4}@@ -0,0 \+1,2 @@\n {4}\+- ship it\n/,
    );
    expect(text).not.toContain("[failed]");
    // --yes answers allow once, though Gemini CLI offers "Allow for this session" first.
    const chosen = played.received.flatMap((m) => {
      const outcome = (m as { result?: { outcome?: { optionId?: string } } }).result?.outcome;
      return outcome?.optionId === undefined ? [] : [outcome.optionId];
    });
    expect(chosen).toEqual(["proceed_once", "proceed_once"]);
    const initialize = played.received.find((m) => "method" in m && m.method === "initialize");
    expect(JSON.stringify(initialize)).toContain(
      '"fs":{"readTextFile":false,"writeTextFile":false}',
    );
  });

  it("gemini-edit-v2: with the client's fs offered, Gemini CLI fails to create the new file (why --agent gemini runs with --no-fs)", async () => {
    const { done, out } = await run("gemini-edit-v2", []);
    expect(await done).toBe(ExitCode.ok);
    expect(out.text).toMatch(
      /✗ Writing to todo\.txt \[failed\]\n {2}Error checking existing file: fs\/read_text_file: no such file/,
    );
  });

  for (const [name, flags] of [
    ["claude-edit-v2", []],
    ["claude-edit-v1-meta", ["--protocol", "v1-meta"]],
    ["codex-edit-v2", []],
    ["codex-edit-v1-meta", ["--protocol", "v1-meta"]],
  ] as const) {
    it(`${name}: the edit and the new file are shown as unified diffs under their tool calls`, async () => {
      const { done, out } = await run(name, [...flags]);
      expect(await done).toBe(ExitCode.ok);
      const text = out.text;
      expect(text).toMatch(/┄ \S*notes\.txt \(\+1 −1\)\n/);
      expect(text).toContain(`${EDIT.join("\n")}\n`);
      expect(text).toMatch(
        /┄ \S*todo\.txt \(new file, \+2\)\n {4}@@ -0,0 \+1,2 @@\n {4}\+- ship it\n {4}\+- test it\n/,
      );
      expect(text).not.toContain("\x1b[");
    });
  }

  it("on a TTY the diff's lines are coloured: removed red, added green, hunks cyan", async () => {
    const { done, out } = await run("claude-edit-v2", [], { tty: true });
    expect(await done).toBe(ExitCode.ok);
    expect(out.text).toContain("\x1b[36m@@ -1,3 +1,3 @@\x1b[39m");
    expect(out.text).toContain("\x1b[31m-beta\x1b[39m\n");
    expect(out.text).toContain("\x1b[32m+BETA\x1b[39m\n");
  });
});

describe("diffs", () => {
  it("are unified, with three lines of context, also for insertions and deletions in long texts", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    const after = before.replace("line 5", "line five").replace("line 15\n", "");
    expect(unifiedDiff(before, after)).toEqual([
      "@@ -3,7 +3,7 @@",
      " line 2",
      " line 3",
      " line 4",
      "-line 5",
      "+line five",
      " line 6",
      " line 7",
      " line 8",
      "@@ -13,7 +13,6 @@",
      " line 12",
      " line 13",
      " line 14",
      "-line 15",
      " line 16",
      " line 17",
      " line 18",
    ]);
    expect(unifiedDiff("same\n", "same\n")).toEqual([]);
  });

  it("are bounded: at most MAX_DIFF_LINES lines shown with a count of the rest, texts too big are not diffed, and what could hide text is escaped", () => {
    const big = Array.from({ length: 500 }, (_, i) => `row ${i}`).join("\n");
    const lines = diffLines([{ path: "big.txt", oldText: null, newText: big }], { color: false });
    expect(lines).toHaveLength(MAX_DIFF_LINES + 1);
    expect(lines[0]).toBe("  ┄ big.txt (new file, +500)");
    expect(lines.at(-1)).toBe(`  … ${502 - MAX_DIFF_LINES} more diff lines`);
    const huge = "x\n".repeat(30_000);
    expect(
      diffLines([{ path: "huge", oldText: huge, newText: `${huge}y\n` }], { color: false }),
    ).toEqual(["  ┄ huge (too big to diff here)"]);
    const hidden = diffLines(
      [{ path: "a\u202eb", oldText: "ok\n", newText: "\tok\x1b[2J\u200b  x\n" }],
      { color: true },
    );
    expect(hidden[0]).toBe("  ┄ a\\u{202e}b (+1 −1)");
    expect(hidden).toContain("    \x1b[32m+    ok\\x1b[2J\\u{200b}⟨2 spaces⟩x\x1b[39m");
  });
});
