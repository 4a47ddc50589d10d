#!/usr/bin/env node
/**
 * An ACP client process hosting terminals over stdio: a TerminalHost bound with bindTerminalHost.
 * The benchmark plays the agent. Options: one JSON argument, `{ host?: TerminalHostOptions }`.
 * Sends `initialize` first (the agent answers it), then `session/load` of "bench-session", and
 * exits when the connection closes.
 */
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { TerminalHost, bindTerminalHost, terminalClientCapabilities } from "acp-terminal";

const options = JSON.parse(process.argv[2] ?? "{}");
const host = new TerminalHost(options.host ?? {});
const app = client({ name: "bench-terminal-client" });
const binding = bindTerminalHost(app, host);
const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.agent.request("initialize", {
  protocolVersion: 1,
  clientCapabilities: terminalClientCapabilities(),
});
// The benchmarks' session, opened as an editor reopens one: the binding serves terminals only in
// sessions the client opened (session/load counts from the moment it is sent).
await connection.agent.request("session/load", {
  sessionId: "bench-session",
  cwd: process.cwd(),
  mcpServers: [],
});
await connection.closed;
await binding.whenIdle();
await host.dispose();
process.exit(0);
