import { setTimeout as delay } from "node:timers/promises";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

/** The id of the offer (a string: a v2 router wants a string or integer id on its first initialize). */
const OFFER_ID = "acp-terminal-offer";

export type Offer =
  /** The agent answered: `version` is its protocolVersion; `stream` answers the SDK's own initialize with it. */
  | { kind: "answered"; version: unknown; answer: object; stream: Stream }
  /**
   * The agent refused the offer with an error, or ended, or was silent (or `signal` aborted the
   * wait: "timeout"): `stream` is the agent's, untouched since.
   */
  | { kind: "refused" | "closed" | "timeout"; stream: Stream };

/**
 * `--protocol auto`: offers ACP v2 in one `initialize` that carries both versions' fields (a v2
 * agent reads `info`/`capabilities`, a v1 agent `clientInfo`/`clientCapabilities`, each dropping
 * the others' as unknown), and reads the answer. The SDK client of the version the agent picked
 * then runs on the returned stream: its own `initialize` is answered there with the agent's answer
 * (not sent again), everything else passes through. Other messages before the answer are dropped
 * (nothing but the answer may come before it). Waits at most `timeoutMs`.
 */
export async function offerV2(
  stream: Stream,
  params: Record<string, unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Offer> {
  const reader = stream.readable.getReader();
  const writer = stream.writable.getWriter();
  const ac = new AbortController();
  const stop = () => ac.abort();
  signal?.addEventListener("abort", stop, { once: true });
  const deadline = delay(timeoutMs, "timeout" as const, { signal: ac.signal }).catch(
    () => "aborted" as const,
  );
  try {
    await writer.write({ jsonrpc: "2.0", id: OFFER_ID, method: "initialize", params });
  } catch {
    ac.abort();
    return { kind: "closed", stream: rejoin(reader, writer, undefined) };
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  signal?.addEventListener("abort", stop, { once: true });
  try {
    return await readAnswer(reader, writer, deadline, ac);
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}

async function readAnswer(
  reader: ReadableStreamDefaultReader<AnyMessage>,
  writer: WritableStreamDefaultWriter<AnyMessage>,
  deadline: Promise<"timeout" | "aborted">,
  ac: AbortController,
): Promise<Offer> {
  for (;;) {
    const read = reader.read();
    const next = await Promise.race([read, deadline]);
    if (next === "timeout" || next === "aborted") {
      // The read still waits for a message: the stream's next reader gets it.
      return { kind: "timeout", stream: rejoin(reader, writer, undefined, read) };
    }
    if (next.done) {
      ac.abort();
      return { kind: "closed", stream: rejoin(reader, writer, undefined) };
    }
    const message = next.value;
    if ("id" in message && message.id === OFFER_ID && "method" in message) {
      // Our offer, sent back (a program that echoes its input): not an answer. v1 goes on, and
      // learns from what comes back of its own initialize what the program is.
      ac.abort();
      return { kind: "refused", stream: rejoin(reader, writer, undefined) };
    }
    if (
      !("id" in message) ||
      message.id !== OFFER_ID ||
      !("result" in message || "error" in message)
    ) {
      continue;
    }
    ac.abort();
    const result: unknown = "result" in message ? message.result : undefined;
    if (
      ("error" in message && message.error !== undefined) ||
      typeof result !== "object" ||
      result === null
    ) {
      return { kind: "refused", stream: rejoin(reader, writer, undefined) };
    }
    const version = "protocolVersion" in result ? result.protocolVersion : undefined;
    return { kind: "answered", version, answer: result, stream: rejoin(reader, writer, result) };
  }
}

/**
 * The agent's stream again, with the first `initialize` sent answered by `answer` when given;
 * `pending` is a read already started, whose message comes first.
 */
function rejoin(
  reader: ReadableStreamDefaultReader<AnyMessage>,
  writer: WritableStreamDefaultWriter<AnyMessage>,
  answer: unknown,
  pending?: ReturnType<ReadableStreamDefaultReader<AnyMessage>["read"]>,
): Stream {
  let started = pending;
  let toAnswer = answer !== undefined;
  let inject: ((message: AnyMessage) => void) | undefined;
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      inject = (message) => controller.enqueue(message);
    },
    async pull(controller) {
      const next = await (started ?? reader.read());
      started = undefined;
      if (next.done) {
        controller.close();
      } else {
        controller.enqueue(next.value);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if (toAnswer && "method" in message && message.method === "initialize" && "id" in message) {
        toAnswer = false;
        inject?.({ jsonrpc: "2.0", id: message.id, result: answer });
        return;
      }
      return writer.write(message);
    },
    close() {
      return writer.close();
    },
    abort(reason) {
      return writer.abort(reason);
    },
  });
  return { readable, writable };
}
