#!/usr/bin/env node
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { demoAgent, type DemoAgent } from "./agent.js";

const USAGE =
  "Usage: demo-agent [--store PATH]\n\nAn ACP agent (stdio) with no model. Prompts are commands: run, bg, send, keys, poll, log, kill, list, watch, help, demo.\n" +
  "  --store PATH   keep runs and their output in this SQLite file (acp-process's SqliteRunStore; also DEMO_STORE=PATH)\n" +
  "Try: acp-terminal run --agent demo-agent demo\n";

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const storeFlag = args.indexOf("--store");
const storePath = storeFlag >= 0 ? args[storeFlag + 1] : process.env["DEMO_STORE"] || undefined;
if (storeFlag >= 0 && (storePath === undefined || storePath.startsWith("--"))) {
  process.stderr.write(`demo-agent: --store expects a file path, e.g. --store runs.db\n${USAGE}`);
  process.exit(2);
}

let demo: DemoAgent;
try {
  demo = demoAgent(storePath === undefined ? {} : { storePath });
} catch (error) {
  // A store that cannot be opened, or is in use by another agent: say so, before speaking ACP.
  process.stderr.write(`demo-agent: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
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
