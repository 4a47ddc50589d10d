// The scripted ACP v2 (draft) client of the recordings, written with the SDK's experimental/v2
// client app: initialize with protocol version 2, session/new, one prompt (whose answer only says
// the prompt was taken; the turn ends with an idle state_update), permission requests answered
// with the first allow option, terminal/cancel and session/cancel where the dialect asks for them,
// then a quiet wait so that background terminals reported after the turn are recorded too.
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk/experimental/v2";
import { allowOption, Activity, CancelScheduler, within } from "./client-support.mjs";
import { AFTER_TURN_MS } from "./dialects.mjs";

/**
 * @param {{ stdin: import("node:stream").Writable, stdout: import("node:stream").Readable }} io
 * @param {import("./dialects.mjs").Dialect} dialect
 * @param {string} cwd
 * @param {(line: string) => void} say
 * @returns {Promise<Record<string, unknown>>} what happened, for the recorder's summary
 */
export async function runV2Session(io, dialect, cwd, say) {
  const activity = new Activity();
  /** @type {string | undefined} */
  let sessionId;
  /** @type {string | undefined} */
  let lastTerminalId;
  /** @type {((stopReason: string) => void) | undefined} */
  let turnEnded;
  const cancels = new CancelScheduler(dialect.cancels ?? [], async (kind, update) => {
    if (sessionId === undefined) {
      return;
    }
    if (kind === "session") {
      say("  session/cancel");
      await connection.agent.notify("session/cancel", { sessionId });
      return;
    }
    const terminalId = typeof update.terminalId === "string" ? update.terminalId : lastTerminalId;
    if (terminalId === undefined) {
      say("  no terminal to cancel yet: session/cancel instead");
      await connection.agent.notify("session/cancel", { sessionId });
      return;
    }
    say(`  terminal/cancel ${terminalId}`);
    const answer = await within(
      connection.agent.request("terminal/cancel", { sessionId, terminalId }),
      10_000,
      "terminal/cancel",
    );
    say(`  terminal/cancel answered ${JSON.stringify(answer)}`);
  });
  const app = client({ name: "acp-adapter-recorder" })
    .onNotification("session/update", ({ params }) => {
      activity.touch();
      const update = /** @type {Record<string, unknown>} */ (params.update);
      if (typeof update.terminalId === "string") {
        lastTerminalId = update.terminalId;
      }
      cancels.see(update);
      if (update.sessionUpdate === "state_update" && update.state === "idle" && update.stopReason) {
        turnEnded?.(String(update.stopReason));
      }
    })
    .onRequest("session/request_permission", ({ params }) => {
      activity.touch();
      return { outcome: { outcome: "selected", optionId: allowOption(params.options) } };
    });
  const connection = app.connect(
    ndJsonStream(
      /** @type {WritableStream<Uint8Array>} */ (Writable.toWeb(io.stdin)),
      /** @type {ReadableStream<Uint8Array>} */ (Readable.toWeb(io.stdout)),
    ),
  );
  const agent = connection.agent;
  const initialized = await within(
    agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      info: { name: "acp-adapter-recorder", version: "1.0.0" },
      capabilities: {},
    }),
    60_000,
    "initialize",
  );
  say(`  initialize: protocol ${initialized.protocolVersion}`);
  if (initialized.protocolVersion !== PROTOCOL_VERSION) {
    return { protocolVersion: initialized.protocolVersion };
  }
  ({ sessionId } = await within(
    agent.request("session/new", { cwd, mcpServers: [] }),
    60_000,
    "session/new",
  ));
  say(`  session ${sessionId}`);
  const ended = new Promise((resolve) => {
    turnEnded = resolve;
  });
  const answer = await within(
    agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: dialect.prompt }],
    }),
    60_000,
    "session/prompt",
  );
  say(`  prompt taken: ${JSON.stringify(answer)}`);
  const stopReason = await within(ended, 120_000, "the idle state_update that ends the turn");
  say(`  turn ended: ${stopReason}`);
  cancels.stop();
  await activity.quiet(3_000, dialect.afterTurnMs ?? AFTER_TURN_MS);
  return { stopReason };
}
