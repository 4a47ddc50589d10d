import type { CreateTerminalParams } from "../host/types.js";
import type { CreateTerminalRequestParams } from "./core-schemas.js";
import { ourMetaOf } from "./meta-params.js";
import { createTerminalMetaSchema } from "../protocol/extension.js";

/**
 * Turns a `terminal/create` request (checked by `createTerminalRequestSchema`) into host params,
 * reading our `_meta["acp-terminal"]` (`pty`, `stdin`).
 */
export function toCreateTerminalParams(request: CreateTerminalRequestParams): CreateTerminalParams {
  const params: CreateTerminalParams = {
    command: request.command,
    args: request.args ?? null,
    env: request.env?.map(({ name, value }) => ({ name, value })) ?? null,
    cwd: request.cwd ?? null,
    outputByteLimit: request.outputByteLimit ?? null,
  };
  const meta = ourMetaOf("terminal/create", request._meta, createTerminalMetaSchema);
  if (meta?.pty !== undefined) {
    params.pty = meta.pty;
  }
  if (meta?.stdin !== undefined) {
    params.stdin = meta.stdin;
  }
  return params;
}
