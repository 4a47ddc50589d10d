import type { ClientApp } from "@agentclientprotocol/sdk";
import { RESIZE_METHOD, SIGNAL_METHOD, WRITE_METHOD } from "./capabilities.js";
import { paramsParser } from "./errors.js";
import type { TerminalHostPort } from "./host-port.js";
import { answer, type ScopeOf } from "./request-scope.js";
import {
  resizeParamsSchema,
  signalParamsSchema,
  writeParamsSchema,
  type ExtensionResult,
  type WriteParams,
} from "./schemas.js";

function payloadOf(params: WriteParams): string | Uint8Array {
  if (params.dataBase64 !== undefined) return new Uint8Array(Buffer.from(params.dataBase64, "base64"));
  return params.data ?? "";
}

/** Registers `_acp-terminal/write`, `_acp-terminal/resize` and `_acp-terminal/signal`. */
export function registerExtensionHandlers(app: ClientApp, host: TerminalHostPort, scopeOf: ScopeOf): void {
  app.onRequest<WriteParams, ExtensionResult>(
    WRITE_METHOD,
    paramsParser(WRITE_METHOD, writeParamsSchema),
    ({ params, agent, signal }) =>
      answer(WRITE_METHOD, signal, async () => {
        const owner = scopeOf(agent).owner(params.sessionId);
        await host.write(owner, params.terminalId, payloadOf(params), { eof: params.eof === true });
        return {};
      }),
  );

  app.onRequest(RESIZE_METHOD, paramsParser(RESIZE_METHOD, resizeParamsSchema), ({ params, agent, signal }) =>
    answer(RESIZE_METHOD, signal, (): ExtensionResult => {
      host.resize(scopeOf(agent).owner(params.sessionId), params.terminalId, params.cols, params.rows);
      return {};
    }),
  );

  app.onRequest(SIGNAL_METHOD, paramsParser(SIGNAL_METHOD, signalParamsSchema), ({ params, agent, signal }) =>
    answer(SIGNAL_METHOD, signal, async (): Promise<ExtensionResult> => {
      await host.signal(scopeOf(agent).owner(params.sessionId), params.terminalId, params.signal);
      return {};
    }),
  );
}
