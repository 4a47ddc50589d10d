import type { z } from "zod";
import {
  ACP_TERMINAL_META_KEY,
  killTerminalMetaSchema,
  outputTerminalMetaSchema,
  type KillTerminalMeta,
  type OutputTerminalMeta,
} from "../protocol/extension.js";
import { invalidParamsFromZod } from "./errors.js";

/**
 * Our part of a request's `_meta` (`_meta["acp-terminal"]`) checked by `schema`, or undefined when
 * the agent sent none; a bad one is a -32602 naming the field under `_meta["acp-terminal"]`.
 */
export function ourMetaOf<T>(
  method: string,
  meta: Record<string, unknown> | null | undefined,
  schema: z.ZodType<T>,
): T | undefined {
  const ours = meta?.[ACP_TERMINAL_META_KEY];
  if (ours === undefined) {
    return undefined;
  }
  const parsed = schema.safeParse(ours);
  if (!parsed.success) {
    throw invalidParamsFromZod(method, parsed.error, ["_meta", ACP_TERMINAL_META_KEY]);
  }
  return parsed.data;
}

/** `terminal/output` may ask for exact increments through `_meta["acp-terminal"].sinceByte`. */
export function outputMetaOf(meta: Record<string, unknown> | null | undefined): OutputTerminalMeta {
  return ourMetaOf("terminal/output", meta, outputTerminalMetaSchema) ?? {};
}

/** `terminal/kill` may choose the first signal through `_meta["acp-terminal"].signal`. */
export function killMetaOf(meta: Record<string, unknown> | null | undefined): KillTerminalMeta {
  return ourMetaOf("terminal/kill", meta, killTerminalMetaSchema) ?? {};
}
