#!/usr/bin/env node
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { conformanceAgent } from "./agent.js";
import { messageOf } from "../core/thrown.js";

const USAGE = `Usage: acp-terminal-conformance [--report FILE]

An ACP agent (stdio) that checks the terminal methods of the client that launches it. Configure
it as an agent in your editor, send it any prompt, and read the results as tool calls and text.

  --report FILE   also write a JSON report to FILE after each run
  --help          this help
`;

function main(): void {
  let values;
  try {
    ({ values } = parseArgs({
      options: { report: { type: "string" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    process.stderr.write(`${messageOf(error)}\n${USAGE}`);
    process.exit(1);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const reportPath = values.report === undefined ? undefined : path.resolve(values.report);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = conformanceAgent({ reportPath }).connect(stream);
  // The client closing our stdin ends the session: exit even if a check is still waiting.
  void connection.closed.then(() => process.exit(0));
}

main();
