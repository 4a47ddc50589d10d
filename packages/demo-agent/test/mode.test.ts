import type { AgentContext } from "@agentclientprotocol/sdk/unstable";
import { terminalClientCapabilities, TerminalHost } from "acp-terminal";
import { describe, expect, it } from "vitest";
import { chooseMode } from "../src/mode.js";

const client = {} as AgentContext;
const noLocalHost = (): TerminalHost => {
  throw new Error("a client with terminals must not start a local host");
};

describe("the mode line", () => {
  it("names every acp-terminal extra the client advertises, exact increments (outputSince) included", () => {
    const mode = chooseMode(terminalClientCapabilities(), client, "s1", noLocalHost);
    expect(mode.clientTerminals).toBe(true);
    expect(mode.description).toBe(
      "Commands run in this client's terminals over ACP, with the acp-terminal extension (exact output cursors, exact increments, stdin, PTY, signals).",
    );
  });

  it("leaves out exact increments when the client does not advertise outputSince", () => {
    const capabilities = terminalClientCapabilities();
    const mode = chooseMode(
      {
        ...capabilities,
        _meta: { "acp-terminal": { ...capabilities._meta["acp-terminal"], outputSince: false } },
      },
      client,
      "s1",
      noLocalHost,
    );
    expect(mode.description).toContain("(exact output cursors, stdin, PTY, signals)");
  });

  it("says when the client has only the five terminal/* calls", () => {
    expect(chooseMode({ terminal: true }, client, "s1", noLocalHost).description).toContain(
      "the five terminal/* calls only",
    );
  });
});
