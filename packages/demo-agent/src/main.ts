#!/usr/bin/env node
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { demoAgent } from "./agent.js";

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(
    "Usage: demo-agent\n\nAn ACP agent (stdio) with no model. Prompts are commands: run, bg, poll, log, kill, list, watch, help, demo.\n" +
      'Try: acp-terminal run --agent demo-agent demo\n',
  );
  process.exit(0);
}

const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
const demo = demoAgent();
const connection = demo.app.connect(stream);
// The client closing our stdin ends every session: stop what still runs, then exit.
void connection.closed.then(async () => {
  await demo.dispose();
  process.exit(0);
});
