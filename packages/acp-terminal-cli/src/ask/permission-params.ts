import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { z } from "zod";
import { paramsParser } from "acp-terminal/internal";

/** More options than anyone can choose from on a terminal. */
export const MAX_PERMISSION_OPTIONS = 100;

/**
 * `session/request_permission` params, checked by the CLI instead of the SDK: the SDK's own check
 * answers with every zod issue in `data`, so 100,000 bad options make an answer past the agent's
 * 32 MiB limit, which ends its connection. Only what the CLI reads is checked (unknown keys and
 * option kinds pass, as in the SDK); the answer to bad params is a -32602 of at most 4 KiB.
 */
const permissionParamsSchema = z.looseObject({
  sessionId: z.string(),
  toolCall: z.looseObject({ toolCallId: z.string(), title: z.string().nullish() }),
  options: z
    .array(z.looseObject({ optionId: z.string(), name: z.string(), kind: z.string() }))
    .max(MAX_PERMISSION_OPTIONS, `at most ${MAX_PERMISSION_OPTIONS} options`),
});

// eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- checked for what the CLI reads (above); the rest passes unchecked, as the SDK's type says
export const parsePermissionParams = paramsParser(
  "session/request_permission",
  permissionParamsSchema,
) as (params: unknown) => RequestPermissionRequest;
