#!/usr/bin/env node
/**
 * The agent of bench/cli-fatal.bench.mjs (SDK 2.x, ACP v1, stdio): it fails fatally the way the
 * public adapters do, and says when, on the machine's wall clock (`performance.timeOrigin +
 * performance.now()`, comparable across processes):
 *
 *   new-error   `session/new` answers -32603 "Internal error" with `data.details` (claude-agent-acp's
 *               "Query closed before response received") and `data.sentAt`, the time just before
 *               the answer is written.
 *   crash       `session/new` succeeds; the prompt makes it print `fatal-agent: exit at <time>` on
 *               stderr and exit 1 at once.
 *
 * After its stdin closes it stays up `FATAL_AGENT_TEARDOWN_MS` (default 2000: codex-acp exits
 * 2.0–2.3 s after its stdin closes), so a client that waits for the agent's exit before saying what
 * failed is seen to be late.
 */
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream, RequestError } from "@agentclientprotocol/sdk";
import { wallMs } from "./stats.mjs";

const mode = process.argv[2];
if (mode !== "new-error" && mode !== "crash") {
  process.stderr.write("usage: fatal-agent.mjs new-error|crash\n");
  process.exit(2);
}

const app = agent({ name: "fatal-agent" })
  .onRequest("initialize", () => ({
    protocolVersion: 1,
    agentInfo: { name: "fatal-agent", version: "1.0.0" },
    agentCapabilities: {},
    authMethods: [],
  }))
  .onRequest("session/new", () => {
    if (mode === "new-error") {
      throw new RequestError(-32603, "Internal error", {
        details: "Query closed before response received",
        sentAt: wallMs(),
      });
    }
    return { sessionId: "fatal-session" };
  })
  .onRequest("session/prompt", () => {
    process.stderr.write(`fatal-agent: exit at ${wallMs()}\n`);
    process.exit(1);
  });

app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
process.stdin.on("end", () => {
  setTimeout(() => process.exit(0), Number(process.env.FATAL_AGENT_TEARDOWN_MS ?? 2000));
});
