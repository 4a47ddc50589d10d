import { methods, type ClientApp, type TerminalOutputResponse } from "@agentclientprotocol/sdk";
import type { ExitStatus, TerminalOutputSnapshot } from "../host/types.js";
import { ACP_TERMINAL_META_KEY } from "./capabilities.js";
import { killMetaOf, toCreateTerminalParams } from "./create-params.js";
import { fitOutputToBudget } from "./fit-output.js";
import type { TerminalHostPort } from "./host-port.js";
import { outputMetaOf, sinceByteError } from "./output-params.js";
import { answer, untilAborted, type ScopeOf } from "./request-scope.js";

export interface CoreHandlerDeps {
  host: TerminalHostPort;
  scopeOf: ScopeOf;
  sessionCwd: (sessionId: string, connectionId: string) => string | undefined;
  /** Bytes the JSON-escaped output string may take in a `terminal/output` response. */
  outputBudgetBytes: number;
}

/**
 * `{output, truncated, exitStatus?, _meta: {"acp-terminal": {totalBytes, droppedBytes}}}`.
 * When the output had to be trimmed to fit the message, `droppedBytes` grows by the UTF-8 size of
 * the removed text; that equals the raw bytes removed unless they held invalid UTF-8 (each
 * invalid byte decoded to a 3-byte U+FFFD), which only matters for escape floods past the limit.
 * Read with `sinceByte` (the snapshot has `fromByte`): `fromByte` grows by the trimmed size instead,
 * and `droppedBytes` stays where the terminal's retained output starts.
 */
export function toOutputResponse(snapshot: TerminalOutputSnapshot, outputBudgetBytes: number): TerminalOutputResponse {
  const fitted = fitOutputToBudget(snapshot.output, outputBudgetBytes);
  const cursors =
    snapshot.fromByte === undefined
      ? { totalBytes: snapshot.totalBytes, droppedBytes: snapshot.droppedBytes + fitted.trimmedBytes }
      : { totalBytes: snapshot.totalBytes, droppedBytes: snapshot.droppedBytes, fromByte: snapshot.fromByte + fitted.trimmedBytes };
  const response: TerminalOutputResponse = {
    output: fitted.output,
    truncated: snapshot.truncated || fitted.trimmedBytes > 0,
    _meta: { [ACP_TERMINAL_META_KEY]: cursors },
  };
  if (snapshot.exitStatus) response.exitStatus = toWireExitStatus(snapshot.exitStatus);
  return response;
}

function toWireExitStatus(status: ExitStatus): { exitCode: number | null; signal: string | null } {
  return { exitCode: status.exitCode, signal: status.signal };
}

/** Registers the five ACP v1 terminal methods. The SDK has validated their shape already. */
export function registerCoreHandlers(app: ClientApp, deps: CoreHandlerDeps): void {
  const { host, scopeOf } = deps;

  app.onRequest(methods.client.terminal.create, ({ params, agent, signal }) =>
    answer(signal, async () => {
      const scope = scopeOf(agent);
      const owner = scope.owner(params.sessionId);
      const createParams = toCreateTerminalParams(params);
      const sessionCwd = deps.sessionCwd(params.sessionId, owner.connectionId);
      const terminalId = await host.create(owner, createParams, sessionCwd === undefined ? {} : { sessionCwd });
      // The connection may have closed while the command was starting: its terminals were
      // released already, so this one must not outlive it.
      if (scope.connectionSignal.aborted) await host.release(owner, terminalId);
      return { terminalId };
    }),
  );

  app.onRequest(methods.client.terminal.output, ({ params, agent, signal }) =>
    answer(signal, () => {
      const owner = scopeOf(agent).owner(params.sessionId);
      const { sinceByte } = outputMetaOf(params._meta);
      try {
        const snapshot = host.output(owner, params.terminalId, sinceByte === undefined ? undefined : { sinceByte });
        return toOutputResponse(snapshot, deps.outputBudgetBytes);
      } catch (error) {
        throw sinceByteError(error);
      }
    }),
  );

  app.onRequest(methods.client.terminal.waitForExit, ({ params, agent, signal }) =>
    answer(signal, async () => {
      const owner = scopeOf(agent).owner(params.sessionId);
      return toWireExitStatus(await untilAborted(host.waitForExit(owner, params.terminalId), signal));
    }),
  );

  app.onRequest(methods.client.terminal.kill, ({ params, agent, signal }) =>
    answer(signal, async () => {
      const owner = scopeOf(agent).owner(params.sessionId);
      const { signal: killSignal } = killMetaOf(params._meta);
      await host.kill(owner, params.terminalId, killSignal);
      return {};
    }),
  );

  app.onRequest(methods.client.terminal.release, ({ params, agent, signal }) =>
    answer(signal, async () => {
      const owner = scopeOf(agent).owner(params.sessionId);
      await host.release(owner, params.terminalId);
      return {};
    }),
  );
}
