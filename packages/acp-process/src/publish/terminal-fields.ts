import type { RunSnapshot } from "../model/run-events.js";

/** `_meta` key of what acp-process adds to a v2 `terminal_update`. */
export const META_KEY = "acp-process";

/**
 * A terminal's input state, in the `_meta` of its `terminal_update`:
 * `{"acp-process": {inputRequired: {prompt, detectedBy, since} | null}}` (null: not waiting).
 */
export function inputMeta(run: RunSnapshot): Record<string, unknown> {
  const waiting = run.inputRequired;
  return {
    [META_KEY]: {
      inputRequired:
        waiting && run.status === "running"
          ? {
              prompt: waiting.prompt,
              detectedBy: waiting.detectedBy,
              since: new Date(waiting.sinceMs).toISOString(),
            }
          : null,
    },
  };
}

export function exitStatusOf(run: RunSnapshot): { exitCode: number | null; signal: string | null } {
  return { exitCode: run.exitCode, signal: run.signal };
}

export function displayCommand(run: RunSnapshot): string {
  return run.args === null ? run.command : [run.command, ...run.args].join(" ");
}

export function clampOption(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || !Number.isFinite(value)) {
    return fallback;
  }
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** A PTY run's size as the run keeps it (as started, then as resized); a stored one that is not a size reads as the default. */
export function sizeOf(
  run: RunSnapshot,
  fallback: { cols: number; rows: number },
): { cols: number; rows: number } {
  const size: unknown = run.ptySize;
  if (
    typeof size === "object" &&
    size !== null &&
    "cols" in size &&
    "rows" in size &&
    Number.isInteger(size.cols) &&
    Number.isInteger(size.rows) &&
    Number(size.cols) > 0 &&
    Number(size.rows) > 0
  ) {
    return { cols: Number(size.cols), rows: Number(size.rows) };
  }
  return { ...fallback };
}
