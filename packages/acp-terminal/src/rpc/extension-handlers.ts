import type { ClientApp } from "@agentclientprotocol/sdk";
import type { z } from "zod";
import type { TerminalOwner } from "../core/types.js";
import {
  EXTENSION_METHOD_NAMES,
  EXTENSION_METHODS,
  EXTENSION_PARAMS,
  type ExtensionMethodName,
  type ExtensionParams,
  type ExtensionResult,
  type WriteParams,
} from "../protocol/extension.js";
import { paramsParser } from "./errors.js";
import type { TerminalHostPort } from "./host-port.js";
import { answer, type ScopeOf } from "./request-scope.js";

function payloadOf(params: WriteParams): string | Uint8Array {
  if (params.dataBase64 !== undefined) {
    return new Uint8Array(Buffer.from(params.dataBase64, "base64"));
  }
  return params.data ?? "";
}

/** What serving one extension method does with its validated params, for the caller's owner. */
type ExtensionHandler<M extends ExtensionMethodName> = (
  host: TerminalHostPort,
  owner: TerminalOwner,
  params: ExtensionParams<M>,
) => Promise<void> | void;

/** One handler per method of the vocabulary: a method without one does not compile. */
const HANDLERS: { [M in ExtensionMethodName]: ExtensionHandler<M> } = {
  write: (host, owner, params) =>
    host.write(owner, params.terminalId, payloadOf(params), { eof: params.eof === true }),
  resize: (host, owner, params) => host.resize(owner, params.terminalId, params.cols, params.rows),
  signal: (host, owner, params) => host.signal(owner, params.terminalId, params.signal),
};

/** EXTENSION_PARAMS seen per method, so a generic method name keeps its params type. */
const PARAMS: { [M in ExtensionMethodName]: z.ZodType<ExtensionParams<M>> } = EXTENSION_PARAMS;

function register<M extends ExtensionMethodName>(
  app: ClientApp,
  host: TerminalHostPort,
  scopeOf: ScopeOf,
  name: M,
): void {
  const method = EXTENSION_METHODS[name];
  const schema = PARAMS[name];
  const handle: ExtensionHandler<M> = HANDLERS[name];
  app.onRequest<ExtensionParams<M>, ExtensionResult>(
    method,
    paramsParser<ExtensionParams<M>>(method, schema),
    ({ params, agent, signal }) =>
      answer(method, signal, async (): Promise<ExtensionResult> => {
        await handle(host, scopeOf(agent).owner(params.sessionId), params);
        return {};
      }),
  );
}

/** Registers every extension method: `_acp-terminal/write`, `_acp-terminal/resize` and `_acp-terminal/signal`. */
export function registerExtensionHandlers(
  app: ClientApp,
  host: TerminalHostPort,
  scopeOf: ScopeOf,
): void {
  for (const name of EXTENSION_METHOD_NAMES) {
    register(app, host, scopeOf, name);
  }
}
