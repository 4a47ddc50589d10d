import { ACP_TERMINAL_META_KEY } from "./capabilities.js";
import { invalidParamsFromZod } from "./errors.js";
import { outputTerminalMetaSchema, type OutputTerminalMeta } from "./schemas.js";

const OUTPUT = "terminal/output";

/** `terminal/output` may ask for exact increments through `_meta["acp-terminal"].sinceByte`. */
export function outputMetaOf(meta: Record<string, unknown> | null | undefined): OutputTerminalMeta {
  const ours = meta?.[ACP_TERMINAL_META_KEY];
  if (ours === undefined) return {};
  const parsed = outputTerminalMetaSchema.safeParse(ours);
  if (!parsed.success) throw invalidParamsFromZod(OUTPUT, parsed.error, ["_meta", ACP_TERMINAL_META_KEY]);
  return parsed.data;
}
