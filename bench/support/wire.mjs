/**
 * The agent side of the wire benchmarks: starts a client process (terminal-client.mjs or
 * canned-client.mjs) and talks ACP to it over its stdio with the SDK.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk";

export const TERMINAL_CLIENT = fileURLToPath(new URL("./terminal-client.mjs", import.meta.url));
export const CANNED_CLIENT = fileURLToPath(new URL("./canned-client.mjs", import.meta.url));

/** How long a client process may take to send `initialize` before it is killed. */
const INITIALIZE_DEADLINE_MS = 10_000;

/** Starts `script` as a client process; resolves once it has sent `initialize` (killed after INITIALIZE_DEADLINE_MS). */
export async function startClient(script, options = {}) {
  const child = spawn(process.execPath, [script, JSON.stringify(options)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let initialized;
  let loaded;
  const sessionOpened = new Promise((resolve) => (loaded = resolve));
  const initializedOnce = new Promise((resolve) => (initialized = resolve));
  // terminal-client.mjs then opens the benchmarks' session; canned-client.mjs serves any session.
  const ready =
    script === TERMINAL_CLIENT ? Promise.all([initializedOnce, sessionOpened]) : initializedOnce;
  const app = agent({ name: "bench-agent" })
    .onRequest("initialize", () => {
      initialized();
      return { protocolVersion: 1, agentCapabilities: { loadSession: true } };
    })
    .onRequest("session/load", () => {
      loaded();
      return {};
    });
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)),
  );
  const exited = once(child, "exit");
  const deadline = setTimeout(() => child.kill("SIGKILL"), INITIALIZE_DEADLINE_MS);
  try {
    await Promise.race([
      ready,
      exited.then(([code, signal]) => {
        const how =
          signal === "SIGKILL"
            ? `was killed after ${INITIALIZE_DEADLINE_MS} ms`
            : `exited with ${code ?? signal}`;
        throw new Error(`${script} ${how} before initialize`);
      }),
    ]);
  } finally {
    clearTimeout(deadline);
  }
  return {
    client: connection.client,
    child,
    async stop() {
      connection.close();
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
