#!/usr/bin/env node
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { demoAgent } from "./agent.js";

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(
    "Usage: demo-agent\n\nAn ACP agent (stdio) with no model. Prompts are commands: run, bg, send, keys, poll, log, kill, list, watch, help, demo.\n" +
      'Try: acp-terminal run --agent demo-agent demo\n',
  );
  process.exit(0);
}

const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
const demo = demoAgent();
const connection = demo.app.connect(stream);

let exiting = false;
/** Local commands lead process groups of their own: a signal to ours does not reach them, so stop them first. */
async function shutdown(code: number): Promise<void> {
  if (exiting) return;
  exiting = true;
  await demo.dispose();
  process.exit(code);
}

// The client closing our stdin ends every session.
void connection.closed.then(() => shutdown(0));
for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130], ["SIGHUP", 129]] as const) {
  process.once(signal, () => void shutdown(code));
}
