import { RequestError } from "@agentclientprotocol/sdk";
import type { z } from "zod";
import { TerminalError } from "../core/errors.js";
import { boundedRequestError, cutText, MAX_LISTED_ISSUES } from "./bounded-error.js";
import { ACP_TERMINAL_META_KEY } from "../protocol/extension.js";
import { messageOf } from "../core/thrown.js";

/** JSON-RPC codes the binding answers with. */
export const JSON_RPC_ERROR_CODES = {
  invalidParams: -32602,
  internalError: -32603,
  resourceNotFound: -32002,
} as const;

/**
 * Maps what a host call threw to the JSON-RPC error the agent sees. The host's message is kept
 * as the message (never a bare "Internal error"), and `data.reason` carries the TerminalError code
 * so an agent can tell `stdin_closed` from `exited` without parsing text. With `method`, a host
 * `invalid_params` reads like the binding's own: `Invalid params for <method>: <field>: ...`.
 */
export function toRequestError(error: unknown, method?: string): RequestError {
  if (error instanceof RequestError) {
    return boundedRequestError(
      error.code,
      error.message,
      // The SDK types `data` as unknown; ours are objects, anything else cannot be shrunk.
      typeof error.data === "object" && error.data !== null ? error.data : undefined,
    );
  }
  if (!(error instanceof TerminalError)) {
    const message = messageOf(error);
    return boundedRequestError(JSON_RPC_ERROR_CODES.internalError, `Internal error: ${message}`);
  }
  switch (error.code) {
    case "not_found":
      return boundedRequestError(JSON_RPC_ERROR_CODES.resourceNotFound, error.message, {
        terminalId: error.data?.["terminalId"],
      });
    case "invalid_params":
      return invalidParamsError(error, method);
    default:
      return boundedRequestError(JSON_RPC_ERROR_CODES.internalError, error.message, {
        ...error.data,
        reason: error.code,
      });
  }
}

/**
 * Host fields that travel in `_meta["acp-terminal"]` for a method: the host says `pty.cols`, the
 * agent sent `_meta["acp-terminal"].pty.cols`.
 */
const META_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "terminal/create": ["pty", "stdin"],
  "terminal/output": ["sinceByte"],
  "terminal/kill": ["signal"],
};

/** The name of a host field as the agent wrote it in `method`'s params. */
function wireFieldOf(method: string, field: string): string {
  if (field === "owner.sessionId") {
    return "sessionId";
  }
  const inMeta = META_FIELDS[method]?.some(
    (name) => field === name || field.startsWith(`${name}.`),
  );
  return inMeta ? `_meta[${JSON.stringify(ACP_TERMINAL_META_KEY)}].${field}` : field;
}

/**
 * The host says `Invalid <field>: expected ..., received ...`; over the wire the method goes first,
 * as in the binding's own -32602 messages, and the field is named as the agent wrote it.
 */
function invalidParamsError(error: TerminalError, method: string | undefined): RequestError {
  const field = error.data?.["field"];
  if (method === undefined || typeof field !== "string") {
    return boundedRequestError(JSON_RPC_ERROR_CODES.invalidParams, error.message, {
      ...error.data,
    });
  }
  const hostPrefix = `Invalid ${field}: `;
  const detail = error.message.startsWith(hostPrefix)
    ? error.message.slice(hostPrefix.length)
    : error.message;
  const wireField = wireFieldOf(method, field);
  return boundedRequestError(
    JSON_RPC_ERROR_CODES.invalidParams,
    `Invalid params for ${method}: ${wireField}: ${detail}`,
    {
      ...error.data,
      field: wireField,
    },
  );
}

/**
 * A -32602 whose message names the first bad field, with the first MAX_LISTED_ISSUES issues in
 * `data.issues` and how many more there were in `data.moreIssues`.
 */
export function invalidParamsFromZod(
  where: string,
  error: z.ZodError,
  pathPrefix: readonly string[] = [],
): RequestError {
  const issues = error.issues.slice(0, MAX_LISTED_ISSUES).map((issue) => ({
    field: formatPath([...pathPrefix, ...issue.path.map(String)]),
    message: issue.message,
  }));
  const first = issues[0];
  const summary = first ? `${first.field || "params"}: ${first.message}` : "invalid params";
  const more = error.issues.length - issues.length;
  return boundedRequestError(
    JSON_RPC_ERROR_CODES.invalidParams,
    `Invalid params for ${where}: ${summary}`,
    {
      field: first?.field,
      issues,
      ...(more > 0 ? { moreIssues: more } : {}),
    },
  );
}

/**
 * A parser for `onRequest(method, parser, handler)` that answers -32602 naming the field. Params
 * that make the check itself fail (a structure nested past the stack) are invalid params too.
 */
export function paramsParser<T>(method: string, schema: z.ZodType<T>): (params: unknown) => T {
  return (params) => {
    let result;
    try {
      result = schema.safeParse(params ?? {});
      if (!result.success) {
        throw invalidParamsFromZod(method, result.error);
      }
    } catch (error) {
      if (error instanceof RequestError) {
        throw error;
      }
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw boundedRequestError(
        JSON_RPC_ERROR_CODES.invalidParams,
        `Invalid params for ${method}: the params could not be checked (${reason}); send a flat JSON object`,
      );
    }
    return result.data;
  };
}

function formatPath(path: readonly string[]): string {
  return path.reduce((out, key) => {
    if (/^\d+$/.test(key)) {
      return `${out}[${key}]`;
    }
    if (/^[A-Za-z_$][\w$]*$/.test(key)) {
      return out ? `${out}.${key}` : key;
    }
    return `${out}[${JSON.stringify(cutText(key, 100))}]`;
  }, "");
}
