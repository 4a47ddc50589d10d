/**
 * Error answers are small and never "Internal error" for bad input: hostile params over real
 * stdio to a real client process, each answer's code checked and its bytes counted as they crossed
 * the pipe. The SDK's own answers (unparseable lines) are covered too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRawPeer, type RawPeer } from "./support/raw-peer.js";

const MAX_ANSWER_BYTES = 4096;
const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
const deepObject = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
const request = (id: number, method: string, params: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`;

let peer: RawPeer;
const sizes: Record<string, number> = {};
beforeAll(async () => {
  peer = await startRawPeer(["s"]);
});
afterAll(async () => {
  await peer.stop();
  console.log(
    `error answer bytes: ${JSON.stringify(sizes)}; largest ${Math.max(...Object.values(sizes))}`,
  );
});

const cases: [string, string, string][] = [
  [
    "a command nested 5,000 levels deep",
    "terminal/create",
    `{"sessionId":"s","command":${deep(5_000)}}`,
  ],
  [
    "a command nested 100,000 levels deep",
    "terminal/create",
    `{"sessionId":"s","command":${deep(100_000)}}`,
  ],
  [
    "an object nested 100,000 levels deep",
    "terminal/create",
    `{"sessionId":"s","command":${deepObject(100_000)}}`,
  ],
  ["params nested 100,000 levels deep", "terminal/output", deep(100_000)],
  [
    "_meta pty nested 100,000 levels deep",
    "terminal/create",
    `{"sessionId":"s","command":"true","_meta":{"acp-terminal":{"pty":${deep(100_000)}}}}`,
  ],
  [
    "a write's data nested 100,000 levels deep",
    "_acp-terminal/write",
    `{"sessionId":"s","terminalId":"t","data":${deep(100_000)}}`,
  ],
  [
    "a 20 MB string where a number belongs",
    "terminal/create",
    JSON.stringify({ sessionId: "s", command: "true", outputByteLimit: "x".repeat(20_000_000) }),
  ],
  [
    "a 20 MB string as the cwd (relative)",
    "terminal/create",
    JSON.stringify({ sessionId: "s", command: "true", cwd: "x".repeat(20_000_000) }),
  ],
  ["a 20 MB string as the whole params", "terminal/output", JSON.stringify("q".repeat(20_000_000))],
  [
    "a 20 MB string as a signal name",
    "_acp-terminal/signal",
    JSON.stringify({ sessionId: "s", terminalId: "t", signal: "S".repeat(20_000_000) }),
  ],
  [
    "a million wrong args",
    "terminal/create",
    JSON.stringify({
      sessionId: "s",
      command: "true",
      args: Array.from({ length: 1_000_000 }, () => 1),
    }),
  ],
  [
    "300,000 wrong env entries",
    "terminal/create",
    JSON.stringify({
      sessionId: "s",
      command: "true",
      env: Array.from({ length: 300_000 }, () => ({ name: 1 })),
    }),
  ],
  ["a 1 MB key", "terminal/output", JSON.stringify({ ["k".repeat(1_000_000)]: 1, sessionId: 5 })],
  [
    "a 1 MB key in _meta",
    "terminal/create",
    JSON.stringify({
      sessionId: "s",
      command: "true",
      _meta: { "acp-terminal": { ["k".repeat(1_000_000)]: 1, pty: "no" } },
    }),
  ],
  [
    "a 10 MB session id nobody opened",
    "terminal/create",
    JSON.stringify({ sessionId: "i".repeat(10_000_000), command: "true" }),
  ],
];

describe("error answers over the wire", () => {
  it.each(cases)("%s: -32602 in at most 4 KiB", async (name, method, params) => {
    const answer = await peer.ask(request(1, method, params));
    sizes[name] = answer.bytes;
    expect(answer.message.error?.code, answer.line.slice(0, 300)).toBe(-32602);
    expect(answer.message.error?.message).toMatch(new RegExp(`^Invalid params for ${method}: `));
    expect(answer.bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  });

  it("an unknown terminal id 10 MB long: -32002 in at most 4 KiB", async () => {
    const answer = await peer.ask(
      request(
        2,
        "terminal/output",
        JSON.stringify({ sessionId: "s", terminalId: "t".repeat(10_000_000) }),
      ),
    );
    sizes["an unknown 10 MB terminal id"] = answer.bytes;
    expect(answer.message.error?.code).toBe(-32002);
    expect(answer.bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  });

  it("a 20 MB command that cannot be found: a -32603 saying so, in at most 4 KiB", async () => {
    const answer = await peer.ask(
      request(
        3,
        "terminal/create",
        JSON.stringify({
          sessionId: "s",
          command: "no-such-command-" + "x".repeat(20_000_000),
          args: [],
        }),
      ),
    );
    sizes["a 20 MB command not found"] = answer.bytes;
    expect(answer.message.error?.code).toBe(-32603);
    expect(answer.message.error?.message).not.toMatch(/^Internal error/);
    expect(answer.bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  });

  it("a line that is not JSON is the SDK's -32700, small", async () => {
    const answer = await peer.ask(
      '{"jsonrpc":"2.0","id":4,"method":"terminal/output","params":{"a":' + '"z'.repeat(1_000_000),
    );
    sizes["not JSON (SDK)"] = answer.bytes;
    expect(answer.message.error?.code).toBe(-32700);
    expect(answer.bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  });
});
