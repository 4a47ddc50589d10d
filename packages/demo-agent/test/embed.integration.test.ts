/**
 * The terminal of a run is embedded in its tool call before the run releases it, however fast the
 * command: demo-agent embeds it from acp-process's `onStart` hook, whose completion the release
 * waits for. Real commands (`true`) on an in-process TerminalHost; the client is a recorder that
 * holds the embedding update until the command has exited, so a release that did not wait for it
 * would come first.
 */
import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import { LocalTerminalProvider, type TerminalProvider } from "acp-process";
import { TerminalHost } from "acp-terminal";
import { afterEach, describe, expect, it } from "vitest";
import { bgCommand } from "../src/commands/bg.js";
import { runCommand } from "../src/commands/run.js";
import type { DemoSession } from "../src/session.js";
import { testSession, type TestSession } from "./session-fixture.js";

interface Update {
  sessionUpdate: string;
  status?: string;
  content?: { type: string; terminalId?: string }[];
}

let host: TerminalHost | undefined;
let fixture: TestSession | undefined;

afterEach(async () => {
  await fixture?.dispose();
  await host?.dispose();
});

/** A session whose client "hosts" the terminals (so tool calls embed them), recording what happens in order. */
function recordingSession(): { session: DemoSession; log: string[] } {
  const log: string[] = [];
  host = new TerminalHost();
  const local = new LocalTerminalProvider(host, {
    owner: { connectionId: "test", sessionId: "s1" },
  });
  const provider = new Proxy(local, {
    get(target, key) {
      if (key === "release") {
        return async (terminalId: string) => {
          log.push("release");
          await target.release(terminalId);
        };
      }
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function"
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  }) as TerminalProvider;

  let exited = (): void => {};
  const exit = new Promise<void>((resolve) => (exited = resolve));
  const client = {
    async notify(_method: string, params: { update: Update }) {
      const { update } = params;
      if (update.status !== "in_progress" || !update.content?.some((c) => c.type === "terminal")) {
        return;
      }
      log.push("embed sent");
      // Held until the command has exited and one more turn of the event loop has passed.
      await exit;
      await new Promise((resolve) => setImmediate(resolve));
      log.push("embed delivered");
    },
  } as unknown as AgentContext;

  fixture = testSession(provider, client, true);
  const session = fixture.session;
  session.manager.subscribe((event) => {
    if (event.type === "exit") {
      exited();
    }
  });
  return { session, log };
}

describe("demo-agent embeds a run's terminal before the run releases it", () => {
  it("run true", async () => {
    const { session, log } = recordingSession();
    const { run } = await runCommand(session, "true", 10);
    expect(run).toMatchObject({ status: "completed", exitCode: 0 });
    expect(log).toEqual(["embed sent", "embed delivered", "release"]);
  });

  it("bg true", async () => {
    const { session, log } = recordingSession();
    const started = await bgCommand(session, "true");
    expect(await session.background.reported(started.id)).toMatchObject({
      status: "completed",
      exitCode: 0,
    });
    await session.manager.wait(started.id);
    expect(log).toEqual(["embed sent", "embed delivered", "release"]);
  });
});
