import { RequestError } from "@agentclientprotocol/sdk";
import { TerminalError } from "../host/errors.js";
import { ACP_TERMINAL_META_KEY } from "./capabilities.js";
import { invalidParamsFromZod, JSON_RPC_ERROR_CODES } from "./errors.js";
import { outputTerminalMetaSchema, type OutputTerminalMeta } from "./schemas.js";

const OUTPUT = "terminal/output";
const SINCE_FIELD = `_meta["${ACP_TERMINAL_META_KEY}"].sinceByte`;

/** `terminal/output` may ask for exact increments through `_meta["acp-terminal"].sinceByte`. */
export function outputMetaOf(meta: Record<string, unknown> | null | undefined): OutputTerminalMeta {
  const ours = meta?.[ACP_TERMINAL_META_KEY];
  if (ours === undefined) return {};
  const parsed = outputTerminalMetaSchema.safeParse(ours);
  if (!parsed.success) throw invalidParamsFromZod(OUTPUT, parsed.error, ["_meta", ACP_TERMINAL_META_KEY]);
  return parsed.data;
}

/** Names the wire field when the host refuses `sinceByte` (an offset beyond `totalBytes`). */
export function sinceByteError(error: unknown): unknown {
  if (!(error instanceof TerminalError) || error.code !== "invalid_params" || error.data?.["field"] !== "sinceByte") {
    return error;
  }
  return new RequestError(JSON_RPC_ERROR_CODES.invalidParams, `Invalid params for ${OUTPUT}: ${SINCE_FIELD}: ${error.message}`, {
    ...error.data,
    field: SINCE_FIELD,
  });
}
