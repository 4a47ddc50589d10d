import { editorOutput, LineReader, LineWriter } from "./line-io.js";
import type { Port } from "./ports.js";
import { stdioPort } from "./ports.js";
import type { ProxyIo } from "./proxy-options.js";
import { Relay, type RelayOptions } from "./relay.js";
import { parseLine, readWireMessage, type WireMessage } from "./wire-message.js";
import { field } from "./json-rpc.js";

/** The Proxy Chains RFD's methods (SDK 2.4.0 `v1/unstable` PROXY_METHODS). */
const PROXY_INITIALIZE = "proxy/initialize";
const PROXY_SUCCESSOR = "proxy/successor";
const CANCEL_REQUEST = "$/cancel_request";

const lineOf = (value: unknown) => Buffer.from(JSON.stringify(value));

/**
 * The successor's side of a proxy-chain component: what goes to the agent is wrapped in a
 * `proxy/successor` request (with the id of the editor's request it carries: the conductor answers
 * the envelope with the wrapped request's result, which then goes back to the editor unchanged) or
 * notification, for the conductor to deliver. An answer to the successor's request answers the
 * conductor's envelope, whose id the request was read with; a cancel names the envelope on this
 * hop, so it goes as it is.
 */
function successorPort(writer: LineWriter): Port {
  const wrap = (message: unknown) => {
    const method = field(message, "method");
    if (typeof method !== "string" || method === CANCEL_REQUEST) {
      writer.message(message);
      return;
    }
    const params = field(message, "params");
    const inner = { method, ...(params === undefined ? {} : { params }) };
    const id = field(message, "id");
    writer.message(
      id === undefined
        ? { jsonrpc: "2.0", method: PROXY_SUCCESSOR, params: inner }
        : { jsonrpc: "2.0", id, method: PROXY_SUCCESSOR, params: inner },
    );
  };
  return {
    pass: (line: Buffer, message: WireMessage) => {
      if (message.kind === "response") {
        writer.line(line);
      } else {
        wrap("value" in message && message.value !== undefined ? message.value : parseLine(line));
      }
    },
    send: wrap,
    get full() {
      return writer.full;
    },
    drained: (then) => writer.drained(then),
  };
}

/**
 * Reads one line from the conductor: the successor's messages come wrapped (`proxy/successor`)
 * and are unwrapped for the relay, the request keeping the envelope's id; `proxy/initialize` is
 * the editor's `initialize`; an answer, or a cancel, is the successor's when it names a request
 * sent to the successor, else the editor's.
 */
function demux(relay: Relay, writer: LineWriter, line: Buffer): void {
  const message = readWireMessage(line);
  if (message.kind === "response") {
    (relay.awaitsAgent(message.id) ? relay.fromAgent : relay.fromEditor).call(relay, line);
    return;
  }
  if (message.kind !== "request" && message.kind !== "notification") {
    relay.fromEditor(line);
    return;
  }
  const value = message.value ?? parseLine(line);
  const params = field(value, "params");
  if (message.method === PROXY_SUCCESSOR) {
    const inner = {
      jsonrpc: "2.0",
      ...(message.kind === "request" ? { id: message.id } : {}),
      method: field(params, "method"),
      ...(field(params, "params") === undefined ? {} : { params: field(params, "params") }),
    };
    relay.fromAgent(lineOf(inner));
  } else if (message.method === PROXY_INITIALIZE) {
    relay.fromEditor(lineOf({ ...value, method: "initialize" }));
  } else if (message.kind === "request" && message.method === "initialize") {
    writer.message({
      jsonrpc: "2.0",
      id: message.id,
      error: {
        code: -32600,
        message:
          "acp-terminal proxy without an agent command is a proxy-chain component: its conductor sends proxy/initialize. To run it in front of an agent, give the agent after --",
      },
    });
  } else if (message.method === CANCEL_REQUEST) {
    const requestId = field(params, "requestId");
    const ofEditor =
      (typeof requestId === "string" || typeof requestId === "number") &&
      relay.awaitsAgent(requestId);
    (ofEditor ? relay.fromEditor : relay.fromAgent).call(relay, line);
  } else {
    relay.fromEditor(line);
  }
}

/**
 * `acp-terminal proxy` with no agent: a component of a conductor's proxy chain (the Proxy Chains
 * RFD), on this process's stdio. The conductor is both the editor's side (its plain messages) and
 * the successor's (the `proxy/successor` envelopes); the relay is the same as in front of an agent.
 * Ends when the conductor closes stdin (or stdout breaks), every terminal released.
 */
export async function runChainComponent(io: ProxyIo, relayOptions: RelayOptions): Promise<number> {
  let left!: () => void;
  const gone = new Promise<void>((resolve) => (left = resolve));
  const writer = new LineWriter(editorOutput(io.stdout), () => left());
  const relay = new Relay(stdioPort(writer), successorPort(writer), relayOptions);
  const reader: LineReader = new LineReader(
    io.stdin,
    (line) => {
      demux(relay, writer, line);
      if (writer.full) {
        reader.pause();
        writer.drained(() => reader.resume());
      }
    },
    () =>
      writer.message({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request: message too large" },
      }),
  );
  void reader.ended.then(left);
  await gone;
  relay.editorGone();
  relay.agentGone("the conductor closed the connection", {});
  reader.destroy();
  await relay.close();
  await writer.flush();
  return 0;
}
