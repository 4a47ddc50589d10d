/**
 * acp-process's `McpToolsProvider` over a real `acp-terminal mcp` (v2 client over stdio), where
 * it leans on the tools' contract: exec keeps stdin open (the provider closes it for a terminal
 * created without stdin), and `process poll` skips pending output past the server's cap (the
 * provider counts it from `skippedBytes`, so its cursors stay exact).
 */
import { McpToolsProvider, type McpToolCall } from "acp-process";
import { afterEach, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import type { McpTestClient } from "./support/mcp-clients.js";
import { connectServer } from "./support/mcp-server.js";
import { withDeadline } from "./support/until.js";

let client: McpTestClient | undefined;
let mark = "";

afterEach(async () => {
  await client?.close();
  client = undefined;
  await untilNoneMarked(mark);
});

async function provider(options: { outputByteLimit?: number } = {}): Promise<McpToolsProvider> {
  mark = newMark();
  client = await connectServer("v2", ["--workspace", process.cwd(), "--yes"], mark);
  const connected = client;
  const call: McpToolCall = async (name, args) => {
    const result = await connected.callTool(name, args);
    if (result.isError) {
      throw new Error(`MCP ${name}: ${result.content.map((block) => block.text ?? "").join(" ")}`);
    }
    return result.structuredContent!;
  };
  return new McpToolsProvider(call, options);
}

test("a terminal created without stdin reads end-of-file, as the host gives it; one with stdin takes writes", async () => {
  const tools = await provider();
  const closed = await tools.create({ command: "cat; echo eof-seen" });
  expect(await withDeadline(tools.waitForExit(closed), 10_000, "cat to see end-of-file")).toEqual({
    exitCode: 0,
    signal: null,
  });
  expect((await tools.output(closed)).output).toBe("eof-seen\n");
  const open = await tools.create({ command: "cat", stdin: true });
  await tools.write!(open, "typed\n", { eof: true });
  expect(await withDeadline(tools.waitForExit(open), 10_000, "cat to end after the write")).toEqual(
    { exitCode: 0, signal: null },
  );
  expect((await tools.output(open)).output).toBe("typed\n");
  await Promise.all([tools.release(closed), tools.release(open)]);
});

test("output past the server's pending cap (30000 characters a poll) is counted exactly; the tail is the stream's end", async () => {
  const tools = await provider({ outputByteLimit: 4096 });
  // 100000 × "é" (200000 bytes), then "end\n": far more than one poll returns.
  const id = await tools.create({ command: `printf 'é%.0s' $(seq 1 100000); echo end` });
  await withDeadline(tools.waitForExit(id), 20_000, "the flood to end");
  const out = await tools.output(id);
  expect(out.totalBytes).toBe(200_004);
  expect(out.truncated).toBe(true);
  expect(out.output.endsWith("ééend\n")).toBe(true);
  expect(Buffer.byteLength(out.output)).toBeLessThanOrEqual(4096);
  expect(out.droppedBytes).toBe(200_004 - Buffer.byteLength(out.output));
  await tools.release(id);
});
