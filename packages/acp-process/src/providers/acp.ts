import { EXTENSION_KEY, EXTENSION_METHODS, detectClientTerminalSupport, isRecord } from "./acp-capabilities.js";
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
    const ext: Record<string, unknown> = {};
    if (params.pty && this.capabilities.pty) ext["pty"] = params.pty;
    if (params.stdin && this.capabilities.write) ext["stdin"] = true;
    const response = await this.connection.request<{ terminalId: string }>("terminal/create", {
      sessionId: this.sessionId,
      command: params.command,
      ...(params.args ? { args: params.args } : {}),
      env: params.env ? Object.entries(params.env).map(([name, value]) => ({ name, value })) : [],
      cwd: params.cwd ?? null,
      ...(params.outputByteLimit !== undefined ? { outputByteLimit: params.outputByteLimit } : {}),
      ...(Object.keys(ext).length > 0 ? { _meta: { [EXTENSION_KEY]: ext } } : {}),
    });
    return response.terminalId;
  }

  /** With `sinceByte` (sent only when the client advertised `outputSince`): exact increments. */
  async output(terminalId: string, options?: ProviderOutputOptions): Promise<ProviderOutput> {
    const sinceByte = this.capabilities.outputSince ? options?.sinceByte : undefined;
    const response = await this.connection.request<Record<string, unknown>>("terminal/output", {
      ...this.ref(terminalId),
      ...(sinceByte !== undefined ? { _meta: { [EXTENSION_KEY]: { sinceByte } } } : {}),
    });
    const exit = isRecord(response["exitStatus"]) ? response["exitStatus"] : undefined;
    const meta = isRecord(response["_meta"]) ? response["_meta"] : undefined;
    const cursor = meta && isRecord(meta[EXTENSION_KEY]) ? meta[EXTENSION_KEY] : undefined;
    const totalBytes = cursor?.["totalBytes"];
    const droppedBytes = cursor?.["droppedBytes"];
    const fromByte = cursor?.["fromByte"];
    const cursors = typeof totalBytes === "number" && typeof droppedBytes === "number";
    return {
      output: typeof response["output"] === "string" ? response["output"] : "",
      truncated: response["truncated"] === true,
      exitStatus: exit ? toExitStatus(exit) : null,
      ...(cursors ? { totalBytes, droppedBytes } : {}),
      ...(cursors && sinceByte !== undefined && typeof fromByte === "number" ? { fromByte } : {}),
    };
  }

  async waitForExit(terminalId: string): Promise<ProviderExitStatus> {
    const response = await this.connection.request<Record<string, unknown>>("terminal/wait_for_exit", this.ref(terminalId));
    return toExitStatus(response);
  }

  async kill(terminalId: string): Promise<void> {
    await this.connection.request("terminal/kill", this.ref(terminalId));
  }

  async release(terminalId: string): Promise<void> {
    await this.connection.request("terminal/release", this.ref(terminalId));
  }

  async write(terminalId: string, data: string | Uint8Array, options?: { eof?: boolean }): Promise<void> {
    const payload = typeof data === "string" ? { data } : { dataBase64: Buffer.from(data).toString("base64") };
    await this.connection.request(EXTENSION_METHODS.write, {
      ...this.ref(terminalId),
      ...payload,
      ...(options?.eof ? { eof: true } : {}),
    });
  }

  async resize(terminalId: string, cols: number, rows: number): Promise<void> {
    await this.connection.request(EXTENSION_METHODS.resize, { ...this.ref(terminalId), cols, rows });
  }

  async signal(terminalId: string, signal: string): Promise<void> {
    await this.connection.request(EXTENSION_METHODS.signal, { ...this.ref(terminalId), signal });
  }

  private ref(terminalId: string): { sessionId: string; terminalId: string } {
    return { sessionId: this.sessionId, terminalId };
  }
}

function toExitStatus(value: Record<string, unknown>): ProviderExitStatus {
  const exitCode = value["exitCode"];
  const signal = value["signal"];
  return {
    exitCode: typeof exitCode === "number" ? exitCode : null,
    signal: typeof signal === "string" ? signal : null,
  };
}
