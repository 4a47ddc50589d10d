/**
 * The public adapters, replayed: each recorded session of claude-agent-acp 0.101.0 and codex-acp
 * 2.6.0 (test/fixtures/adapters, DIALECTS.md) is played back as the agent (`adapter-replay.ts`),
 * in memory, against the whole client: the driver the default negotiation (or `--protocol`)
 * picks, the Conversation, and a renderer writing into buffers. One test per adapter × dialect,
 * each asserting what the user sees of the commands: live output, exit, background work, Ctrl-C.
 */
import { describe, expect, it } from "vitest";
import { ExitCode } from "../src/exit-codes.js";
import { until } from "../../../test/support/until.js";
import { afterTheTurn, heldPrompts, run } from "./replay-run.js";

const jsonLines = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const STEPS = "  │ step 1\n  │ step 2\n  │ step 3\n  │ é✓🚀\n  └ exit 0\n";
const TICKS_PLACEHOLDER =
  /│ Command running in background with ID: \w+\. Output is being written to/;

describe("claude-agent-acp 0.101.0, replayed", () => {
  it("v1 client terminals (--protocol v1): prompts from a pipe, --json initialize and permission events, and the agent's own turn after the prompt is shown before the session ends", async () => {
    const prompts = heldPrompts("run the steps, then the ticks in the background");
    const { done, out, played } = await run("claude-v1-terminal", ["--protocol", "v1", "--json"], {
      prompts: prompts.source,
    });
    // Its task notification starts a turn of its own, after the prompt's: the session lives on.
    await until(() => out.text.includes("The background loop finished."), {
      message: "the agent's own turn after the prompt",
    });
    prompts.end();
    expect(await done).toBe(ExitCode.ok);
    const offer = played.received[0] as { params: { clientCapabilities: { _meta: object } } };
    expect(offer.params.clientCapabilities._meta).not.toHaveProperty("terminal_output_delta");
    const events = jsonLines(out.text);
    expect(events[0]).toMatchObject({
      type: "initialize",
      protocol: "v1",
      dialect: "v1",
      agentInfo: { name: "@agentclientprotocol/claude-agent-acp", version: "0.101.0" },
      authMethods: [],
    });
    expect(events.filter((e) => e.type === "permission")).toEqual([
      expect.objectContaining({
        toolCallId: "toolu_standin_steps",
        outcome: "selected",
        optionId: "allow-once",
      }),
      expect.objectContaining({
        toolCallId: "toolu_standin_ticks",
        outcome: "selected",
        optionId: "allow-once",
      }),
    ]);
    expect(events.filter((e) => e.type === "turn").map((e) => e.event)).toEqual(["start", "end"]);
    expect(events.at(-1)).toMatchObject({ type: "result", stopReason: "end_turn", terminals: [] });
  });

  it("v1 _meta terminal_output (the default): the steps' output and exit under their tool call; the background loop shown still running at the turn's end, and its late null exit once it comes", async () => {
    const prompts = heldPrompts("go");
    const { done, out, err } = await run("claude-v1-meta-output", [], { prompts: prompts.source });
    await until(() => out.text.includes("⋯ terminal toolu_standin_ticks"), {
      message: "the background loop's exit after the turn",
    });
    prompts.end();
    expect(await done).toBe(ExitCode.ok);
    expect(out.text).toContain(
      `✓ for i in 1 2 3; do echo step $i; sleep 0.3; done; printf 'é✓🚀\\n' [completed]\n${STEPS}`,
    );
    // At the turn's end (the prompt answered) the loop has no exit: still running, not finished.
    const atTurnEnd = out.text.slice(0, out.text.indexOf("⋯ terminal"));
    expect(atTurnEnd).toMatch(TICKS_PLACEHOLDER);
    expect(atTurnEnd).toMatch(
      /for i in 1 2 3 4 5; do echo tick \$i; sleep 0\.5; done \[completed\]\n.*\n  └ still running\n/,
    );
    expect(out.text).toMatch(
      /⋯ terminal toolu_standin_ticks \(for i in 1 2 3 4 5; do echo tick \$i; sleep 0\.5; done\) ended\n.*\n  └ exited\n/,
    );
    expect(out.text).toContain("The background loop finished.");
    expect(err.text).toMatch(/── end_turn · 2 terminals: 1 exit 0, 1 exited · /);
  });

  it("v1 _meta terminal_output_delta: --json terminal events (protocol v1) with the output and exit 0; the one-shot run ends with the loop still running", async () => {
    const { done, out, played } = await run("claude-v1-meta-delta", ["--json"], {
      stopAfter: afterTheTurn,
    });
    expect(await done).toBe(ExitCode.ok);
    const offer = played.received[0] as { params: { clientCapabilities: { _meta: object } } };
    expect(offer.params.clientCapabilities._meta).toMatchObject({
      terminal_output: true,
      terminal_output_delta: true,
    });
    const events = jsonLines(out.text).filter((e) => e.type === "terminal");
    expect(events.filter((e) => e.terminalId === "toolu_standin_steps")).toEqual([
      expect.objectContaining({ event: "create", protocol: "v1" }),
      expect.objectContaining({
        event: "update",
        command: "for i in 1 2 3; do echo step $i; sleep 0.3; done; printf 'é✓🚀\\n'",
      }),
      expect.objectContaining({ event: "output", output: "step 1\nstep 2\nstep 3\né✓🚀" }),
      expect.objectContaining({ event: "exit", exitStatus: { exitCode: 0, signal: null } }),
    ]);
    expect(jsonLines(out.text).at(-1)).toMatchObject({
      type: "result",
      terminals: [
        { terminalId: "toolu_standin_steps", exitStatus: { exitCode: 0 } },
        { terminalId: "toolu_standin_ticks" },
      ],
    });
    expect(JSON.stringify(jsonLines(out.text).at(-1))).not.toContain(
      '"toolu_standin_ticks","command":"for i in 1 2 3 4 5; do echo tick $i; sleep 0.5; done","exitStatus"',
    );
  });

  it("v2 (the default): the background loop is listed, then streams its output after the turn and exits; the summary counts both terminals", async () => {
    const prompts = heldPrompts("go");
    const { done, out, err } = await run("claude-v2", [], { prompts: prompts.source });
    await until(() => out.text.includes("The background loop finished."), {
      message: "the agent's own turn after the loop ended",
    });
    prompts.end();
    expect(await done).toBe(ExitCode.ok);
    expect(out.text).toContain(`[completed]\n${STEPS}`);
    expect(out.text).toContain(
      "⋯ background: terminal toolu_standin_ticks (for i in 1 2 3 4 5; do echo tick $i; sleep 0.5; done)",
    );
    expect(out.text).toMatch(
      /⋯ terminal toolu_standin_ticks \(.*\) ended\n  │ tick 1\n  │ tick 2\n  │ tick 3\n  │ tick 4\n  │ tick 5\n  │ \n  │ \[exited with code 0\]\n  └ exited\n/,
    );
    expect(err.text).toMatch(/── end_turn · 2 terminals: 1 exit 0, 1 exited · /);
  });

  it("v1 _meta, Ctrl-C: session/cancel; the foreground command ends with the refusal as its output, the background one runs on; exit 3", async () => {
    const { conversation, done, out, err, played } = await run("claude-v1-cancel", [
      "--cancel-grace",
      "5",
    ]);
    await played.waitingFor("session/cancel");
    await until(() => conversation.phase === "turn", { message: "the turn under way" });
    conversation.interrupt();
    expect(await done).toBe(ExitCode.cancelled);
    expect(played.received.map((m) => ("method" in m ? m.method : "answer"))).toContain(
      "session/cancel",
    );
    expect(out.text).toMatch(
      /✗ for i in \$\(seq 1 100\).* \[failed\]\n  │ The user doesn't want to proceed/,
    );
    expect(out.text).toMatch(/\n  └ exited\n/);
    expect(out.text).toMatch(
      /\[completed\]\n  │ Command running in background[^\n]*\n(  │ [^\n]*\n)*  └ still running\n/,
    );
    expect(err.text).toContain("Cancelling the turn… (press Ctrl-C again to quit at once)");
    expect(err.text).toMatch(
      /── cancelled · 2 terminals: 1 still running, 1 exited · .* · exit code 3/,
    );
  });

  it("v2, Ctrl-C: terminal/cancel for the background loop (it offers cancel), then session/cancel; both end, exit 3", async () => {
    const { conversation, done, err, played } = await run("claude-v2-cancel", [
      "--cancel-grace",
      "5",
    ]);
    await played.waitingFor("terminal/cancel");
    await until(() => conversation.phase === "turn", { message: "the turn under way" });
    conversation.interrupt();
    expect(await done).toBe(ExitCode.cancelled);
    const sent = played.received.flatMap((m) => ("method" in m ? [m.method] : []));
    expect(sent.slice(-2)).toEqual(["terminal/cancel", "session/cancel"]);
    expect(err.text).toMatch(/── cancelled · 2 terminals: 2 exited · .* · exit code 3/);
  });

  it("a fatal error: session/new's error data is on the failure line", async () => {
    const { done, err } = await run("claude-new-error");
    expect(await done).toBe(ExitCode.agentFailed);
    // After the line that says which agent runs.
    expect(err.text.split("\n")[1]).toBe(
      "session/new failed: Internal error (details: Query closed before response received)",
    );
  });
});

describe("codex-acp 2.6.0, replayed", () => {
  it("v1 client terminals (--protocol v1): codex streams _meta output undeclared, and it is shown with the exit", async () => {
    const { done, out, err } = await run("codex-v1-terminal", ["--protocol", "v1"], {
      stopAfter: afterTheTurn,
    });
    expect(await done).toBe(ExitCode.ok);
    expect(out.text).toContain(`[completed]\n${STEPS}`);
    expect(out.text).toContain("  │ tick 5\n  └ exit 0\n");
    expect(err.text).toMatch(/── end_turn · 2 terminals: 2 exit 0 · /);
  });

  it("v1 _meta terminal_output (the default): codex's chunks under that key are appended, not replaced", async () => {
    const { done, out } = await run("codex-v1-meta-output", [], { stopAfter: afterTheTurn });
    expect(await done).toBe(ExitCode.ok);
    // The first line is lost by codex itself (DIALECTS.md); every chunk after it is kept.
    expect(out.text).toContain("  │ step 2\n  │ step 3\n  │ é✓🚀\n  └ exit 0\n");
    expect(out.text).toContain("  │ tick 2\n  │ tick 3\n  │ tick 4\n  │ tick 5\n  └ exit 0\n");
  });

  it("v1 _meta terminal_output_delta: live, --json has each chunk as it comes, before the exit", async () => {
    // Held back after the second chunk of the steps: what is shown so far is shown live.
    let chunks = 0;
    const { done, out, conversation } = await run("codex-v1-meta-delta", ["--json"], {
      stopAfter: (entry) =>
        JSON.stringify(entry.msg ?? {}).includes("terminal_output_delta") && ++chunks === 2,
    });
    await until(() => out.text.includes('"output":"step 3\\n"'), { message: "the second chunk" });
    const terminal = jsonLines(out.text).filter((e) => e.type === "terminal");
    expect(terminal.map((e) => [e.event, e.output])).toEqual([
      ["create", undefined],
      ["output", "step 2\n"],
      ["output", "step 3\n"],
    ]);
    conversation.interrupt();
    conversation.interrupt();
    expect(await done).toBe(ExitCode.cancelled);
  });

  it("v2 (the default): terminal_output_chunks through the emulator, and the exit", async () => {
    const { done, out, err } = await run("codex-v2", [], { stopAfter: afterTheTurn });
    expect(await done).toBe(ExitCode.ok);
    expect(out.text).toContain("  │ step 2\n  │ step 3\n  │ é✓🚀\n  └ exit 0\n");
    expect(out.text).toContain("  │ tick 2\n  │ tick 3\n  │ tick 4\n  │ tick 5\n  └ exit 0\n");
    expect(err.text).toMatch(/── end_turn · 2 terminals: 2 exit 0 · /);
  });

  it("v1 _meta, Ctrl-C: session/cancel ends the turn; codex leaves both loops running, shown so", async () => {
    const { conversation, done, out, err, played } = await run("codex-v1-cancel", [
      "--cancel-grace",
      "5",
    ]);
    await played.waitingFor("session/cancel");
    await until(() => conversation.phase === "turn", { message: "the turn under way" });
    conversation.interrupt();
    expect(await done).toBe(ExitCode.cancelled);
    expect(out.text.match(/  └ still running\n/g)).toHaveLength(2);
    expect(err.text).toMatch(/── cancelled · 2 terminals: 2 still running · .* · exit code 3/);
  });

  it("v2, Ctrl-C: no terminal offers cancel, so only session/cancel goes; the turn ends cancelled, the loops still running", async () => {
    const { conversation, done, err, played } = await run("codex-v2-cancel", [
      "--cancel-grace",
      "5",
    ]);
    await played.waitingFor("terminal/cancel");
    await until(() => conversation.phase === "turn", { message: "the turn under way" });
    conversation.interrupt();
    expect(await done).toBe(ExitCode.cancelled);
    const sent = played.received.flatMap((m) => ("method" in m ? [m.method] : []));
    expect(sent).not.toContain("terminal/cancel");
    expect(sent.at(-1)).toBe("session/cancel");
    expect(err.text).toMatch(/── cancelled · 2 terminals: 2 still running · .* · exit code 3/);
  });

  it("a fatal error: Authentication required names the agent's login methods", async () => {
    const { done, err } = await run("codex-new-error");
    expect(await done).toBe(ExitCode.agentFailed);
    // After the line that says which agent runs.
    expect(err.text.split("\n")[1]).toBe(
      "session/new failed: Authentication required; log in with --auth api-key (API Key: Use an API key to authenticate) or --auth chat-gpt (ChatGPT: Use ChatGPT to authenticate)",
    );
  });
});
