import type { RpcId } from "./wire-message.js";

/** Requests one side may have waiting for the other's answer through the proxy. */
export const MAX_PENDING_REQUESTS = 4096;

/** A request passed on and not answered yet. */
export interface PendingRequest {
  id: string | number;
  method: string;
  /** What the proxy learns from the answer (set for the methods whose answers it reads). */
  params?: Record<string, unknown> | undefined;
}

/** An id as a map key: the string "1" and the number 1 are different ids. */
export function idKey(id: RpcId): string {
  return typeof id === "string" ? `s${id}` : `n${String(id)}`;
}

/**
 * The requests one side sent through the proxy that the other has not answered, by id: when the
 * other side goes away each gets an error, and an answer is read for what the proxy learns from it
 * (a new session's id). At most MAX_PENDING_REQUESTS: `add` refuses more.
 */
export class PendingRequests {
  readonly #requests = new Map<string, PendingRequest>();

  get size(): number {
    return this.#requests.size;
  }

  /** Records a request; false when MAX_PENDING_REQUESTS are already waiting. */
  add(request: PendingRequest): boolean {
    const key = idKey(request.id);
    if (this.#requests.size >= MAX_PENDING_REQUESTS && !this.#requests.has(key)) {
      return false;
    }
    this.#requests.set(key, request);
    return true;
  }

  has(id: RpcId): boolean {
    return this.#requests.has(idKey(id));
  }

  /** The request this answer answers, forgotten; undefined for an id not waiting. */
  take(id: RpcId): PendingRequest | undefined {
    const key = idKey(id);
    const request = this.#requests.get(key);
    this.#requests.delete(key);
    return request;
  }

  /** Every request still waiting, forgotten. */
  drain(): PendingRequest[] {
    const all = [...this.#requests.values()];
    this.#requests.clear();
    return all;
  }
}
