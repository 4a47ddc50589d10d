import { isAbsolute } from "node:path";
import { RequestError, type CreateTerminalRequest } from "@agentclientprotocol/sdk";
import type { CreateTerminalParams } from "../host/types.js";
import { ACP_TERMINAL_META_KEY } from "./capabilities.js";
import { invalidParamsFromZod, JSON_RPC_ERROR_CODES } from "./errors.js";
import { createTerminalMetaSchema, killTerminalMetaSchema, type KillTerminalMeta } from "./schemas.js";

const CREATE = "terminal/create";

function invalidField(field: string, expected: string, received: unknown): RequestError {
  return new RequestError(
    JSON_RPC_ERROR_CODES.invalidParams,
    `Invalid params for ${CREATE}: ${field}: expected ${expected}, received ${JSON.stringify(received)}`,
    { field },
  );
}

function ourMeta(meta: CreateTerminalRequest["_meta"]): unknown {
  return meta?.[ACP_TERMINAL_META_KEY];
}

/**
 * Turns a `terminal/create` request (already shape-checked by the SDK) into host params: the
 * checks the SDK schema cannot express (absolute cwd, non-empty command) and our `_meta`.
 */
export function toCreateTerminalParams(request: CreateTerminalRequest): CreateTerminalParams {
  if (request.command.trim() === "") throw invalidField("command", "a non-empty command", request.command);
  if (request.cwd != null && !isAbsolute(request.cwd)) {
    throw invalidField("cwd", "an absolute path", request.cwd);
  }
  const params: CreateTerminalParams = {
    command: request.command,
    args: request.args ?? null,
    env: request.env?.map(({ name, value }) => ({ name, value })) ?? null,
    cwd: request.cwd ?? null,
    outputByteLimit: request.outputByteLimit ?? null,
  };
  const meta = ourMeta(request._meta);
  if (meta === undefined) return params;
  const parsed = createTerminalMetaSchema.safeParse(meta);
  if (!parsed.success) throw invalidParamsFromZod(CREATE, parsed.error, ["_meta", ACP_TERMINAL_META_KEY]);
  if (parsed.data.pty !== undefined) params.pty = parsed.data.pty;
  if (parsed.data.stdin !== undefined) params.stdin = parsed.data.stdin;
  return params;
}

/** `terminal/kill` may choose the first signal through `_meta["acp-terminal"].signal`. */
export function killMetaOf(meta: Record<string, unknown> | null | undefined): KillTerminalMeta {
  const ours = meta?.[ACP_TERMINAL_META_KEY];
  if (ours === undefined) return {};
  const parsed = killTerminalMetaSchema.safeParse(ours);
  if (!parsed.success) throw invalidParamsFromZod("terminal/kill", parsed.error, ["_meta", ACP_TERMINAL_META_KEY]);
  return parsed.data;
}
