import type { CreateTerminalParams } from "../host/types.js";
import { ACP_TERMINAL_META_KEY } from "./capabilities.js";
import type { CreateTerminalRequestParams } from "./core-schemas.js";
import { invalidParamsFromZod } from "./errors.js";
import { createTerminalMetaSchema, killTerminalMetaSchema, type KillTerminalMeta } from "./schemas.js";

const CREATE = "terminal/create";

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
  const meta = request._meta?.[ACP_TERMINAL_META_KEY];
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
