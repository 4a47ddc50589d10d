import type { ClientContext } from "@agentclientprotocol/sdk";
import type { TerminalOwner } from "../host/types.js";
import { toRequestError } from "./errors.js";

/** What a handler needs to know about the connection a request came from. */
export interface RequestScope {
  owner(sessionId: string): TerminalOwner;
  /** Aborted once the connection has closed (its terminals are being released). */
  readonly connectionSignal: AbortSignal;
}

export type ScopeOf = (agent: ClientContext) => RequestScope;

/**
 * Runs the body of a `method` handler and turns whatever it throws into the JSON-RPC error the
 * agent should see. A cancelled request (`$/cancel_request`) keeps its AbortError so the SDK
 * answers -32800.
 */
export async function answer<T>(
  method: string,
  signal: AbortSignal,
  body: () => Promise<T> | T,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (signal.aborted && error instanceof Error && error.name === "AbortError") {
      throw error;
    }
    throw toRequestError(error, method);
  }
}

/** Settles with `promise`, or rejects with an AbortError when `signal` aborts first. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error && signal.reason.name === "AbortError"
    ? signal.reason
    : new DOMException("The request was cancelled", "AbortError");
}
