/**
 * The rules of the command line (--allow, --deny-all, --approve-reads, --permission-policy)
 * applied to the permission requests of the public adapters replayed (claude-agent-acp 0.101.0
 * and codex-acp 2.6.0, recorded by test/adapters/record-cli.mjs): the commands they run
 * themselves meet the same argv rules as a terminal's, without a person and without --yes.
 */
import { mkdirSync } from "node:fs";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { recording } from "./adapter-replay.js";
import { run } from "./replay-run.js";

/** The recordings' project directory: rules apply under the session's directory, which must exist. */
beforeAll(() => mkdirSync("/tmp/acp-recording/project", { recursive: true }));

/** The kinds of the options the client chose, in the order it answered the permission requests. */
function chosenKinds(name: string, received: readonly AnyMessage[]): string[] {
  const requests = new Map<string, string>(); // optionId -> kind, from the recording
  for (const line of recordingLines(name)) {
    for (const option of line.params.options) {
      requests.set(option.optionId, option.kind);
    }
  }
  return received.flatMap((message) => {
    const result = (message as { result?: { outcome?: { outcome: string; optionId?: string } } })
      .result;
    const outcome = result?.outcome;
    if (outcome === undefined) {
      return [];
    }
    return [
      outcome.outcome === "selected" ? (requests.get(outcome.optionId!) ?? "?") : "cancelled",
    ];
  });
}

function recordingLines(name: string) {
  return recording(name).flatMap((entry) =>
    entry.msg?.method === "session/request_permission"
      ? [
          entry.msg as {
            params: { options: { optionId: string; kind: string }[] };
          },
        ]
      : [],
  );
}

const COMMANDS = [
  ["claude-commands-v2", []],
  ["claude-commands-v1-meta", ["--protocol", "v1-meta"]],
  ["codex-commands-v2", []],
  ["codex-commands-v1-meta", ["--protocol", "v1-meta"]],
] as const;

describe("permission rules on the commands the agents run themselves, replayed", () => {
  for (const [name, flags] of COMMANDS) {
    it(`${name}: --allow 'touch *' approves the agent's touch once, and the rm it also asks about is refused with how to allow it`, async () => {
      const { done, played, err } = await run(name, [...flags, "--allow", "touch *"], {
        yes: false,
      });
      expect(await done).toBe(ExitCode.ok);
      expect(chosenKinds(name, played.received)).toEqual(["allow_once", "reject_once"]);
      expect(err.text).toContain(
        `acp-terminal: allowed the command "touch ran2.txt" (--allow 'touch *'; the agent runs it itself, unconfined)`,
      );
      expect(err.text).toMatch(
        /Permission denied for the command "rm -rf build": pass --yes .*--allow PATTERN/,
      );
    });
  }

  // Recorded with the CLI itself: `run --allow 'touch *' --sandbox read-only` piped, no --yes.
  for (const [name, exit] of [
    ["claude-commands-allow", ExitCode.ok],
    ["codex-commands-allow", ExitCode.cancelled], // codex ends the turn on its only reject option
  ] as const) {
    it(`${name}: the touch runs, the rm is refused and shown failed, and the sandbox says it cannot confine either`, async () => {
      const { done, played, out, err } = await run(
        name,
        ["--allow", "touch *", "--sandbox", "read-only"],
        { yes: false },
      );
      expect(await done).toBe(exit);
      expect(chosenKinds(name, played.received)).toEqual(["allow_once", "reject_once"]);
      expect(out.text).toMatch(/✗ rm -rf build \[failed\]\n/);
      expect(err.text).toMatch(
        /^acp-terminal: warning: --sandbox read-only does not confine the commands a v2 agent runs itself/m,
      );
      expect(err.text).toContain('acp-terminal: allowed the command "touch ran2.txt"');
      expect(err.text).toContain('Permission denied for the command "rm -rf build"');
    });
  }

  it("claude-commands-v2: a pattern that matches only a prefix of the words approves nothing", async () => {
    const { done, played } = await run("claude-commands-v2", ["--allow", "touch"], { yes: false });
    expect(await done).toBe(ExitCode.ok);
    expect(chosenKinds("claude-commands-v2", played.received)).toEqual([
      "reject_once",
      "reject_once",
    ]);
  });

  it("codex-commands-v2: --deny-all rejects each request, saying which rule did", async () => {
    const { done, played, err } = await run("codex-commands-v2", ["--deny-all"], { yes: false });
    expect(await done).toBe(ExitCode.ok);
    expect(chosenKinds("codex-commands-v2", played.received)).toEqual([
      "reject_once",
      "reject_once",
    ]);
    expect(err.text).toContain('acp-terminal: rejected the command "touch ran2.txt" (--deny-all)');
  });

  it("claude-edit-v2: --approve-reads does not approve an edit", async () => {
    const { done, played } = await run("claude-edit-v2", ["--approve-reads"], { yes: false });
    expect(await done).toBe(ExitCode.ok);
    const kinds = chosenKinds("claude-edit-v2", played.received);
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds.every((kind) => kind === "reject_once")).toBe(true);
  });

  it("codex-commands-v2: a policy's allow list approves its command, and its defaultAction deny refuses the rest", async () => {
    const policy = JSON.stringify({ defaultAction: "deny", allow: ["touch ran2.txt"] });
    const { done, played, err } = await run("codex-commands-v2", ["--permission-policy", policy], {
      yes: false,
    });
    expect(await done).toBe(ExitCode.ok);
    expect(chosenKinds("codex-commands-v2", played.received)).toEqual([
      "allow_once",
      "reject_once",
    ]);
    expect(err.text).toContain(
      'rejected the command "rm -rf build" (--permission-policy defaultAction deny)',
    );
  });

  it("codex-commands-v2: a policy's autoDeny kind wins over its allow list", async () => {
    const policy = JSON.stringify({ autoDeny: ["execute"], allow: ["touch ran2.txt"] });
    const { done, played, err } = await run("codex-commands-v2", ["--permission-policy", policy], {
      yes: false,
    });
    expect(await done).toBe(ExitCode.ok);
    expect(chosenKinds("codex-commands-v2", played.received)).toEqual([
      "reject_once",
      "reject_once",
    ]);
    expect(err.text).toContain("autoDeny 'execute'");
  });
});
