/**
 * Reading what was thrown, without trusting it to be an Error (as acp-terminal's core/thrown.ts
 * and acp-process's errors.ts; those packages keep such helpers out of their public exports).
 */

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  // eslint-disable-next-line no-restricted-syntax -- this is messageOf()
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of anything thrown (an errno name such as `ENOENT`), or undefined when it has none. */
export function errnoCodeOf(error: unknown): string | undefined {
  return typeof error === "object" &&
    error !== null &&
    "code" in error &&
    typeof error.code === "string"
    ? error.code
    : undefined;
}
