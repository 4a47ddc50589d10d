#!/usr/bin/env node
import { mcpMain } from "./cli.js";
import { messageOf } from "acp-terminal/internal";

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
