#!/usr/bin/env node
import { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
import { agentProtocolRouter, ndJsonStream } from "@agentclientprotocol/sdk/experimental/v2";
import { demoAgent, type DemoAgent } from "./agent.js";
import { messageOf } from "acp-terminal/internal";

const USAGE =
  "Usage: demo-agent [--store PATH]\n\nAn ACP agent (stdio) with no model. Prompts are commands: run, bg, send, keys, poll, log, kill, list, watch, help, demo.\n" +
  "  --store PATH   keep runs and their output in this SQLite file (acp-process's SqliteRunStore; also DEMO_STORE=PATH)\n" +
  "Try: acp-terminal run --agent demo-agent demo\n";

let values: { store?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: { store: { type: "string" }, help: { type: "boolean", short: "h" } },
  }));
} catch (error) {
  // An unknown flag, a stray argument, or --store without its path.
  process.stderr.write(`demo-agent: ${messageOf(error)}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (values.store !== undefined && (values.store === "" || values.store.startsWith("-"))) {
  process.stderr.write(
    `demo-agent: --store expects a file path, e.g. --store runs.db, received ${JSON.stringify(values.store)}\n${USAGE}`,
  );
  process.exit(2);
}
const storePath = values.store ?? (process.env["DEMO_STORE"] || undefined);

let demo: DemoAgent;
try {
  demo = demoAgent(storePath === undefined ? {} : { storePath });
} catch (error) {
  // A store that cannot be opened, or is in use by another agent: say so, before speaking ACP.
  process.stderr.write(`demo-agent: ${messageOf(error)}\n`);
  process.exit(1);
}
const stream = ndJsonStream(
  Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
  Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
);
// The version is negotiated per connection: v1 clients get the v1 agent, v2 (draft) clients the v2 one.
const connection = agentProtocolRouter().withV1(demo.app).withV2(demo.v2App).connect(stream);

let exiting = false;
/** Local commands lead process groups of their own: a signal to ours does not reach them, so stop them first. */
async function shutdown(code: number): Promise<void> {
  if (exiting) {
    return;
  }
  exiting = true;
  await demo.dispose();
  process.exit(code);
}

// The client closing our stdin ends every session.
void connection.closed.then(() => shutdown(0));
for (const [signal, code] of [
  ["SIGTERM", 143],
  ["SIGINT", 130],
  ["SIGHUP", 129],
] as const) {
  process.once(signal, () => void shutdown(code));
}
