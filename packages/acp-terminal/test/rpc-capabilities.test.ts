import { type } from "node:os";
import { treesWork } from "../../../test/support/containment.js";
import { describe, expect, it } from "vitest";
import { TerminalHost } from "../src/host/terminal-host.js";
import { readTerminalCapability } from "../src/protocol/extension.js";
import { terminalClientCapabilities } from "../src/rpc/capabilities.js";

describe("terminal capabilities", () => {
  it("advertises terminal: true and every extension under _meta", () => {
    const capabilities = terminalClientCapabilities();
    expect(capabilities.terminal).toBe(true);
    expect(readTerminalCapability(capabilities)).toEqual({
      version: 1,
      methods: ["_acp-terminal/write", "_acp-terminal/resize", "_acp-terminal/signal"],
      cursors: true,
      outputSince: true,
      pty: true,
      stdin: true,
      containment: "process-group",
      executor: { kind: "local", target: "local" },
      sandbox: { mode: "off", network: true },
    });
  });

  it("advertises where the host's commands run, with the OS and shell it knows, else here", async () => {
    const host = new TerminalHost();
    const place = terminalClientCapabilities(host)._meta["acp-terminal"].executor;
    expect(place).toEqual({
      kind: "local",
      target: "local",
      os: type(),
      shell: expect.stringMatching(/\/(bash|sh)$/),
    });
    await host.dispose();
    const elsewhere = { executor: { kind: "ssh", target: "ssh://box", os: 42, shell: "/bin/sh" } };
    expect(terminalClientCapabilities(elsewhere)._meta["acp-terminal"].executor).toEqual({
      kind: "ssh",
      target: "ssh://box",
      shell: "/bin/sh",
    });
    expect(
      terminalClientCapabilities({ executor: "ssh://box" })._meta["acp-terminal"].executor,
    ).toEqual({ kind: "local", target: "local" });
  });

  it("advertises pty: false for a host that cannot open PTYs", () => {
    expect(terminalClientCapabilities({ ptyAvailable: false })._meta["acp-terminal"].pty).toBe(
      false,
    );
    expect(terminalClientCapabilities({ ptyAvailable: true })._meta["acp-terminal"].pty).toBe(true);
  });

  it("a TerminalHost says whether node-pty loads, so its capability is honest", async () => {
    const host = new TerminalHost();
    expect("ptyAvailable" in host).toBe(true);
    expect(host.ptyAvailable).toBe(true); // node-pty is built here
    expect(terminalClientCapabilities(host)._meta["acp-terminal"].pty).toBe(true);
    await host.dispose();
  });

  it("advertises the host's containment mode, and without a host only the process-group floor", async () => {
    expect(
      terminalClientCapabilities({ containment: "pid-namespace" })._meta["acp-terminal"]
        .containment,
    ).toBe("pid-namespace");
    expect(
      terminalClientCapabilities({ containment: "process-tree" })._meta["acp-terminal"].containment,
    ).toBe("process-tree");
    expect(terminalClientCapabilities({})._meta["acp-terminal"].containment).toBe("process-group");
    const contained = new TerminalHost();
    const off = new TerminalHost({ containment: "off" });
    // Where perl may be a child subreaper (asked directly, not through the host's probe).
    const mode = treesWork ? "process-tree" : "process-group";
    expect(contained.containment).toBe(mode);
    expect(off.containment).toBe("process-group");
    expect(readTerminalCapability(terminalClientCapabilities(contained))?.containment).toBe(mode);
    expect(readTerminalCapability(terminalClientCapabilities(off))?.containment).toBe(
      "process-group",
    );
    await Promise.all([contained.dispose(), off.dispose()]);
  });

  it("reads nothing from clients that did not advertise the extensions", () => {
    for (const capabilities of [
      undefined,
      null,
      {},
      { terminal: true },
      { _meta: {} },
      { _meta: { "acp-terminal": "yes" } },
    ]) {
      expect(readTerminalCapability(capabilities)).toBeUndefined();
    }
  });
});
