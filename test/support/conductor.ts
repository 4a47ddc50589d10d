/**
 * A small conductor for proxy chains, written from the Proxy Chains RFD
 * (agentclientprotocol `docs/rfds/proxy-chains.mdx`) and the SDK 2.4.0 `v1/unstable` types
 * (`proxy/initialize`, `proxy/successor`): no conductor is on npm. It starts each component as a
 * process (proxies first, the agent last) and routes JSON-RPC between them and an editor, which
 * is an SDK client on `editorStream`:
 *
 * - the editor's `initialize` goes to the first component as `proxy/initialize` (to a proxy; a
 *   proxy's `proxy/successor` `initialize` reaches the next as `proxy/initialize` when it is a
 *   proxy too, as `initialize` when it is the agent);
 * - a component's `proxy/successor` request or notification is unwrapped and delivered to the
 *   next component; the answer to the unwrapped request answers the envelope unchanged;
 * - what a component sends plainly goes to its predecessor: the editor as it is, or the previous
 *   proxy wrapped in `proxy/successor` (a request keeps the answer's route);
 * - ids are the conductor's own on every hop, mapped back on the answer.
 *
 * Cancellation (`$/cancel_request`) is not routed: the tests do not use it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

type Message = Record<string, unknown> & {
  id?: string | number | null | undefined;
  method?: string | undefined;
};

export interface ComponentSpec {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

interface Route {
  /** Who sent the request: -1 for the editor, else the component's index. */
  from: number;
  id: string | number;
}

export class Conductor {
  readonly children: ChildProcessWithoutNullStreams[];
  /** Every message each component wrote, parsed (index: component). */
  readonly fromComponent: Message[][];
  readonly editorStream: Stream;
  #toEditor!: ReadableStreamDefaultController<AnyMessage>;
  #next = 0;
  readonly #routes = new Map<string, Route>();

  constructor(components: readonly ComponentSpec[]) {
    this.children = components.map((spec) =>
      spawn(spec.command, spec.args, { stdio: ["pipe", "pipe", "pipe"], env: spec.env }),
    );
    this.fromComponent = components.map(() => []);
    this.children.forEach((child, index) => {
      child.stderr.resume();
      child.stdin.on("error", () => undefined);
      createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
        const message = JSON.parse(line) as Message;
        this.fromComponent[index]!.push(message);
        this.#fromComponent(index, message);
      });
    });
    const readable = new ReadableStream<AnyMessage>({ start: (c) => void (this.#toEditor = c) });
    const writable = new WritableStream<AnyMessage>({
      write: (message) => this.#fromEditor(message as Message),
    });
    this.editorStream = { readable, writable };
  }

  get #last(): number {
    return this.children.length - 1;
  }

  #send(to: number, message: Message): void {
    if (to === -1) {
      this.#toEditor.enqueue({ jsonrpc: "2.0", ...message } as AnyMessage);
      return;
    }
    this.children[to]!.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  /** Sends a request to `to` under a new id, remembering where its answer goes. */
  #request(to: number, method: string, params: unknown, route: Route): void {
    const id = `conductor-${this.#next++}`;
    this.#routes.set(`${to}:${id}`, route);
    this.#send(to, { id, method, ...(params === undefined ? {} : { params }) });
  }

  /** A message for component `to` from its predecessor (the editor, or the proxy before it). */
  #deliverForward(to: number, message: Message, from: number): void {
    const method =
      message.method === "initialize" && to !== this.#last ? "proxy/initialize" : message.method!;
    if (message.id !== undefined && message.id !== null) {
      this.#request(to, method, message["params"], { from, id: message.id });
    } else {
      this.#send(to, { method, params: message["params"] });
    }
  }

  /** A message from component `from` for its predecessor. */
  #deliverBackward(from: number, message: Message): void {
    const to = from - 1;
    const isRequest = message.id !== undefined && message.id !== null;
    if (to === -1) {
      if (isRequest) {
        this.#request(-1, message.method!, message["params"], { from, id: message.id! });
      } else {
        this.#send(-1, { method: message.method, params: message["params"] });
      }
      return;
    }
    const params = { method: message.method, params: message["params"] };
    if (isRequest) {
      this.#request(to, "proxy/successor", params, { from, id: message.id! });
    } else {
      this.#send(to, { method: "proxy/successor", params });
    }
  }

  /** An answer from `at` (editor -1) to a request the conductor sent it. */
  #answer(at: number, message: Message): void {
    const key = `${at}:${String(message.id)}`;
    const route = this.#routes.get(key);
    if (route === undefined) {
      return;
    }
    this.#routes.delete(key);
    const { jsonrpc: _jsonrpc, id: _id, ...rest } = message;
    this.#send(route.from, { id: route.id, ...rest });
  }

  #fromEditor(message: Message): void {
    if (message.method === undefined) {
      this.#answer(-1, message);
    } else {
      this.#deliverForward(0, message, -1);
    }
  }

  #fromComponent(index: number, message: Message): void {
    if (message.method === undefined) {
      this.#answer(index, message);
    } else if (message.method === "proxy/successor" && index !== this.#last) {
      const inner = message["params"] as Message;
      this.#deliverForward(index + 1, { ...inner, id: message.id }, index);
    } else {
      this.#deliverBackward(index, message);
    }
  }

  /** Closes every component's stdin (the editor left) and waits for them to exit. */
  async close(): Promise<Array<number | null>> {
    this.#toEditor.close();
    const exits = this.children.map((child) =>
      child.exitCode !== null ? Promise.resolve([child.exitCode]) : once(child, "exit"),
    );
    for (const child of this.children) {
      child.stdin.end();
    }
    return (await Promise.all(exits)).map(([code]) => code as number | null);
  }
}
