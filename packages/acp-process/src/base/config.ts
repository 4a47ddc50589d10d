/**
 * Defaults, clamps and the environment overrides of the exec tool design:
 *   PI_BASH_YIELD_MS         auto-background after this many ms (default 10000, clamp 10..120000)
 *   PI_BASH_MAX_OUTPUT_CHARS characters of output returned/retained per run (default 200000, clamp 1000..5000000)
 *   PI_BASH_JOB_TTL_MS       finished runs expire after this (default 1800000, clamp 60000..10800000)
 *   OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS, or ZERO_BASH_PENDING_MAX_OUTPUT_CHARS (the two names the
 *                            exec tool design uses; the first set wins): output not yet polled that
 *                            `process poll` returns at most (default 30000, clamp 1000..5000000)
 * Explicit options win over the environment; both are clamped.
 */
export const YIELD_MS = { default: 10_000, min: 10, max: 120_000 } as const;
export const MAX_OUTPUT_CHARS = { default: 200_000, min: 1_000, max: 5_000_000 } as const;
export const JOB_TTL_MS = { default: 30 * 60_000, min: 60_000, max: 3 * 60 * 60_000 } as const;
export const PENDING_MAX_OUTPUT_CHARS = { default: 30_000, min: 1_000, max: 5_000_000 } as const;

export interface ResolvedLimits {
  yieldMs: number;
  maxOutputChars: number;
  ttlMs: number;
  /** Un-polled output `process poll` returns at most (the newest part; older pending output is skipped there, still readable with `log`). */
  pendingMaxOutputChars: number;
}

export function clamp(value: number, range: { min: number; max: number }): number {
  return Math.min(range.max, Math.max(range.min, Math.round(value)));
}

function fromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") {
    return undefined;
  }
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

export function resolveLimits(
  options: Partial<ResolvedLimits>,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedLimits {
  return {
    yieldMs: clamp(
      options.yieldMs ?? fromEnv(env, "PI_BASH_YIELD_MS") ?? YIELD_MS.default,
      YIELD_MS,
    ),
    maxOutputChars: clamp(
      options.maxOutputChars ??
        fromEnv(env, "PI_BASH_MAX_OUTPUT_CHARS") ??
        MAX_OUTPUT_CHARS.default,
      MAX_OUTPUT_CHARS,
    ),
    ttlMs: clamp(
      options.ttlMs ?? fromEnv(env, "PI_BASH_JOB_TTL_MS") ?? JOB_TTL_MS.default,
      JOB_TTL_MS,
    ),
    pendingMaxOutputChars: clamp(
      options.pendingMaxOutputChars ??
        fromEnv(env, "OPENCLAW_BASH_PENDING_MAX_OUTPUT_CHARS") ??
        fromEnv(env, "ZERO_BASH_PENDING_MAX_OUTPUT_CHARS") ??
        PENDING_MAX_OUTPUT_CHARS.default,
      PENDING_MAX_OUTPUT_CHARS,
    ),
  };
}
