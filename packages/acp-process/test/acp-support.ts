import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream, type AgentConnection } from "@agentclientprotocol/sdk";
import {
  AcpTerminalProvider,
  ProcessManager,
  type ProcessManagerOptions,
  type RunEvent,
} from "../src/index.js";
import { FIXTURES } from "./support.js";

export interface AcpClientRig {
  provider: AcpTerminalProvider;
  connection: AgentConnection;
  /** What the fixture client sent in `initialize`. */
  clientCapabilities: unknown;
  /** A fresh manager on this connection; disposed with the rig. */
  managerFor(options?: Partial<ProcessManagerOptions>): {
    manager: ProcessManager;
    events: RunEvent[];
  };
  dispose(): Promise<void>;
}

/** Spawns the fixture client, connects an agent to it over real stdio. One per describe block. */
export async function acpClient(
  options: { plain?: boolean; silentCreate?: boolean } = {},
): Promise<AcpClientRig> {
  const flags = [
    ...(options.plain ? ["--plain"] : []),
    ...(options.silentCreate ? ["--silent-create"] : []),
  ];
  const child: ChildProcess = spawn(
    process.execPath,
    [`${FIXTURES}process-acp-client.mjs`, ...flags],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let gotCapabilities!: (caps: unknown) => void;
  const capabilities = new Promise<unknown>((resolve) => (gotCapabilities = resolve));
  let sessionLoaded!: () => void;
  const loaded = new Promise<void>((resolve) => (sessionLoaded = resolve));
  const app = agent()
    .onRequest("initialize", ({ params }) => {
      gotCapabilities(params.clientCapabilities);
      return { protocolVersion: 1, agentCapabilities: { loadSession: true } };
    })
    .onRequest("session/load", () => {
      // The client knows s1 from the moment it sent this.
      sessionLoaded();
      return {};
    });
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin!),
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const [clientCapabilities] = await Promise.race([
    Promise.all([capabilities, loaded]),
    new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () =>
            reject(
              new Error("the fixture client sent no initialize and session/load within 5000 ms"),
            ),
          5000,
        )),
    ),
  ]);
  clearTimeout(timer);
  const provider = new AcpTerminalProvider(connection.client, {
    sessionId: "s1",
    clientCapabilities,
  });
  const managers: ProcessManager[] = [];
  return {
    provider,
    connection,
    clientCapabilities,
    managerFor(managerOptions = {}) {
      const events: RunEvent[] = [];
      const manager = new ProcessManager({
        provider,
        env: {},
        sweepIntervalMs: 0,
        ...managerOptions,
        onEvent: (e) => events.push(e),
      });
      managers.push(manager);
      return { manager, events };
    },
    async dispose() {
      await Promise.all(managers.map((m) => m.dispose()));
      connection.close();
      child.stdin!.end();
      const killer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(killer);
    },
  };
}
