// The scripted ACP v1 client of the recordings, written with @agentclientprotocol/sdk (not the
// acp-terminal CLI): initialize with the dialect's capabilities, session/new, one prompt, permission
// requests answered with the first allow option, session/cancel where the dialect asks for it,
// then a quiet wait so that background work reported after the turn is recorded too.
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { allowOption, Activity, CancelScheduler, within } from "./client-support.mjs";
import { AFTER_TURN_MS } from "./dialects.mjs";

const TERMINAL_METHODS = /** @type {const} */ ([
  "terminal/create",
  "terminal/output",
  "terminal/wait_for_exit",
  "terminal/kill",
  "terminal/release",
]);

/**
 * @param {{ stdin: import("node:stream").Writable, stdout: import("node:stream").Readable }} io
 * @param {import("./dialects.mjs").Dialect} dialect
 * @param {string} cwd
 * @param {(line: string) => void} say
 * @returns {Promise<Record<string, unknown>>} what happened, for the recorder's summary
 */
export async function runV1Session(io, dialect, cwd, say) {
  const activity = new Activity();
  /** @type {string | undefined} */
  let sessionId;
  const cancels = new CancelScheduler(dialect.cancels ?? [], async (kind, update) => {
    if (sessionId === undefined) {
      return;
    }
    say(`  ${kind} cancel (tool call ${String(update.toolCallId)})`);
    await connection.agent.notify("session/cancel", { sessionId });
  });
  const app = client({ name: "acp-adapter-recorder" })
    .onNotification("session/update", ({ params }) => {
      activity.touch();
      cancels.see(/** @type {Record<string, unknown>} */ (params.update));
    })
    .onRequest("session/request_permission", ({ params }) => {
      activity.touch();
      return { outcome: { outcome: "selected", optionId: allowOption(params.options) } };
    });
  for (const method of TERMINAL_METHODS) {
    app.onRequest(method, () => {
      say(`  the agent called ${method}: this client runs no terminals`);
      throw new Error(`${method}: the recording client runs no terminals`);
    });
  }
  const connection = app.connect(
    ndJsonStream(
      /** @type {WritableStream<Uint8Array>} */ (Writable.toWeb(io.stdin)),
      /** @type {ReadableStream<Uint8Array>} */ (Readable.toWeb(io.stdout)),
    ),
  );
  const agent = connection.agent;
  const initialized = /** @type {import("@agentclientprotocol/sdk").InitializeResponse} */ (
    await within(
      agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: dialect.capabilities ?? {},
        clientInfo: { name: "acp-adapter-recorder", version: "1.0.0" },
      }),
      60_000,
      "initialize",
    )
  );
  say(`  initialize: protocol ${initialized.protocolVersion}`);
  try {
    ({ sessionId } = await within(
      agent.request("session/new", { cwd, mcpServers: [] }),
      60_000,
      "session/new",
    ));
  } catch (error) {
    if (dialect.newSessionFails) {
      say(`  session/new failed as expected: ${JSON.stringify(error)}`);
      const method = initialized.authMethods?.[0];
      if (/** @type {{ code?: number }} */ (error).code === -32000 && method !== undefined) {
        // What `authenticate` answers for the first method, with no credentials in reach.
        const answer = await within(
          agent.request("authenticate", { methodId: method.id }),
          10_000,
          "authenticate",
        ).catch((refusal) => ({ refusal }));
        say(`  authenticate ${method.id}: ${JSON.stringify(answer)}`);
      }
      return { newSessionError: error };
    }
    throw error;
  }
  say(`  session ${sessionId}`);
  const answer = await within(
    agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: dialect.prompt }],
    }),
    120_000,
    "session/prompt",
  );
  say(`  prompt answered: ${answer.stopReason}`);
  cancels.stop();
  await activity.quiet(3_000, dialect.afterTurnMs ?? AFTER_TURN_MS);
  return { stopReason: answer.stopReason };
}
