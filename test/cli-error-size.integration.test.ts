/**
 * `acp-terminal run` answers hostile requests it handles itself (not through the terminal binding)
 * with small errors too: the agent gets the code and counts the bytes of what it received.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURE_AGENT, killAllStarted, nodeAgent, runCli } from "./fixtures/cli-process.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

/** The code and byte count a fixture mode reports as "<mode>: <code> <bytes>". */
async function reported(mode: string): Promise<{ code: string; bytes: number }> {
  const { stdout } = await runCli(["run", "--agent", nodeAgent(FIXTURE_AGENT, mode), "go"]);
  const [, code = "", bytes = ""] = new RegExp(`^${mode}: (-?\\d+) (\\d+)\\n$`).exec(stdout) ?? [
    undefined,
    stdout,
  ];
  return { code, bytes: Number(bytes) };
}

describe("acp-terminal run: small error answers", () => {
  it("a request for a 1 MB unknown method gets a -32601 under 4 KiB (the SDK's own echoes the name twice)", async () => {
    const { code, bytes } = await reported("unknown");
    expect(code).toBe("-32601");
    expect(bytes).toBeLessThan(4096);
  });

  it("a permission request with 100,000 malformed options gets a -32602 under 4 KiB (the SDK's own passes 32 MiB)", async () => {
    const { code, bytes } = await reported("bad-permission");
    expect(code).toBe("-32602");
    expect(bytes).toBeLessThan(4096);
  });
});
