import { TerminalHost } from "acp-terminal";
import { describe, expect, it } from "vitest";
import { ProcessManager, detectClientTerminalSupport, providerForClient } from "../src/index.js";

const neverCalled = { request: () => Promise.reject(new Error("not expected")) };

describe("providerForClient", () => {
  it("uses the client's terminals when it has the capability, with only the extensions it advertises", () => {
    const providerFor = providerForClient({
      connection: neverCalled,
      clientCapabilities: { terminal: true },
    });
    const provider = providerFor("s");
    expect(provider.kind).toBe("acp");
    expect(provider.capabilities).toEqual({
      cursors: false,
      outputSince: false,
      write: false,
      pty: false,
      signal: false,
    });
    expect(providerFor("s")).toBe(provider);
  });

  it("falls back to the in-process host for clients without terminals", async () => {
    const host = new TerminalHost();
    const provider = providerForClient({
      connection: neverCalled,
      clientCapabilities: {},
      fallbackHost: host,
    })("s");
    expect(provider.kind).toBe("local");
    expect(provider.capabilities.write).toBe(true);
    await host.dispose();
  });

  it("uses the session's MCP terminal server when the client has no terminals, before the fallback host, and v1 terminals before both", async () => {
    const host = new TerminalHost();
    const calls: string[] = [];
    const mcpTools = (sessionId: string) =>
      sessionId === "with-mcp" ? async (name: string) => (calls.push(name), {}) : undefined;
    const noTerminals = providerForClient({
      connection: neverCalled,
      clientCapabilities: {},
      mcpTools,
      fallbackHost: host,
    });
    expect(noTerminals("with-mcp").kind).toBe("mcp");
    expect(noTerminals("with-mcp").capabilities).toEqual({
      cursors: true,
      outputSince: false,
      write: true,
      pty: false,
      signal: true,
    });
    expect(noTerminals("without").kind).toBe("local");
    expect(
      providerForClient({
        connection: neverCalled,
        clientCapabilities: { terminal: true },
        mcpTools,
        fallbackHost: host,
      })("with-mcp").kind,
    ).toBe("acp");
    expect(calls).toEqual([]);
    await host.dispose();
  });

  it("fails runs with a clear message when there is neither", async () => {
    const manager = new ProcessManager({
      providerFor: providerForClient({ connection: neverCalled, clientCapabilities: {} }),
      env: {},
      sweepIntervalMs: 0,
    });
    const started = await manager.start({ sessionId: "s", command: "true" });
    expect(started.status).toBe("failed");
    expect(started.error).toMatch(/the client does not offer terminals/);
    await manager.dispose();
  });
});

describe("detectClientTerminalSupport", () => {
  it("reads our extension only when advertised with a version", () => {
    const advertised = {
      terminal: true,
      _meta: {
        "acp-terminal": {
          version: 1,
          methods: ["_acp-terminal/write", "_acp-terminal/resize", "_acp-terminal/signal"],
          cursors: true,
          pty: true,
          stdin: true,
        },
      },
    };
    expect(detectClientTerminalSupport(advertised)).toMatchObject({
      terminal: true,
      extensionVersion: 1,
      capabilities: { cursors: true, write: true, pty: true, signal: true },
    });
    expect(
      detectClientTerminalSupport({ terminal: true, _meta: { "acp-terminal": { cursors: true } } })
        .capabilities.cursors,
    ).toBe(false);
    expect(detectClientTerminalSupport(null)).toMatchObject({ terminal: false });
  });
});
