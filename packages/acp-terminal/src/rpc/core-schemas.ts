import { describeReceived } from "../core/errors.js";
import { MAX_ENV_VARIABLES } from "../host/validate.js";
import { isAbsolute } from "node:path";
import { z } from "zod";

/**
 * Params of the five ACP v1 terminal methods, checked by the binding itself instead of the SDK's
 * built-in schemas (which the SDK does not export and whose -32602 says only "Invalid params",
 * the field buried in `data`). Same shapes and the same leniency as the SDK's generated schemas
 * (`args: null` and `env: null` read as `[]`, a malformed `_meta` is dropped, unknown keys are
 * ignored), plus what the host would refuse anyway (empty ids, a blank command, a relative cwd),
 * so every message names the field, the form expected and the value received.
 */

/** `{ error }` for a zod check: "expected <what>, received <value>" (or "missing"). */
function expected(what: string): { error: (issue: { input?: unknown }) => string } {
  return {
    error: (issue) =>
      issue.input === undefined
        ? `missing; expected ${what}`
        : `expected ${what}, received ${describeReceived(issue.input)}`,
  };
}

/** `_meta` as the SDK reads it: a record, else dropped (never a reason to refuse a request). */
const metaSchema = z.record(z.string(), z.unknown()).nullish().catch(undefined);

const nonEmptyString = z
  .string(expected("a non-empty string"))
  .min(1, expected("a non-empty string"));

/** An explicit `null` reads as the empty value, like the SDK's `defaultOnNull`. */
function nullAsEmpty<T extends z.ZodType>(schema: T, empty: () => unknown) {
  return z.preprocess((value) => (value === null ? empty() : value), schema).optional();
}

const envVariableSchema = z.object(
  {
    name: z.string(expected("a string")),
    value: z.string(expected("a string")),
    _meta: metaSchema,
  },
  expected("an object { name, value }"),
);

export const createTerminalRequestSchema = z.object(
  {
    sessionId: nonEmptyString,
    command: z
      .string(expected("a non-empty command"))
      .refine((command) => command.trim() !== "", expected("a non-empty command")),
    args: nullAsEmpty(
      z.array(z.string(expected("a string")), expected("an array of strings")),
      () => [],
    ),
    env: nullAsEmpty(
      // The count first: 100,000 variables are refused before any is parsed.
      z
        .custom<unknown[]>((value) => !Array.isArray(value) || value.length <= MAX_ENV_VARIABLES, {
          error: (issue) =>
            `expected at most ${MAX_ENV_VARIABLES} variables, received ${Array.isArray(issue.input) ? issue.input.length : "more"}`,
        })
        .pipe(z.array(envVariableSchema, expected("an array of { name, value }"))),
      () => [],
    ),
    cwd: z
      .string(expected("an absolute path"))
      .refine((cwd) => isAbsolute(cwd), expected("an absolute path"))
      .nullish(),
    outputByteLimit: z
      .int(expected("a non-negative integer (bytes)"))
      .min(0, expected("a non-negative integer (bytes)"))
      .nullish(),
    _meta: metaSchema,
  },
  expected("an object { sessionId, command, args?, env?, cwd?, outputByteLimit? }"),
);
export type CreateTerminalRequestParams = z.infer<typeof createTerminalRequestSchema>;

/** `terminal/output`, `terminal/wait_for_exit`, `terminal/kill`, `terminal/release`. */
export const terminalIdRequestSchema = z.object(
  {
    sessionId: nonEmptyString,
    terminalId: nonEmptyString,
    _meta: metaSchema,
  },
  expected("an object { sessionId, terminalId }"),
);
export type TerminalIdRequestParams = z.infer<typeof terminalIdRequestSchema>;
