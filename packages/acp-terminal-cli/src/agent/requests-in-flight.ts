/**
 * Requests from the agent not answered yet, at most MAX_REQUESTS_IN_FLIGHT; past it a request is
 * answered at once with REQUESTS_IN_FLIGHT_ERROR instead of being handled. Each is held by the
 * SDK until its answer is written (100,000 `terminal/output` sent at once took the CLI to 575 MB),
 * and an agent needs a few per terminal at most (`--max-terminals` is 64 a session by default).
 */
export const MAX_REQUESTS_IN_FLIGHT = 1024;

/** JSON-RPC's implementation-defined server error: the request was not handled, send it again later. */
export const REQUESTS_IN_FLIGHT_ERROR = -32000;

type Id = string | number;

function requestOf(message: unknown): { id: Id; method: string } | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return undefined;
  }
  const { id, method } = message as { id?: unknown; method?: unknown };
  return typeof method === "string" && (typeof id === "string" || typeof id === "number")
    ? { id, method }
    : undefined;
}

function answeredIdOf(message: unknown): Id | undefined {
  if (typeof message !== "object" || message === null || "method" in message) {
    return undefined;
  }
  const { id } = message as { id?: unknown };
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/** The agent's requests being handled, by id (an agent may reuse one: counted). */
export class RequestsInFlight {
  readonly #open = new Map<Id, number>();
  #count = 0;

  constructor(private readonly limit = MAX_REQUESTS_IN_FLIGHT) {}

  get count(): number {
    return this.#count;
  }

  /**
   * A message from the agent: a request is counted and undefined returned, or, past the limit,
   * the answer to send it instead of handling it. Other messages: undefined.
   */
  received(message: unknown): object | undefined {
    const request = requestOf(message);
    if (request === undefined) {
      return undefined;
    }
    const { id, method } = request;
    if (this.#count >= this.limit) {
      return {
        jsonrpc: "2.0",
        id,
        error: {
          code: REQUESTS_IN_FLIGHT_ERROR,
          message: `Too many requests in flight: ${this.limit} of this agent's requests are not answered yet; wait for answers before sending more (not handled: ${method})`,
          data: { limit: this.limit },
        },
      };
    }
    this.#open.set(id, (this.#open.get(id) ?? 0) + 1);
    this.#count++;
    return undefined;
  }

  /** A message to the agent: an answer to a counted request ends it. */
  sent(message: unknown): void {
    const id = answeredIdOf(message);
    const open = id === undefined ? undefined : this.#open.get(id);
    if (open === undefined) {
      return;
    }
    if (open === 1) {
      this.#open.delete(id!);
    } else {
      this.#open.set(id!, open - 1);
    }
    this.#count--;
  }
}
