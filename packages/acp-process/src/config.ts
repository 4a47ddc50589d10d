/**
 * Defaults, clamps and the environment overrides of the exec tool design:
 *   PI_BASH_YIELD_MS         auto-background after this many ms (default 10000, clamp 10..120000)
 *   PI_BASH_MAX_OUTPUT_CHARS characters of output returned/retained per run (default 200000, clamp 1000..5000000)
 *   PI_BASH_JOB_TTL_MS       finished runs expire after this (default 1800000, clamp 60000..10800000)
 * Explicit options win over the environment; both are clamped.
 */
export const YIELD_MS = { default: 10_000, min: 10, max: 120_000 } as const;
export const MAX_OUTPUT_CHARS = { default: 200_000, min: 1_000, max: 5_000_000 } as const;
export const JOB_TTL_MS = { default: 30 * 60_000, min: 60_000, max: 3 * 60 * 60_000 } as const;

export interface ResolvedLimits {
  yieldMs: number;
  maxOutputChars: number;
  ttlMs: number;
}

export function clamp(value: number, range: { min: number; max: number }): number {
  return Math.min(range.max, Math.max(range.min, Math.round(value)));
}

function fromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

export function resolveLimits(
  options: Partial<ResolvedLimits>,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedLimits {
  return {
    yieldMs: clamp(options.yieldMs ?? fromEnv(env, "PI_BASH_YIELD_MS") ?? YIELD_MS.default, YIELD_MS),
    maxOutputChars: clamp(
      options.maxOutputChars ?? fromEnv(env, "PI_BASH_MAX_OUTPUT_CHARS") ?? MAX_OUTPUT_CHARS.default,
      MAX_OUTPUT_CHARS,
    ),
    ttlMs: clamp(options.ttlMs ?? fromEnv(env, "PI_BASH_JOB_TTL_MS") ?? JOB_TTL_MS.default, JOB_TTL_MS),
  };
}
