import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentCommandVerdict } from "../src/approval/agent-command.js";

const project = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-command-")));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const at = (line: string, cwd = project) => ({ command: { line }, cwd, sessionCwd: project });

describe("--allow patterns on the commands an agent runs itself", () => {
  it("approve a plain line whose words match, naming the pattern", async () => {
    expect(await agentCommandVerdict(["touch *"], at("touch ran2.txt"), false)).toEqual({
      approved: true,
      pattern: "touch *",
    });
    expect(
      await agentCommandVerdict(["ls -la"], { ...at(""), command: { argv: ["ls", "-la"] } }, false),
    ).toEqual({ approved: true, pattern: "ls -la" });
  });

  it("approve nothing with shell syntax after the matching words, and say nothing matched", async () => {
    for (const line of ["touch a; rm -rf ~", "touch $(id)", "touch a && rm b", "X=1 touch a"]) {
      expect(await agentCommandVerdict(["touch *"], at(line), false)).toEqual({ why: "" });
    }
  });

  it("refuse a match whose directory is relative (it would be resolved against acp-terminal's, not the agent's), even with anywhere", async () => {
    for (const anywhere of [false, true]) {
      expect(await agentCommandVerdict(["touch *"], at("touch x", "h"), anywhere)).toEqual({
        why: "--allow 'touch *' matches, but its directory is not an absolute path",
      });
    }
  });

  it("refuse a match outside the session's directory, saying why and what applies them there", async () => {
    const verdict = await agentCommandVerdict(["touch *"], at("touch x", "/"), false);
    expect(verdict).toEqual({
      why: expect.stringMatching(
        /^--allow 'touch \*' matches, but it runs in "\/", outside the session's directory/,
      ),
    });
    expect(await agentCommandVerdict(["touch *"], at("touch x", "/"), true)).toEqual({
      approved: true,
      pattern: "touch *",
    });
  });

  it("refuse git, whose rules need settings the agent's own process cannot be given", async () => {
    const verdict = await agentCommandVerdict(["git status"], at("git status"), false);
    expect("approved" in verdict).toBe(false);
    expect(verdict).toEqual({ why: expect.stringContaining("--allow 'git status' matches, but") });
  });
});
