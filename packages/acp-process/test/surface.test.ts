import { TerminalHost } from "acp-terminal";
import { afterAll, describe, expect, it } from "vitest";
import { ProcessManager, providerForClient } from "../src/index.js";
import { chooseSurface } from "../src/v2.js";

const withTerminals = { terminal: true };

describe("chooseSurface: where commands run, from the negotiated protocol version", () => {
  it.each([
    // v1: the client's terminals first, then its MCP terminal server, then the local host.
    [1, withTerminals, true, true, "client-terminals", false],
    [1, {}, true, true, "mcp-tools", false],
    [1, {}, false, true, "local", false],
    [1, {}, false, false, "none", false],
    // v2 has no terminal/* methods: a v1-style capability means nothing; runs are published.
    [2, withTerminals, false, true, "local", true],
    [2, {}, true, true, "mcp-tools", true],
    [2, {}, false, false, "none", false],
  ] as const)(
    "protocol v%i, capabilities %j, MCP tools %s, local host %s → %s (published as v2 terminals: %s)",
    (protocolVersion, clientCapabilities, mcpTools, fallbackHost, surface, publishV2) => {
      expect(
        chooseSurface({ protocolVersion, clientCapabilities, mcpTools, fallbackHost }),
      ).toEqual({ surface, publishV2 });
    },
  );
});

describe("providerForClient under v2", () => {
  const host = new TerminalHost();
  afterAll(() => host.dispose());
  const connection = {
    request: () => Promise.reject(new Error("no terminal/* under v2")),
  };

  it("never uses client terminals under v2, even when the capabilities say terminal: true: the fallback host runs the commands", () => {
    const providerFor = providerForClient({
      connection,
      clientCapabilities: { terminal: true },
      fallbackHost: host,
      protocolVersion: 2,
    });
    expect(providerFor("s1").kind).toBe("local");
  });

  it("uses the session's MCP terminal server under v2 when it declared one", () => {
    const providerFor = providerForClient({
      connection,
      clientCapabilities: {},
      fallbackHost: host,
      mcpTools: () => () => Promise.resolve({}),
      protocolVersion: 2,
    });
    expect(providerFor("s1").kind).toBe("mcp");
  });

  it("without a host or MCP server under v2, runs fail to start saying what to give", async () => {
    const manager = new ProcessManager({
      providerFor: providerForClient({ connection, clientCapabilities: {}, protocolVersion: 2 }),
      sweepIntervalMs: 0,
    });
    const run = await manager.start({ sessionId: "s1", command: "true" });
    expect(run.status).toBe("failed");
    expect(run.error).toContain("ACP v2 has no client terminals");
    await manager.dispose();
  });
});
