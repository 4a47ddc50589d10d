import { executorFor } from "../executors/target.js";
import type { Executor } from "../executors/types.js";
import { KILL_GRACE_MS } from "../terminate/kill.js";
import { TerminalError } from "../core/errors.js";
import type { AuthorizeHook } from "./authorize.js";
import {
  resolveSandboxOptions,
  SANDBOX_WITH_ON,
  type ResolvedSandboxOptions,
} from "../sandbox/sandbox-options.js";
import type { ShellMode, TerminalHostOptions } from "./types.js";
import { absolutePath, nonNegativeInteger, positiveInteger } from "./validate.js";

const MiB = 1024 * 1024;

export const DEFAULT_OUTPUT_BYTE_LIMIT = MiB;
export const DEFAULT_MAX_OUTPUT_BYTE_LIMIT = 8 * MiB;
/**
 * The largest retained output whose `terminal/output` response still fits the ACP SDK's 32 MiB
 * message limit in the worst case: every byte a control character that JSON escapes to six
 * bytes (`\u001b`), with 64 KiB left for the envelope. Any ceiling is clamped to this.
 */
export const MESSAGE_SAFE_OUTPUT_BYTE_LIMIT = Math.floor((32 * MiB - 64 * 1024) / 6);
export const DEFAULT_EXIT_DRAIN_GRACE_MS = 250;
export const DEFAULT_MAX_TERMINALS_PER_SESSION = 64;
export const DEFAULT_MAX_TERMINALS = 1024;
export const DEFAULT_MAX_PENDING_STDIN_BYTES = MiB;

export interface ResolvedHostOptions {
  shell: ShellMode;
  defaultOutputByteLimit: number;
  maxOutputByteLimit: number;
  killGraceMs: number;
  exitDrainGraceMs: number;
  maxTerminalsPerSession: number;
  maxTerminals: number;
  cwd: string | undefined;
  env: NonNullable<TerminalHostOptions["env"]>;
  pty: boolean;
  containment: "auto" | "pid-namespace" | "off";
  maxPendingStdinBytes: number;
  authorize: AuthorizeHook | undefined;
  sandbox: ResolvedSandboxOptions;
  /** Where commands run when not here; `ownsExecutor`: made from a string, disposed with the host. */
  executor: Executor | undefined;
  ownsExecutor: boolean;
}

const KNOWN_OPTIONS = new Set<string>([
  "shell",
  "defaultOutputByteLimit",
  "maxOutputByteLimit",
  "killGraceMs",
  "exitDrainGraceMs",
  "maxTerminalsPerSession",
  "maxTerminals",
  "cwd",
  "env",
  "pty",
  "containment",
  "maxPendingStdinBytes",
  "authorize",
  "sandbox",
  "on",
] satisfies (keyof TerminalHostOptions)[]);

const field = (name: string): string => `options.${name}`;

function optional<T>(value: T | undefined, fallback: T, check: (value: T) => T): T {
  return value === undefined ? fallback : check(value);
}

/** Options with defaults filled in; every wrong option is a TerminalError naming it. */
export function resolveHostOptions(options: TerminalHostOptions = {}): ResolvedHostOptions {
  if (typeof options !== "object" || options === null) {
    throw TerminalError.invalidParams("options", "an object of TerminalHostOptions", options);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) {
      throw TerminalError.invalidParams(field(key), `one of ${[...KNOWN_OPTIONS].join(", ")}`, key);
    }
  }
  const o = options;
  const shell = optional<ShellMode>(o.shell, "auto", (value) => oneOf("shell", SHELL_MODES, value));
  const { defaultOutputByteLimit, maxOutputByteLimit } = resolveOutputLimits(o);
  const env = optional<ResolvedHostOptions["env"]>(o.env, "inherit", (value) => {
    if (value !== "inherit" && value !== "empty" && typeof value !== "function") {
      throw TerminalError.invalidParams(
        field("env"),
        '"inherit", "empty" or a function (base) => env',
        value,
      );
    }
    return value;
  });
  const cwd = o.cwd === undefined ? undefined : absolutePath(field("cwd"), o.cwd);
  const executor = resolveExecutor(o.on);
  const sandbox = resolveSandboxOptions(o.sandbox, cwd);
  if (executor !== undefined && sandbox.mode !== "off") {
    throw TerminalError.invalidParams(
      field("sandbox"),
      `"off" when commands run elsewhere (options.on): ${SANDBOX_WITH_ON}`,
      sandbox.mode,
    );
  }
  return {
    shell,
    defaultOutputByteLimit,
    maxOutputByteLimit,
    ...resolveCounts(o),
    cwd,
    env,
    pty: optional(o.pty, false, (value) => {
      if (typeof value !== "boolean") {
        throw TerminalError.invalidParams(field("pty"), "a boolean", value);
      }
      return value;
    }),
    containment: optional<ResolvedHostOptions["containment"]>(o.containment, "auto", (value) => {
      const mode = oneOf("containment", CONTAINMENT_MODES, value);
      // PID namespaces are this machine's: a remote group is the executor's to contain.
      return executor ? "off" : mode;
    }),
    maxPendingStdinBytes: optional(o.maxPendingStdinBytes, DEFAULT_MAX_PENDING_STDIN_BYTES, (v) =>
      positiveInteger(field("maxPendingStdinBytes"), v),
    ),
    authorize: optional(o.authorize, undefined, (value) => {
      if (typeof value !== "function") {
        throw TerminalError.invalidParams(field("authorize"), "a function", value);
      }
      return value;
    }),
    sandbox,
    executor,
    ownsExecutor: typeof o.on === "string" && executor !== undefined,
  };
}

const SHELL_MODES = ["auto", "always", "never"] as const satisfies readonly ShellMode[];
const CONTAINMENT_MODES = ["auto", "pid-namespace", "off"] as const;

/** An option that must be one of `allowed`; the error lists them ('"a", "b" or "c"'). */
function oneOf<T extends string>(name: string, allowed: readonly T[], value: unknown): T {
  const found = allowed.find((one) => one === value);
  if (found === undefined) {
    const quoted = allowed.map((one) => JSON.stringify(one));
    throw TerminalError.invalidParams(
      field(name),
      `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`,
      value,
    );
  }
  return found;
}

/**
 * The output limits: the ceiling (clamped to what fits a message) and the default. A default
 * given above a ceiling given is an error; otherwise the default follows the ceiling down (the
 * ceiling may be the message-size clamp).
 */
function resolveOutputLimits(
  o: TerminalHostOptions,
): Pick<ResolvedHostOptions, "defaultOutputByteLimit" | "maxOutputByteLimit"> {
  const maxOutputByteLimit = Math.min(
    optional(o.maxOutputByteLimit, DEFAULT_MAX_OUTPUT_BYTE_LIMIT, (v) =>
      nonNegativeInteger(field("maxOutputByteLimit"), v, "bytes"),
    ),
    MESSAGE_SAFE_OUTPUT_BYTE_LIMIT,
  );
  const requestedDefault = optional(o.defaultOutputByteLimit, DEFAULT_OUTPUT_BYTE_LIMIT, (v) =>
    nonNegativeInteger(field("defaultOutputByteLimit"), v, "bytes"),
  );
  if (
    o.maxOutputByteLimit !== undefined &&
    o.defaultOutputByteLimit !== undefined &&
    requestedDefault > o.maxOutputByteLimit
  ) {
    throw new TerminalError(
      "invalid_params",
      `Invalid options.defaultOutputByteLimit: ${requestedDefault} bytes is above options.maxOutputByteLimit (${o.maxOutputByteLimit} bytes)`,
      { field: field("defaultOutputByteLimit") },
    );
  }
  return {
    defaultOutputByteLimit: Math.min(requestedDefault, maxOutputByteLimit),
    maxOutputByteLimit,
  };
}

/** The graces and the terminal counts. */
function resolveCounts(
  o: TerminalHostOptions,
): Pick<
  ResolvedHostOptions,
  "killGraceMs" | "exitDrainGraceMs" | "maxTerminalsPerSession" | "maxTerminals"
> {
  return {
    killGraceMs: optional(o.killGraceMs, KILL_GRACE_MS, (v) =>
      nonNegativeInteger(field("killGraceMs"), v, "ms"),
    ),
    exitDrainGraceMs: optional(o.exitDrainGraceMs, DEFAULT_EXIT_DRAIN_GRACE_MS, (v) =>
      nonNegativeInteger(field("exitDrainGraceMs"), v, "ms"),
    ),
    maxTerminalsPerSession: optional(
      o.maxTerminalsPerSession,
      DEFAULT_MAX_TERMINALS_PER_SESSION,
      (v) => positiveInteger(field("maxTerminalsPerSession"), v),
    ),
    maxTerminals: optional(o.maxTerminals, DEFAULT_MAX_TERMINALS, (v) =>
      positiveInteger(field("maxTerminals"), v),
    ),
  };
}

/** `on`: a string names an executor (local: none), an object with `spawn` is one. */
function resolveExecutor(on: TerminalHostOptions["on"]): Executor | undefined {
  if (on === undefined || on === "local") {
    return undefined;
  }
  if (typeof on === "string") {
    return executorFor(on, field("on"));
  }
  if (typeof on !== "object" || on === null || typeof on.spawn !== "function") {
    return executorFor(String(on), field("on"));
  }
  return on;
}
