#!/usr/bin/env node
/**
 * The cheapest ACP v1 agent there is, for timing what sits in front of it: raw JSON-RPC lines, no
 * SDK. `initialize` gets protocol 1, `session/new` a session; every other request is answered at
 * once with `{"echo": <its method>}`, and notifications are ignored.
 */
import { createInterface } from "node:readline";

createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined || message.method === undefined) {
    return;
  }
  const result =
    message.method === "initialize"
      ? {
          protocolVersion: 1,
          agentCapabilities: {},
          agentInfo: { name: "echo-agent", version: "1" },
        }
      : message.method === "session/new"
        ? { sessionId: "s1" }
        : { echo: message.method };
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`);
});
