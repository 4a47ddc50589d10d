#!/usr/bin/env node
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { agentProtocolRouter } from "@agentclientprotocol/sdk/experimental/v2";
import { conformanceAgent } from "./agent.js";
import { messageOf } from "acp-terminal/internal";
import { DEFAULT_CANCEL_WINDOW_MS } from "./v2/base/cancel-scenario.js";
import { conformanceAgentV2 } from "./v2/agent.js";

const USAGE = `Usage: acp-terminal-conformance [--report FILE] [--cancel-window MS]

An ACP agent (stdio) that checks the terminals of the client that launches it. Configure it as an
agent in your editor, send it any prompt, and read the results as tool calls and text. The
protocol version is negotiated per connection: ACP v1 clients get the v1 battery (client-owned
terminal/* methods), ACP v2 clients the v2 battery (agent-owned terminals, terminal/cancel).

  --report FILE        also write a JSON report to FILE after each run
  --cancel-window MS   v2: how long to wait for terminal/cancel (default ${DEFAULT_CANCEL_WINDOW_MS}; 0: do not wait)
  --help               this help
`;

/** Longest the process waits, once the client has gone, for a battery to write its report. */
const REPORT_FLUSH_MS = 3_000;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}`);
  process.exit(1);
}

function main(): void {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        report: { type: "string" },
        "cancel-window": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    fail(messageOf(error));
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const window = values["cancel-window"];
  const cancelWindowMs = window === undefined ? undefined : Number(window);
  if (
    cancelWindowMs !== undefined &&
    !(Number.isInteger(cancelWindowMs) && cancelWindowMs >= 0 && cancelWindowMs <= 600_000)
  ) {
    fail(`--cancel-window takes milliseconds, an integer from 0 to 600000; got "${window}"`);
  }
  const reportPath = values.report === undefined ? undefined : path.resolve(values.report);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const batteries = new Set<Promise<unknown>>();
  const connection = agentProtocolRouter()
    .withV1(conformanceAgent({ reportPath }))
    .withV2(conformanceAgentV2({ reportPath, cancelWindowMs, batteries }))
    .connect(stream);
  // The client closing our stdin ends the session: exit even if a check is still waiting (a v2
  // battery notices the closed connection at once and writes its report first).
  void connection.closed.then(async () => {
    await Promise.race([Promise.allSettled([...batteries]), delay(REPORT_FLUSH_MS)]);
    process.exit(0);
  });
}

main();
