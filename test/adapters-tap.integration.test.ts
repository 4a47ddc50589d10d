/**
 * The stdio tap that records the public adapters (test/adapters/tap.mjs), between a real client
 * pipe and a real child: bytes pass through unchanged, and the JSONL record holds every line of
 * both directions, a character split across two reads, non-JSON lines, the end of stdin and the
 * exit.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { until, withDeadline } from "./support/until.js";

const TAP = fileURLToPath(new URL("./adapters/tap.mjs", import.meta.url));

// The "agent": answers the first line with a result whose rocket is cut after its first 2 bytes,
// sends the rest only once the client says "go", then a line that is not JSON; exits 3 at EOF.
const AGENT = `
const answer = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"text":"é✓🚀"}}\\n');
const cut = answer.indexOf(Buffer.from("🚀")) + 2;
let lines = 0;
process.stdin.on("data", () => {
  lines += 1;
  if (lines === 1) process.stdout.write(answer.subarray(0, cut));
  if (lines === 2) process.stdout.write(Buffer.concat([answer.subarray(cut), Buffer.from("not json\\n")]));
});
process.stdin.on("end", () => process.exit(3));
`;

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("the tap passes bytes through unchanged and records each line both ways, a split character whole, EOF and exit", async () => {
  dir = mkdtempSync(join(tmpdir(), "tap-test-"));
  const record = join(dir, "record.jsonl");
  const tap = spawn(process.execPath, [TAP, "--out", record, "--", process.execPath, "-e", AGENT], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = once(tap, "exit");
  const received: Buffer[] = [];
  tap.stdout.on("data", (chunk: Buffer) => received.push(chunk));
  const output = () => Buffer.concat(received);
  try {
    tap.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await until(() => output().includes(Buffer.from("✓")), {
      timeoutMs: 10_000,
      message: "the first part of the answer",
    });
    tap.stdin.write("go\n");
    await until(() => output().toString("utf8").endsWith("not json\n"), {
      timeoutMs: 10_000,
      message: "the rest of the answer",
    });
    tap.stdin.end();
    const [code] = await withDeadline(exited, 10_000, "the tap to exit with its child");
    expect(code).toBe(3);
  } finally {
    tap.kill("SIGKILL");
  }
  expect(output().toString("utf8")).toBe(
    '{"jsonrpc":"2.0","id":1,"result":{"text":"é✓🚀"}}\nnot json\n',
  );
  const entries = readFileSync(record, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(entries.map(({ t: _t, ...entry }) => entry)).toEqual([
    { from: "client", msg: { jsonrpc: "2.0", id: 1, method: "ping" } },
    // The answer's line ends only after "go".
    { from: "client", raw: "go" },
    { from: "agent", msg: { jsonrpc: "2.0", id: 1, result: { text: "é✓🚀" } } },
    { from: "agent", raw: "not json" },
    { from: "client", eof: true },
    { exit: { code: 3, signal: null } },
  ]);
  const times = entries.map((entry) => entry.t as number);
  expect(times).toEqual([...times].sort((a, b) => a - b));
});
