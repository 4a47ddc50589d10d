#!/usr/bin/env node
/**
 * The transport floor: an ACP client process on the same SDK that registers the five terminal
 * handlers and answers each at once with a fixed result. `terminal/output` answers the output a
 * real terminal would hold, precomputed: terminal id `kib` → payload(1 KiB), `mib` → payload(1 MiB),
 * with the same fields the host sends (exitStatus, the cursor `_meta`).
 */
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { terminalClientCapabilities } from "acp-terminal";
import { payload } from "./content.mjs";

const exitStatus = { exitCode: 0, signal: null };
const outputs = new Map(
  [
    ["kib", 1024],
    ["mib", 1024 * 1024],
  ].map(([terminalId, bytes]) => [
    terminalId,
    {
      output: payload(bytes).toString("utf8"),
      truncated: false,
      exitStatus,
      _meta: { "acp-terminal": { totalBytes: bytes, droppedBytes: 0 } },
    },
  ]),
);
const empty = {
  output: "",
  truncated: false,
  exitStatus,
  _meta: { "acp-terminal": { totalBytes: 0, droppedBytes: 0 } },
};

const app = client({ name: "bench-canned-client" })
  .onRequest(methods.client.terminal.create, () => ({ terminalId: "canned" }))
  .onRequest(
    methods.client.terminal.output,
    ({ params }) => outputs.get(params.terminalId) ?? empty,
  )
  .onRequest(methods.client.terminal.waitForExit, () => exitStatus)
  .onRequest(methods.client.terminal.kill, () => ({}))
  .onRequest(methods.client.terminal.release, () => ({}));
const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.agent.request("initialize", {
  protocolVersion: 1,
  clientCapabilities: terminalClientCapabilities(),
});
await connection.closed;
process.exit(0);
