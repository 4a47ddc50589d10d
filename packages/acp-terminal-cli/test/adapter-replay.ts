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
 *
 * An agent that calls `terminal/create` (test/fixtures/terminal-agents) gets the client under
 * test's terminal ids in place of the recorded ones, in every message after the create's answer.
 * Where the recorded client's answer (to `terminal/output` or `wait_for_exit`) told the agent that
 * the command had exited and the answer under test does not, the replay waits for that command's
 * exit before it goes on (with a `terminal/wait_for_exit` of its own, whose answer is not
 * counted): what the agent did next (droid kills commands that have exited) must reach the same
 * command, not a running one.
 */
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { RunOptions } from "../src/command/args.js";
import { Conversation } from "../src/conversation/conversation.js";
import type { ConversationInit } from "../src/conversation/conversation-init.js";
import type { PromptSource } from "../src/conversation/prompts.js";
import type { PickedDriver } from "../src/drivers/pick-driver.js";

/** The whole client over a replayed agent's stream, as `acp-terminal run` holds it. */
export function conversationOver(
  options: RunOptions,
  picked: PickedDriver,
  view: ConversationInit["view"],
  prompts: PromptSource,
): Conversation {
  return new Conversation({
    options,
    io: { stdin: new PassThrough(), stderr: new PassThrough(), version: "0.0.0-test" },
    view,
    driver: picked.driver,
    stream: picked.stream,
    signal: new AbortController().signal,
    prompts,
  });
}

const DIR = new URL("../../../test/fixtures/adapters/", import.meta.url);
/** The recordings of the agents that call `terminal/create`. */
export const TERMINAL_AGENTS_DIR = new URL(
  "../../../test/fixtures/terminal-agents/",
  import.meta.url,
);

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

export function recording(name: string, dir: URL = DIR): Entry[] {
  return readFileSync(new URL(`${name}.jsonl`, dir), "utf8")
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

/** A recording of several agent processes (a restart) split at each process's exit. */
export function processesOf(entries: readonly Entry[]): Entry[][] {
  const processes: Entry[][] = [[]];
  for (const entry of entries) {
    processes.at(-1)!.push(entry);
    if (entry.exit !== undefined) {
      processes.push([]);
    }
  }
  return processes.filter((entries) => entries.length > 0);
}

type Message = NonNullable<Entry["msg"]>;

const SYNC_ID = "replay-exit-sync-";

/** A string field of an object, if it is one. */
function fieldOf(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined;
}

/** Whether an answer to `terminal/output` or `wait_for_exit` says the command has exited. */
function saysExited(method: string | undefined, result: unknown): boolean {
  if (method === "terminal/wait_for_exit") {
    return typeof result === "object" && result !== null;
  }
  return method === "terminal/output" && fieldOf(result, "exitStatus") != null;
}

/** `message` with every recorded terminal id replaced by the client under test's. */
function withTerminalIds(message: Message, ids: ReadonlyMap<string, string>): Message {
  if (ids.size === 0) {
    return message;
  }
  let text = JSON.stringify(message);
  for (const [recorded, actual] of ids) {
    text = text.split(recorded).join(actual);
  }
  return JSON.parse(text) as Message;
}

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

  /** Recorded terminal ids, and the ids the client under test gave those terminals. */
  const terminalIds = new Map<string, string>();
  /** The replay's own waits for an exit, by request id. */
  const syncs = new Map<string, () => void>();
  /** The recorded agent's requests by id, for what their answers mean. */
  const agentRequests = new Map(
    entries.flatMap((entry) =>
      entry.from === "agent" && entry.msg !== undefined && isRequest(entry.msg)
        ? [[String(entry.msg.id), entry.msg] as const]
        : [],
    ),
  );

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
        for (const sync of syncs.values()) {
          sync(); // nothing will answer: the replay goes on, to its end
        }
        return;
      }
      const message = next.value as Message;
      const sync = typeof message.id === "string" ? syncs.get(message.id) : undefined;
      if (sync !== undefined && message.method === undefined) {
        syncs.delete(message.id as string);
        sync();
        continue;
      }
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
      if (isAnswer(recorded) && isAnswer(message)) {
        await followTerminals(recorded, message);
      }
      return matched.index;
    }
  };

  /** Learns the client under test's terminal ids, and waits for an exit the recorded agent knew of. */
  const followTerminals = async (recorded: Message, answer: Message) => {
    const recordedId = fieldOf(recorded.result, "terminalId");
    const actualId = fieldOf(answer.result, "terminalId");
    if (typeof recordedId === "string" && typeof actualId === "string") {
      terminalIds.set(recordedId, actualId);
    }
    const request = agentRequests.get(String(recorded.id));
    if (
      request === undefined ||
      !saysExited(request.method, recorded.result) ||
      saysExited(request.method, answer.result)
    ) {
      return;
    }
    const id = `${SYNC_ID}${syncs.size}-${String(recorded.id)}`;
    const exited = new Promise<void>((resolve) => syncs.set(id, resolve));
    await send({
      jsonrpc: "2.0",
      id,
      method: "terminal/wait_for_exit",
      params: withTerminalIds(request, terminalIds).params,
    } as AnyMessage);
    await exited;
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
        await send(withTerminalIds(message, terminalIds) as AnyMessage);
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
