/**
 * Permission questions about what the agents run and edit themselves, against the public adapters
 * replayed (claude-agent-acp 0.101.0 and codex-acp 2.6.0, recorded by test/adapters/record-cli.mjs):
 * a person at a TTY sees the command and where it runs, or the file and a diff, never raw JSON.
 */
import { describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { run } from "./replay-run.js";

/** Allow once: the option whose kind is allow_once, by its number in the question. */
const allowOnce = (question: string) => /(\d+)\) [^\n]*\(allow_once\)/.exec(question)?.[1] ?? "";

describe("permission questions, replayed", () => {
  for (const [name, flags] of [
    ["claude-commands-v2", []],
    ["claude-commands-v1-meta", ["--protocol", "v1-meta"]],
    ["codex-commands-v2", []],
    ["codex-commands-v1-meta", ["--protocol", "v1-meta"]],
  ] as const) {
    it(`${name}: each question shows the command the agent runs itself, and where`, async () => {
      const { done, questions } = await run(name, [...flags], { answer: allowOnce });
      expect(await done).toBe(ExitCode.ok);
      expect(questions).toHaveLength(2);
      for (const [question, command] of [
        [questions[0]!, "touch ran2.txt"],
        [questions[1]!, "rm -rf build"],
      ] as const) {
        expect(question).toContain(`\n  command: ${command}\n`);
        expect(question).toContain(
          "\n  (the agent runs it itself, not in acp-terminal's terminals)\n",
        );
        expect(question).not.toMatch(/[{}]/);
      }
      if (name.startsWith("codex")) {
        expect(questions[0]).toContain("\n  cwd: /tmp/acp-recording/project\n");
      }
    });
  }

  for (const [name, flags] of [
    ["claude-edit-v2", []],
    ["claude-edit-v1-meta", ["--protocol", "v1-meta"]],
    ["codex-edit-v2", []],
    ["codex-edit-v1-meta", ["--protocol", "v1-meta"]],
  ] as const) {
    it(`${name}: the question about an edit shows its diff (codex's request has none: the update's)`, async () => {
      const { done, questions } = await run(name, [...flags], { answer: allowOnce });
      expect(await done).toBe(ExitCode.ok);
      const edit = questions.find((q) => q.includes("notes.txt"));
      expect(edit).toMatch(/ {2}┄ \S*notes\.txt \(\+1 −1\)\n/);
      expect(edit).toContain("\n    -beta\n    +BETA\n");
      expect(edit).not.toMatch(/[{}]/);
      expect(questions.join("")).toMatch(
        /todo\.txt \(new file, \+2\)\n {4}@@ -0,0 \+1,2 @@\n {4}\+- ship it\n/,
      );
    });
  }
});
