import {
  methods,
  type ClientApp,
  type CreateTerminalResponse,
  type KillTerminalResponse,
  type ReleaseTerminalResponse,
  type TerminalOutputResponse,
  type WaitForTerminalExitResponse,
} from "@agentclientprotocol/sdk";
import type { ExitStatus, TerminalOutputSnapshot } from "../host/types.js";
import { ACP_TERMINAL_META_KEY, MAX_NOTICE_CHARS } from "../protocol/extension.js";
import { cutText } from "./bounded-error.js";
import { createTerminalRequestSchema, terminalIdRequestSchema } from "./core-schemas.js";
import { toCreateTerminalParams } from "./create-params.js";
import { paramsParser } from "./errors.js";
import { fitOutputToBudget } from "./fit-output.js";
import type { TerminalHostPort } from "./host-port.js";
import { killMetaOf, outputMetaOf } from "./meta-params.js";
import { answer, untilAborted, type ScopeOf } from "./request-scope.js";

export interface CoreHandlerDeps {
  host: TerminalHostPort;
  scopeOf: ScopeOf;
  sessionCwd: (sessionId: string, connectionId: string) => string | undefined;
  /** Bytes the JSON-escaped output string may take in a `terminal/output` response. */
  outputBudgetBytes: number;
}

/**
 * `{output, truncated, exitStatus?, _meta: {"acp-terminal": {totalBytes, droppedBytes, notices?}}}`
 * (`notices`: the host's remarks about the command, each cut to MAX_NOTICE_CHARS, never in `output`).
 * When the output had to be trimmed to fit the message, `droppedBytes` grows by the UTF-8 size of
 * the removed text; that equals the raw bytes removed unless they held invalid UTF-8 (each
 * invalid byte decoded to a 3-byte U+FFFD), which only matters for escape floods past the limit.
 * Read with `sinceByte` (the snapshot has `fromByte`): `fromByte` grows by the trimmed size instead,
 * and `droppedBytes` stays where the terminal's retained output starts.
 */
function toOutputResponse(
  snapshot: TerminalOutputSnapshot,
  outputBudgetBytes: number,
): TerminalOutputResponse {
  const fitted = fitOutputToBudget(snapshot.output, outputBudgetBytes);
  const cursors =
    snapshot.fromByte === undefined
      ? {
          totalBytes: snapshot.totalBytes,
          droppedBytes: snapshot.droppedBytes + fitted.trimmedBytes,
        }
      : {
          totalBytes: snapshot.totalBytes,
          droppedBytes: snapshot.droppedBytes,
          fromByte: snapshot.fromByte + fitted.trimmedBytes,
        };
  const response: TerminalOutputResponse = {
    output: fitted.output,
    truncated: snapshot.truncated || fitted.trimmedBytes > 0,
    _meta: {
      [ACP_TERMINAL_META_KEY]: {
        ...cursors,
        ...(snapshot.notices
          ? { notices: snapshot.notices.map((text) => cutText(text, MAX_NOTICE_CHARS)) }
          : {}),
      },
    },
  };
  if (snapshot.exitStatus) {
    response.exitStatus = toWireExitStatus(snapshot.exitStatus);
  }
  return response;
}

function toWireExitStatus(status: ExitStatus): { exitCode: number | null; signal: string | null } {
  return { exitCode: status.exitCode, signal: status.signal };
}

const CREATE = methods.client.terminal.create;
const OUTPUT = methods.client.terminal.output;
const WAIT_FOR_EXIT = methods.client.terminal.waitForExit;
const KILL = methods.client.terminal.kill;
const RELEASE = methods.client.terminal.release;

/**
 * Registers the five ACP v1 terminal methods, each with our own params parser (core-schemas.ts),
 * so a bad param is a -32602 whose message names the field and the method.
 */
export function registerCoreHandlers(app: ClientApp, deps: CoreHandlerDeps): void {
  const { host, scopeOf } = deps;
  const idParams = (method: string) => paramsParser(method, terminalIdRequestSchema);

  app.onRequest(
    CREATE,
    paramsParser(CREATE, createTerminalRequestSchema),
    ({ params, agent, signal }) =>
      answer(CREATE, signal, async (): Promise<CreateTerminalResponse> => {
        const scope = scopeOf(agent);
        const owner = scope.owner(params.sessionId);
        const createParams = toCreateTerminalParams(params);
        const sessionCwd = deps.sessionCwd(params.sessionId, owner.connectionId);
        const terminalId = await host.create(
          owner,
          createParams,
          sessionCwd === undefined ? {} : { sessionCwd },
        );
        // The connection may have closed while the command was starting: its terminals were
        // released already, so this one must not outlive it.
        if (scope.connectionSignal.aborted) {
          await host.release(owner, terminalId);
        }
        // Or the agent refused to load its session meanwhile: that session's terminals were released.
        try {
          scope.owner(params.sessionId);
        } catch (error) {
          await host.release(owner, terminalId);
          throw error;
        }
        return { terminalId };
      }),
  );

  app.onRequest(OUTPUT, idParams(OUTPUT), ({ params, agent, signal }) =>
    answer(OUTPUT, signal, (): TerminalOutputResponse => {
      const owner = scopeOf(agent).owner(params.sessionId);
      const { sinceByte } = outputMetaOf(params._meta);
      const snapshot = host.output(
        owner,
        params.terminalId,
        sinceByte === undefined ? undefined : { sinceByte },
      );
      return toOutputResponse(snapshot, deps.outputBudgetBytes);
    }),
  );

  app.onRequest(WAIT_FOR_EXIT, idParams(WAIT_FOR_EXIT), ({ params, agent, signal }) =>
    answer(WAIT_FOR_EXIT, signal, async (): Promise<WaitForTerminalExitResponse> => {
      const owner = scopeOf(agent).owner(params.sessionId);
      return toWireExitStatus(
        await untilAborted(host.waitForExit(owner, params.terminalId), signal),
      );
    }),
  );

  app.onRequest(KILL, idParams(KILL), ({ params, agent, signal }) =>
    answer(KILL, signal, async (): Promise<KillTerminalResponse> => {
      const owner = scopeOf(agent).owner(params.sessionId);
      const { signal: killSignal } = killMetaOf(params._meta);
      await host.kill(owner, params.terminalId, killSignal);
      return {};
    }),
  );

  app.onRequest(RELEASE, idParams(RELEASE), ({ params, agent, signal }) =>
    answer(RELEASE, signal, async (): Promise<ReleaseTerminalResponse> => {
      const owner = scopeOf(agent).owner(params.sessionId);
      await host.release(owner, params.terminalId);
      return {};
    }),
  );
}
