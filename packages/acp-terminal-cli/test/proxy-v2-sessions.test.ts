import { describe, expect, it } from "vitest";
import type { Port } from "../src/proxy/ports.js";
import { MAX_SESSIONS, V2Bridge } from "../src/proxy/v2-bridge.js";

/** A side that takes every line and answers nothing. */
function quietPort(): Port & { lines: number } {
  const port = {
    lines: 0,
    pass: () => void port.lines++,
    send: () => void port.lines++,
    full: false,
    drained: (then: () => void) => then(),
  };
  return port;
}

const line = (message: object) => Buffer.from(`${JSON.stringify(message)}\n`);

describe("the v2 bridge's sessions", () => {
  it("follows at most MAX_SESSIONS: an editor's session/load of invented ids forgets the oldest, and an id over 256 characters opens none", () => {
    const agent = quietPort();
    const bridge = new V2Bridge(quietPort(), agent, {
      liveLines: 5,
      notice: () => {},
    } as unknown as ConstructorParameters<typeof V2Bridge>[2]);
    for (let i = 0; i < MAX_SESSIONS + 500; i++) {
      bridge.fromEditor(
        line({
          jsonrpc: "2.0",
          id: i,
          method: "session/load",
          params: { sessionId: `s${i}`, cwd: "/" },
        }),
      );
      // The agent answers each, so requests waiting stay few.
      bridge.fromAgent(line({ jsonrpc: "2.0", id: i, error: { code: -32002, message: "no" } }));
    }
    expect(bridge.sessionCount).toBe(MAX_SESSIONS);
    const before = bridge.sessionCount;
    bridge.fromEditor(
      line({
        jsonrpc: "2.0",
        id: "long",
        method: "session/load",
        params: { sessionId: "x".repeat(257), cwd: "/" },
      }),
    );
    expect(bridge.sessionCount).toBe(before);
    expect(agent.lines).toBeGreaterThan(MAX_SESSIONS);
  });
});
