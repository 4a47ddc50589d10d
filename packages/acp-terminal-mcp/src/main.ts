#!/usr/bin/env node
import { leanHeap } from "./lean-heap.js";

// Before the server's modules load (their loading alone would grow the young generation).
leanHeap();
const [{ mcpMain }, { messageOf }] = await Promise.all([
  import("./cli.js"),
  import("acp-terminal/internal"),
]);

mcpMain(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
}).then(
  (code) => process.stdout.write("", () => process.exit(code)),
  (error: unknown) => {
    process.stderr.write(`acp-terminal-mcp: unexpected failure: ${messageOf(error)}\n`);
    process.exit(1);
  },
);
