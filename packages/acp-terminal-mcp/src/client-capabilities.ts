import {
  CLIENT_CAPABILITIES_META_KEY,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";

/** The parts of a client's capabilities this server reads. */
const capabilitiesSchema = z.looseObject({
  elicitation: z
    .looseObject({ form: z.unknown().optional(), url: z.unknown().optional() })
    .optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

export type ClientCapabilitiesRead = z.infer<typeof capabilitiesSchema>;

/**
 * The capabilities of the client behind a request: on 2026-07-28 those the request itself
 * declares (its `_meta` envelope); on 2025 those of `initialize` (none on stateless HTTP, where
 * each request has an instance of its own).
 */
export function clientCapabilities(server: Server, ctx: ServerContext): ClientCapabilitiesRead {
  const envelope: Record<string, unknown> | undefined = ctx.mcpReq.envelope;
  const declared =
    envelope === undefined
      ? server.getClientCapabilities()
      : envelope[CLIENT_CAPABILITIES_META_KEY];
  const parsed = capabilitiesSchema.safeParse(declared ?? {});
  return parsed.success ? parsed.data : {};
}
