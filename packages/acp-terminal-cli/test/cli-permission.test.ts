import { PassThrough } from "node:stream";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { decidePermission, type PermissionIo } from "../src/ask/permission.js";

const request: RequestPermissionRequest = {
  sessionId: "s",
  toolCall: { toolCallId: "c", title: "rm -rf build" },
  options: [
    { optionId: "no", name: "Reject", kind: "reject_once" },
    { optionId: "once", name: "Allow once", kind: "allow_once" },
    { optionId: "always", name: "Always allow", kind: "allow_always" },
  ],
};

function io(signal = new AbortController().signal): PermissionIo & {
  notices: string[];
  input: PassThrough;
  output: PassThrough & { text: string };
} {
  const output = Object.assign(new PassThrough(), { text: "" });
  output.on("data", (chunk: Buffer) => (output.text += chunk.toString()));
  const notices: string[] = [];
  return { input: new PassThrough(), output, notice: (m) => notices.push(m), signal, notices };
}

describe("permission requests", () => {
  it("--yes picks the allow-once option", async () => {
    expect(await decidePermission(request, "yes", io())).toEqual({
      outcome: { outcome: "selected", optionId: "once" },
    });
  });

  it("--yes picks allow once even when allow always is offered first (Gemini CLI refuses always)", async () => {
    const alwaysFirst = { ...request, options: [...request.options].reverse() };
    expect(await decidePermission(alwaysFirst, "yes", io())).toEqual({
      outcome: { outcome: "selected", optionId: "once" },
    });
  });

  it("--approve-reads allows a read without a person, and still refuses a command", async () => {
    const rules = {
      allow: [],
      allowAnywhere: false,
      approveReads: true,
      denyAll: false,
      policy: undefined,
      sessionCwd: "/",
    };
    const subject = {
      kind: "read",
      command: undefined,
      cwd: undefined,
      paths: ["/a"],
      diffs: [],
      rawInput: {},
    };
    const read = { ...request, toolCall: { toolCallId: "r", title: "Read /a" }, subject };
    const ctx = io();
    expect(await decidePermission(read, "deny", ctx, [], rules)).toEqual({
      outcome: { outcome: "selected", optionId: "once" },
    });
    expect(ctx.notices).toEqual(['acp-terminal: allowed "Read /a" (--approve-reads (a read))']);
    const command = { ...read, subject: { ...subject, kind: "read", command: { line: "cat /a" } } };
    expect(await decidePermission(command, "deny", io(), [], rules)).toEqual({
      outcome: { outcome: "selected", optionId: "no" },
    });
    // A "read" that carries a diff is an edit, whatever the agent calls it.
    const diff = { path: "/a", oldText: "x", newText: "y" };
    const edit = { ...read, subject: { ...subject, diffs: [diff] } };
    expect(await decidePermission(edit, "deny", io(), [], rules)).toEqual({
      outcome: { outcome: "selected", optionId: "no" },
    });
  });

  it("without a TTY rejects and says to pass --yes", async () => {
    const ctx = io();
    expect(await decidePermission(request, "deny", ctx)).toEqual({
      outcome: { outcome: "selected", optionId: "no" },
    });
    expect(ctx.notices).toEqual([
      expect.stringMatching(/^Permission denied for "rm -rf build": pass --yes/),
    ]);
  });

  it("answers cancelled when there is no option of the wanted kind", async () => {
    const allowOnly = { ...request, options: request.options.slice(1) };
    expect(await decidePermission(allowOnly, "deny", io())).toEqual({
      outcome: { outcome: "cancelled" },
    });
  });

  it("asks, re-asks on a wrong answer, and takes the number chosen", async () => {
    const ctx = io();
    const decision = decidePermission(request, "ask", ctx);
    ctx.input.write("9\n");
    ctx.input.write("3\n");
    expect(await decision).toEqual({ outcome: { outcome: "selected", optionId: "always" } });
    expect(ctx.output.text).toContain("  2) Allow once (allow_once)");
    expect(ctx.output.text).toContain('Expected a number from 1 to 3, received "9"');
  });

  it("answers cancelled when the turn is cancelled while asking", async () => {
    const ac = new AbortController();
    const ctx = io(ac.signal);
    const decision = decidePermission(request, "ask", ctx);
    ac.abort();
    expect(await decision).toEqual({ outcome: { outcome: "cancelled" } });
  });
});
