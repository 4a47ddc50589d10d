/**
 * Waits for a condition instead of sleeping: polls `predicate` (sync or async) until it returns a
 * truthy value, and returns that value. Fails after `timeoutMs` (or when one call of the predicate
 * takes that long) with `message` and the last error the predicate threw, so a failing test says
 * what it was waiting for.
 */
export async function until<T>(
  predicate: () => T | Promise<T>,
  {
    timeoutMs = 5_000,
    intervalMs = 10,
    message = "condition",
  }: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      // A call that never settles (a request nobody answers) must not hang the wait: it gets timeoutMs too.
      const value = await withDeadline(Promise.resolve(predicate()), timeoutMs, message);
      if (value) {
        return value as NonNullable<T>;
      }
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : "";
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${message}${cause}`, {
        cause: lastError,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Rejects with a clear message when `promise` does not settle within `timeoutMs`. */
export async function withDeadline<T>(
  promise: Promise<T>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
