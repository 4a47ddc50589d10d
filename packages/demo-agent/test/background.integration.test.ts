/**
 * The BackgroundReporter holds only what is still to come: once background runs have been
 * reported (or failed to start), nothing of them is left in it. Real commands on an in-process
 * TerminalHost.
 */
import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import { LocalTerminalProvider } from "acp-process";
import { TerminalHost } from "acp-terminal";
import { afterEach, describe, expect, it } from "vitest";
import { bgCommand } from "../src/commands/bg.js";
import type { DemoSession } from "../src/session.js";
import { testSession, type TestSession } from "./session-fixture.js";

let host: TerminalHost | undefined;
let fixture: TestSession | undefined;

afterEach(async () => {
  await fixture?.dispose();
  await host?.dispose();
});

function localSession(): DemoSession {
  host = new TerminalHost();
  const provider = new LocalTerminalProvider(host, {
    owner: { connectionId: "test", sessionId: "s1" },
  });
  const client = { notify: async () => {} } as unknown as AgentContext;
  fixture = testSession(provider, client);
  return fixture.session;
}

describe("the background reporter", () => {
  it("keeps nothing of runs whose exit has been reported, and answers a late reported() at once", async () => {
    const session = localSession();
    const runs = await Promise.all(
      ["true", "false", "echo three"].map((command) => bgCommand(session, command)),
    );
    const ended = await Promise.all(runs.map((run) => session.background.reported(run.id)));
    expect(ended.map((run) => run.exitCode)).toEqual([0, 1, 0]);
    expect(session.background.pending).toBe(0);
    // Asked again after the fact: the run's final snapshot, with nothing kept for it.
    expect(await session.background.reported(runs[1]!.id)).toMatchObject({
      id: runs[1]!.id,
      status: "failed",
      exitCode: 1,
    });
    expect(session.background.pending).toBe(0);
  });

  it("forgets the tool call of a bg whose start throws", async () => {
    const session = localSession();
    // acp-process refuses a watcher that could backtrack catastrophically, before anything runs.
    await expect(bgCommand(session, "true", { watch: [{ regex: "(a+)+" }] })).rejects.toMatchObject(
      { code: "invalid_params" },
    );
    expect(session.background.pending).toBe(0);
  });
});
