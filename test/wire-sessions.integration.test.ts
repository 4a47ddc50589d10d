/**
 * Terminals live only in sessions the client created: a real client process (TerminalHost behind
 * bindTerminalHost) opens its sessions with session/new over real stdio, and an agent that names
 * any other session gets -32602 naming it, with nothing spawned.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  rejectionOf,
  startTerminalClient,
  type TerminalClientProcess,
} from "./support/terminal-client.js";

let peer: TerminalClientProcess | undefined;
afterEach(async () => {
  await peer?.stop();
  peer = undefined;
});

describe("sessions over the wire", () => {
  it("accepts 0 of 1,000 invented session ids and still serves the session the client opened", async () => {
    peer = startTerminalClient({ sessions: ["opened"] });
    let accepted = 0;
    const messages = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const sessionId = `invented-${i}`;
      const outcome = await peer.client
        .request("terminal/create", { sessionId, command: "true" })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      if (outcome === undefined) {
        accepted += 1;
      } else {
        const error = await rejectionOf(Promise.reject(outcome));
        expect(error.code).toBe(-32602);
        expect(error.message).toContain(`"${sessionId}" is not a session of this connection`);
        messages.add(error.message.replace(sessionId, "<id>"));
      }
    }
    console.log(`invented sessions accepted: ${accepted} of 1000`);
    expect(accepted).toBe(0);
    expect([...messages]).toEqual([
      'Invalid params for terminal/create: sessionId: "<id>" is not a session of this connection; terminals live only in sessions the client created or loaded (session/new, session/load, session/resume, session/fork)',
    ]);
    expect(peer.stderr()).not.toMatch(/^created /m);
    const { terminalId } = await peer.client.request("terminal/create", {
      sessionId: "opened",
      command: "true",
    });
    await peer.client.request("terminal/wait_for_exit", { sessionId: "opened", terminalId });
    await peer.client.request("terminal/release", { sessionId: "opened", terminalId });
    expect(peer.stderr().match(/^created /gm)).toHaveLength(1);
  });
});
