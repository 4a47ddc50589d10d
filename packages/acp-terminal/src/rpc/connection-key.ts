import { ClientContext } from "@agentclientprotocol/sdk";

/**
 * Which connection a request came from.
 *
 * The SDK hands every client handler a fresh `ClientContext` (`ctx.agent`), but all of them wrap
 * the one `ConnectionContext` of their connection. The SDK reaches it through a symbol it keeps
 * in its published declarations for its own helpers ("SDK helpers use this to identify the
 * connection") without exporting the symbol itself, so we find it on the prototype by its
 * description. `readConnectionContext` fails loudly at bind time if a future SDK drops it,
 * rather than mixing the terminals of two connections.
 */
export interface ConnectionHandle {
  readonly signal: AbortSignal;
}

const CONNECTION_CONTEXT_SYMBOL_DESCRIPTION = "connectionContextOf";

function findAccessor(prototype: object | null): symbol | undefined {
  for (let p = prototype; p !== null && p !== Object.prototype; p = Reflect.getPrototypeOf(p)) {
    const found = Object.getOwnPropertySymbols(p).find(
      (s) => s.description === CONNECTION_CONTEXT_SYMBOL_DESCRIPTION,
    );
    if (found) {
      return found;
    }
  }
  return undefined;
}

const accessor = findAccessor(ClientContext.prototype);

/** Throws when this SDK version gives no way to tell connections apart. */
export function assertConnectionIdentitySupported(): void {
  if (accessor === undefined) {
    throw new Error(
      "acp-terminal cannot tell ACP connections apart with this @agentclientprotocol/sdk version " +
        "(no connection context on ClientContext); use the SDK version acp-terminal was built for (2.4.x).",
    );
  }
}

/** The object that identifies `agent`'s connection, stable for the connection's lifetime. */
export function connectionOf(agent: ClientContext): ConnectionHandle {
  assertConnectionIdentitySupported();
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the SDK's private connection accessor, found by its symbol's description; the SDK does not type it
  const read = (agent as unknown as Record<symbol, unknown>)[accessor!];
  if (typeof read !== "function") {
    throw new Error("ClientContext has no connection context accessor");
  }
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the SDK's private connection accessor, found by its symbol's description; the SDK does not type it
  return (read as () => ConnectionHandle).call(agent);
}
