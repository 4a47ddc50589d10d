import { isAbsolute } from "node:path";
import { TerminalError } from "../core/errors.js";
import { DEFAULT_PTY_SIZE } from "../core/pty-size.js";
import type { CreateTerminalParams, EnvVariable, TerminalOwner } from "./types.js";

/** Largest `cols` or `rows` a PTY may have. */
export const MAX_PTY_DIMENSION = 1000;
/**
 * Variables one create may set. Every start sets them one by one (Perl's and libc's setenv look
 * through those set before: 4096 cost 58 ms, 100,000 took the launcher 21 CPU-seconds while every
 * other start waited); a command's whole environment holds a few dozen.
 */
export const MAX_ENV_VARIABLES = 1024;
/** Bytes of names and values one create may set (exec takes 2 MiB of arguments and variables in all). */
export const MAX_ENV_BYTES = 1024 * 1024;
export { DEFAULT_PTY_SIZE };

const invalid = TerminalError.invalidParams;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function nonNegativeInteger(field: string, value: unknown, unit: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(field, `a non-negative integer (${unit})`, value);
  }
  return value;
}

export function positiveInteger(
  field: string,
  value: unknown,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw invalid(
      field,
      max === Number.MAX_SAFE_INTEGER ? "a positive integer" : `an integer from 1 to ${max}`,
      value,
    );
  }
  return value;
}

export function absolutePath(field: string, value: unknown): string {
  if (typeof value !== "string" || !isAbsolute(value) || value.includes("\0")) {
    throw invalid(field, "an absolute path", value);
  }
  return value;
}

function optionalBoolean(field: string, value: unknown): boolean | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== "boolean") {
    throw invalid(field, "a boolean", value);
  }
  return value;
}

function nonEmptyString(field: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0) {
    throw invalid(field, "a non-empty string", value);
  }
  return value;
}

function noNul(field: string, value: string): string {
  if (value.includes("\0")) {
    throw invalid(field, "a string without NUL characters", value);
  }
  return value;
}

export function validateOwner(owner: unknown): TerminalOwner {
  if (!isRecord(owner)) {
    throw invalid("owner", "{ connectionId, sessionId }", owner);
  }
  return {
    connectionId: nonEmptyString("owner.connectionId", owner.connectionId),
    sessionId: nonEmptyString("owner.sessionId", owner.sessionId),
  };
}

export function validateTerminalId(terminalId: unknown): string {
  return nonEmptyString("terminalId", terminalId);
}

export function validatePtySize(
  cols: unknown,
  rows: unknown,
  prefix = "",
): { cols: number; rows: number } {
  return {
    cols: positiveInteger(`${prefix}cols`, cols, MAX_PTY_DIMENSION),
    rows: positiveInteger(`${prefix}rows`, rows, MAX_PTY_DIMENSION),
  };
}

function validateArgs(args: unknown): string[] | undefined {
  if (args === undefined || args === null) {
    return undefined;
  }
  if (!Array.isArray(args)) {
    throw invalid("args", "an array of strings", args);
  }
  return args.map((arg: unknown, index) => {
    if (typeof arg !== "string") {
      throw invalid(`args[${index}]`, "a string", arg);
    }
    return noNul(`args[${index}]`, arg);
  });
}

function validateEnv(env: unknown): EnvVariable[] {
  if (env === undefined || env === null) {
    return [];
  }
  if (!Array.isArray(env)) {
    throw invalid("env", "an array of { name, value }", env);
  }
  if (env.length > MAX_ENV_VARIABLES) {
    throw invalid("env", `at most ${MAX_ENV_VARIABLES} variables`, `${env.length} variables`);
  }
  let bytes = 0;
  return env.map((variable: unknown, index) => {
    if (!isRecord(variable)) {
      throw invalid(`env[${index}]`, "{ name, value }", variable);
    }
    const { name, value } = variable;
    if (
      typeof name !== "string" ||
      name.length === 0 ||
      name.includes("=") ||
      name.includes("\0")
    ) {
      throw invalid(`env[${index}].name`, 'a non-empty name without "=" or NUL', name);
    }
    if (typeof value !== "string") {
      throw invalid(`env[${index}].value`, "a string", value);
    }
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
    if (bytes > MAX_ENV_BYTES) {
      throw invalid(
        "env",
        `at most ${MAX_ENV_BYTES} bytes of names and values`,
        `more by env[${index}]`,
      );
    }
    return { name, value: noNul(`env[${index}].value`, value) };
  });
}

function validatePty(pty: unknown): { cols: number; rows: number } | false | undefined {
  if (pty === undefined) {
    return undefined;
  }
  if (pty === false) {
    return false;
  }
  if (pty === true) {
    return { ...DEFAULT_PTY_SIZE };
  }
  if (!isRecord(pty)) {
    throw invalid("pty", "a boolean or { cols?, rows? }", pty);
  }
  return validatePtySize(
    pty.cols ?? DEFAULT_PTY_SIZE.cols,
    pty.rows ?? DEFAULT_PTY_SIZE.rows,
    "pty.",
  );
}

/** `CreateTerminalParams` checked field by field; `pty` false/undefined means "not asked". */
export interface ValidCreateParams {
  command: string;
  args: string[] | undefined;
  env: EnvVariable[];
  cwd: string | undefined;
  outputByteLimit: number | undefined;
  pty: { cols: number; rows: number } | false | undefined;
  stdin: boolean;
}

/** Every field of a create request, with a message naming the field that is wrong. Other keys are ignored. */
export function validateCreateParams(params: CreateTerminalParams | unknown): ValidCreateParams {
  if (!isRecord(params)) {
    throw invalid("params", "an object with a command", params);
  }
  const command = noNul("command", nonEmptyString("command", params.command));
  if (command.trim().length === 0) {
    throw invalid("command", "a non-empty string", command);
  }
  return {
    command,
    args: validateArgs(params.args),
    env: validateEnv(params.env),
    cwd:
      params.cwd === undefined || params.cwd === null ? undefined : absolutePath("cwd", params.cwd),
    outputByteLimit:
      params.outputByteLimit === undefined || params.outputByteLimit === null
        ? undefined
        : nonNegativeInteger("outputByteLimit", params.outputByteLimit, "bytes"),
    pty: validatePty(params.pty),
    stdin: optionalBoolean("stdin", params.stdin) ?? false,
  };
}
