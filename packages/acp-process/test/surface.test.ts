import { describe, expect, it } from "vitest";
import { chooseSurface } from "../src/index.js";

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
