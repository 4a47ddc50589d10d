/**
 * Reports nobody awaits (a background exit, a watcher hit) that fail — typically because the
 * client has gone — are said on the agent's stderr with what failed, not swallowed; the run and
 * the reporter carry on. Real commands on an in-process TerminalHost.
 */
import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import { LocalTerminalProvider } from "acp-process";
import { TerminalHost } from "acp-terminal";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bgCommand } from "../src/commands/bg.js";
import { testSession, type TestSession } from "./session-fixture.js";

let host: TerminalHost | undefined;
let fixture: TestSession | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await fixture?.dispose();
  await host?.dispose();
});

describe("a report the client cannot take", () => {
  it("is logged on stderr with the run it was about", async () => {
    host = new TerminalHost();
    const provider = new LocalTerminalProvider(host, {
      owner: { connectionId: "test", sessionId: "s1" },
    });
    let gone = false;
    const client = {
      async notify() {
        if (gone) {
          throw new Error("connection closed");
        }
      },
    } as unknown as AgentContext;
    fixture = testSession(provider, client);
    const session = fixture.session;
    const stderr: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });

    const started = await bgCommand(session, "sleep 30");
    gone = true; // the client goes away while the run is still going
    await session.manager.kill(started.id, { sessionId: "s1" });
    expect(await session.background.reported(started.id)).toMatchObject({
      id: started.id,
      status: "killed",
    });
    expect(stderr).toEqual([
      `demo-agent: finishing the tool call of ${started.id} failed: connection closed\n`,
      `demo-agent: reporting the exit of ${started.id} failed: connection closed\n`,
    ]);
  });
});
