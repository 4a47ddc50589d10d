/**
 * A session/cancel that arrives after a run's process has started but before the turn waits on
 * it (while the tool call's "running" update is being sent) still kills the run and ends the
 * turn. Real command on an in-process TerminalHost; the client aborts the turn from inside that
 * update, as a cancel read in that window does.
 */
import { randomUUID } from "node:crypto";
import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import { LocalTerminalProvider } from "acp-process";
import { TerminalHost } from "acp-terminal";
import { afterEach, expect, it } from "vitest";
import { processesWith } from "../../../test/support/processes.js";
import { until, withDeadline } from "../../../test/support/until.js";
import { runCommand } from "../src/commands/run.js";
import type { DemoSession } from "../src/session.js";
import { testSession, type TestSession } from "./session-fixture.js";

let host: TerminalHost | undefined;
let fixture: TestSession | undefined;

afterEach(async () => {
  await fixture?.dispose();
  await host?.dispose();
});

it("a cancel read while the run's running update is sent (the process started, the turn not yet waiting) kills the run", async () => {
  const marker = `cancel-window-${randomUUID()}`;
  host = new TerminalHost();
  const provider = new LocalTerminalProvider(host, {
    owner: { connectionId: "test", sessionId: "s1" },
  });
  let session: DemoSession | undefined;
  const client = {
    async notify(_method: string, params: { update: { sessionUpdate: string; status?: string } }) {
      const { update } = params;
      if (update.sessionUpdate === "tool_call_update" && update.status === "in_progress") {
        session!.turn.abort();
      }
    },
  } as unknown as AgentContext;
  fixture = testSession(provider, client);
  session = fixture.session;
  session.turn = new AbortController();
  const ended = runCommand(session, `sleep 300; echo ${marker}`, 600);
  const { run } = await withDeadline(ended, 15_000, "the cancelled run to end");
  expect(run.status).toBe("killed");
  await until(() => processesWith(marker).length === 0, { message: `no process with ${marker}` });
});
