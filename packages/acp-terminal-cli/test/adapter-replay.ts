/**
 * A recorded adapter session (test/fixtures/adapters/*.jsonl) played back as the agent, in memory:
 * what the adapter sent goes to the client under test in the recorded order, and each message the
 * recorded client sent is a gate: the adapter's next messages wait until the client under test
 * sends its counterpart (same method; an answer to the same request of the adapter's). Request
 * ids are mapped, so answers carry the ids of the client under test.
 *
 * The client under test may speak a little differently from the recorder: a recorded request it
 * never sends is skipped once it sends one that comes later (say, no `terminal/cancel` for a
 * terminal that offers no cancel), with the answer to it dropped; a request the recording does
 * not hold is answered with an error naming it (and listed in `unexpected`). Timing is not
 * replayed: between gates, messages go out back to back.
 */
import { readFileSync } from "node:fs";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

const DIR = new URL("../../../test/fixtures/adapters/", import.meta.url);

export interface Entry {
  t: number;
  from?: "client" | "agent";
  msg?: AnyMessage & {
    id?: string | number | null;
    method?: string;
    params?: unknown;
    result?: unknown;
    error?: unknown;
  };
  eof?: boolean;
  exit?: unknown;
}

export function recording(name: string): Entry[] {
  return readFileSync(new URL(`${name}.jsonl`, DIR), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Entry);
}

export interface Replay {
  /** The client's side of the connection. */
  stream: Stream;
  /** Every message the client under test sent, in order. */
  readonly received: AnyMessage[];
  /** Requests of the client under test that the recording does not hold (answered with an error). */
  readonly unexpected: string[];
  /** Resolves once the replay waits at the gate of the recorded client message `method` (or an answer). */
  waitingFor(what: string): Promise<void>;
  /** Resolves when everything was played (the client closed, or `stopAfter` held the rest back). */
  readonly done: Promise<void>;
}

export interface ReplayOptions {
  /** After sending the first agent entry this matches, send nothing more (the rest never happened). */
  stopAfter?: (entry: Entry) => boolean;
}

type Message = NonNullable<Entry["msg"]>;

const isRequest = (m: Message) => m.method !== undefined && m.id !== undefined && m.id !== null;
const isAnswer = (m: Message) => m.method === undefined;
/** What a gate waits for: a method, or the answer to an agent request of the recorded id. */
const gateOf = (m: Message) => (isAnswer(m) ? `answer:${String(m.id)}` : m.method!);

export function replay(entries: readonly Entry[], options: ReplayOptions = {}): Replay {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  const writer = toClient.writable.getWriter();
  const received: AnyMessage[] = [];
  const unexpected: string[] = [];
  /** The recorded client's request ids, as the client under test numbered them. */
  const ids = new Map<string, string | number>();
  /** Recorded client requests skipped: their answers are not sent. */
  const skipped = new Set<string>();
  const inbox: Message[] = [];
  let clientClosed = false;
  let wake: (() => void) | undefined;
  let gate = "";
  const gateWaiters: Array<{ what: string; resolve: () => void }> = [];

  const clientGates = entries.flatMap((entry, index) =>
    entry.from === "client" && entry.msg !== undefined ? [{ index, gate: gateOf(entry.msg) }] : [],
  );

  void (async () => {
    const reader = toAgent.readable.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        clientClosed = true;
        wake?.();
        return;
      }
      const message = next.value as Message;
      received.push(message);
      inbox.push(message);
      wake?.();
    }
  })();

  const nextFromClient = async (): Promise<Message | undefined> => {
    for (;;) {
      const message = inbox.shift();
      if (message !== undefined) {
        return message;
      }
      if (clientClosed) {
        return undefined;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  };

  const send = async (message: Message) => {
    if (clientClosed) {
      return;
    }
    await writer.write(message).catch(() => undefined);
  };

  /** Answers a request of the client under test that no gate takes. */
  const refuse = async (message: Message) => {
    unexpected.push(message.method ?? "?");
    if (isRequest(message)) {
      await send({
        jsonrpc: "2.0",
        id: message.id!,
        error: { code: -32601, message: `not in the recording: ${message.method}` },
      } as AnyMessage);
    }
  };

  /**
   * Waits for the counterpart of the client entry at `index`; returns the index of the client
   * entry it matched (a later one when the ones between were skipped), or -1 when the client closed.
   */
  const passGate = async (index: number): Promise<number> => {
    const position = clientGates.findIndex((g) => g.index === index);
    gate = clientGates[position]!.gate;
    for (const waiter of gateWaiters.filter((w) => w.what === gate)) {
      waiter.resolve();
    }
    for (;;) {
      const message = await nextFromClient();
      if (message === undefined) {
        return -1;
      }
      const matched = clientGates
        .slice(position)
        .find(
          (g) => g.gate === gateOf(message) || (isAnswer(message) && g.gate === gateOf(message)),
        );
      if (matched === undefined) {
        await refuse(message);
        continue;
      }
      for (const between of clientGates.slice(position)) {
        if (between.index === matched.index) {
          break;
        }
        const recorded = entries[between.index]!.msg!;
        if (isRequest(recorded)) {
          skipped.add(String(recorded.id));
        }
      }
      const recorded = entries[matched.index]!.msg!;
      if (isRequest(recorded) && isRequest(message)) {
        ids.set(String(recorded.id), message.id!);
      }
      return matched.index;
    }
  };

  const done = (async () => {
    let skipUntil = -1;
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!;
      if (entry.from === "client" && entry.msg !== undefined) {
        if (index <= skipUntil) {
          continue;
        }
        const matched = await passGate(index);
        if (matched === -1) {
          return;
        }
        skipUntil = matched;
        continue;
      }
      if (entry.from === "client" && entry.eof === true) {
        gate = "eof";
        for (;;) {
          const message = await nextFromClient();
          if (message === undefined) {
            break;
          }
          await refuse(message);
        }
        continue;
      }
      if (entry.exit !== undefined) {
        await writer.close().catch(() => undefined);
        return;
      }
      const message = entry.msg;
      if (entry.from !== "agent" || message === undefined) {
        continue;
      }
      if (isAnswer(message)) {
        const key = String(message.id);
        if (skipped.has(key)) {
          continue;
        }
        await send({ ...message, id: ids.get(key) ?? message.id } as AnyMessage);
      } else {
        await send(message as AnyMessage);
      }
      if (options.stopAfter?.(entry) === true) {
        gate = "stopped";
        // Whatever the client sends from now on goes unanswered, as from an agent that hangs.
        return;
      }
    }
  })();

  return {
    stream: { writable: toAgent.writable, readable: toClient.readable },
    received,
    unexpected,
    done,
    waitingFor(what) {
      if (gate === what) {
        return Promise.resolve();
      }
      return new Promise((resolve) => gateWaiters.push({ what, resolve }));
    },
  };
}
