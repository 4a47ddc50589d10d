import {
  ACP_TERMINAL_META_KEY,
  EXTENSION_METHODS,
  outputCursorsSchema,
  signalNameSchema,
  type CreateTerminalMeta,
  type ExtensionMethodName,
  type ExtensionParamsInput,
} from "acp-terminal/protocol";
import { z } from "zod";
import { detectClientTerminalSupport } from "./acp-capabilities.js";
import type {
  ProviderCapabilities,
  ProviderCreateParams,
  ProviderExitStatus,
  ProviderOutput,
  ProviderOutputOptions,
  TerminalProvider,
} from "./types.js";

/**
 * The part of the SDK's `AgentContext` this provider needs: one generic request method.
 * (`AgentContext.request(method, params)` fits.)
 */
export interface AcpRequester {
  request<Response = unknown, Params = unknown>(method: string, params?: Params): Promise<Response>;
}

export interface AcpProviderOptions {
  /** The session whose terminals this provider creates. */
  sessionId: string;
  /** `clientCapabilities` from `initialize`; decides which extensions are used. */
  clientCapabilities?: unknown;
}

/**
 * A client's terminals over ACP, for one session. Uses only the five core calls unless the
 * client advertised our extension; cursors are also taken from any `terminal/output` `_meta`
 * that carries them, advertised or not.
 */
export class AcpTerminalProvider implements TerminalProvider {
  readonly kind = "acp";
  readonly capabilities: ProviderCapabilities;
  private readonly sessionId: string;

  constructor(
    private readonly connection: AcpRequester,
    options: AcpProviderOptions,
  ) {
    this.sessionId = options.sessionId;
    this.capabilities = detectClientTerminalSupport(options.clientCapabilities).capabilities;
  }

  async create(params: ProviderCreateParams): Promise<string> {
    const ext: CreateTerminalMeta = {};
    if (params.pty && this.capabilities.pty) {
      ext.pty = params.pty;
    }
    if (params.stdin && this.capabilities.write) {
      ext.stdin = true;
    }
    const response = await this.connection.request<{ terminalId: string }>("terminal/create", {
      sessionId: this.sessionId,
      command: params.command,
      ...(params.args ? { args: params.args } : {}),
      env: params.env ? Object.entries(params.env).map(([name, value]) => ({ name, value })) : [],
      cwd: params.cwd ?? null,
      ...(params.outputByteLimit !== undefined ? { outputByteLimit: params.outputByteLimit } : {}),
      ...(Object.keys(ext).length > 0 ? { _meta: { [ACP_TERMINAL_META_KEY]: ext } } : {}),
    });
    return response.terminalId;
  }

  /** With `sinceByte` (sent only when the client advertised `outputSince`): exact increments. */
  async output(terminalId: string, options?: ProviderOutputOptions): Promise<ProviderOutput> {
    const sinceByte = this.capabilities.outputSince ? options?.sinceByte : undefined;
    const response = await this.connection.request<unknown>("terminal/output", {
      ...this.ref(terminalId),
      ...(sinceByte !== undefined ? { _meta: { [ACP_TERMINAL_META_KEY]: { sinceByte } } } : {}),
    });
    const { output, truncated, exitStatus, _meta } = parseAnswer(
      "terminal/output",
      outputResponseSchema,
      response,
    );
    const cursors = _meta?.[ACP_TERMINAL_META_KEY];
    return {
      output,
      truncated,
      exitStatus: exitStatus ?? null,
      ...(cursors ? { totalBytes: cursors.totalBytes, droppedBytes: cursors.droppedBytes } : {}),
      ...(cursors && sinceByte !== undefined && cursors.fromByte !== undefined
        ? { fromByte: cursors.fromByte }
        : {}),
      ...(cursors?.notices ? { notices: cursors.notices } : {}),
    };
  }

  async waitForExit(terminalId: string): Promise<ProviderExitStatus> {
    const response = await this.connection.request<unknown>(
      "terminal/wait_for_exit",
      this.ref(terminalId),
    );
    return parseAnswer("terminal/wait_for_exit", exitStatusSchema, response);
  }

  async kill(terminalId: string): Promise<void> {
    await this.connection.request("terminal/kill", this.ref(terminalId));
  }

  async release(terminalId: string): Promise<void> {
    await this.connection.request("terminal/release", this.ref(terminalId));
  }

  async write(
    terminalId: string,
    data: string | Uint8Array,
    options?: { eof?: boolean },
  ): Promise<void> {
    const payload =
      typeof data === "string" ? { data } : { dataBase64: Buffer.from(data).toString("base64") };
    await this.extension("write", {
      ...this.ref(terminalId),
      ...payload,
      ...(options?.eof ? { eof: true } : {}),
    });
  }

  async resize(terminalId: string, cols: number, rows: number): Promise<void> {
    await this.extension("resize", { ...this.ref(terminalId), cols, rows });
  }

  async signal(terminalId: string, signal: string): Promise<void> {
    const name = signalNameSchema.safeParse(signal);
    if (!name.success) {
      throw new Error(`Cannot send ${signal} over ACP: ${z.prettifyError(name.error)}`);
    }
    await this.extension("signal", { ...this.ref(terminalId), signal: name.data });
  }

  /** Calls extension method `name` with params of the shape the vocabulary defines for it. */
  private async extension<M extends ExtensionMethodName>(
    name: M,
    params: ExtensionParamsInput<M>,
  ): Promise<void> {
    await this.connection.request(EXTENSION_METHODS[name], params);
  }

  private ref(terminalId: string): { sessionId: string; terminalId: string } {
    return { sessionId: this.sessionId, terminalId };
  }
}

/** An exit status as a client answers it; a field of the wrong type reads as null. */
const exitStatusSchema = z.object({
  exitCode: z.number().nullable().catch(null),
  signal: z.string().nullable().catch(null),
});

/** A `terminal/output` answer, read leniently; cursors only when the client sent both counts. */
const outputResponseSchema = z.object({
  output: z.string().catch(""),
  truncated: z.boolean().catch(false),
  exitStatus: exitStatusSchema.nullish().catch(undefined),
  _meta: z
    .object({ [ACP_TERMINAL_META_KEY]: outputCursorsSchema.optional().catch(undefined) })
    .nullish()
    .catch(undefined),
});

/** `answer` read with `schema`; an answer that is not even an object is the client's error. */
function parseAnswer<T>(method: string, schema: z.ZodType<T>, answer: unknown): T {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) {
    throw new Error(
      `The client answered ${method} with something that is not a result object: ${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}
