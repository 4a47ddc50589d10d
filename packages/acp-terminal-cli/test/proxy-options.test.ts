import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseProxyCommand } from "../src/proxy/proxy-options.js";

const parse = (...argv: string[]) => parseProxyCommand(argv, "/work", (b, p) => path.resolve(b, p));

describe("acp-terminal proxy's arguments", () => {
  it("takes the agent's argv after --, quoted into one command line", () => {
    const parsed = parse("--yes", "--", "node", "my agent.mjs", "--acp", "it's");
    expect(parsed).toMatchObject({
      kind: "proxy",
      options: { agent: `node 'my agent.mjs' --acp 'it'\\''s'`, terminals: "auto", liveLines: 40 },
    });
  });

  it("takes one word as a command line or a known name, and none as a proxy-chain component", () => {
    expect(parse("claude")).toMatchObject({ kind: "proxy", options: { agent: "claude" } });
    expect(parse("--", "npx my-agent --acp")).toMatchObject({
      options: { agent: "npx my-agent --acp" },
    });
    expect(parse("--terminals", "serve")).toMatchObject({
      kind: "proxy",
      options: { agent: undefined, terminals: "serve" },
    });
  });

  it("names the flag, what it takes and what it got when one is wrong", () => {
    expect(parse("--terminals", "always", "--", "a")).toEqual({
      kind: "error",
      message: 'Invalid --terminals: expected one of auto, serve, forward, received "always"',
    });
    expect(parse("--lines", "0", "--", "a")).toMatchObject({
      kind: "error",
      message: expect.stringContaining("Invalid --lines: expected a whole number of lines from 1"),
    });
    expect(parse("--no-contain", "--pid-namespace", "--", "a")).toMatchObject({
      message: "--no-contain and --pid-namespace exclude each other: give one",
    });
    expect(parse("--on", "ftp://x", "--", "a")).toMatchObject({
      message: expect.stringContaining("Invalid --on"),
    });
    expect(parse("--bogus")).toMatchObject({ kind: "error" });
  });

  it("reads --cwd from the current directory, as the sandbox's workspace", () => {
    expect(parse("--cwd", "sub", "--sandbox", "workspace-write", "--", "a")).toMatchObject({
      options: { cwd: "/work/sub", approval: { sandbox: "workspace-write" } },
    });
  });
});
