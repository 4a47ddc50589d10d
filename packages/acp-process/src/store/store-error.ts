import { errnoCodeOf, messageOf, ProcessError } from "../base/errors.js";

/**
 * A failure of the SQLite file, as a `store_error` naming the file, what was being done and the
 * run, instead of a raw `SqliteError` or `SyntaxError`. ProcessErrors pass through unchanged.
 */
export function storeFailure(
  path: string,
  doing: string,
  runId: string | null,
  error: unknown,
): ProcessError {
  if (error instanceof ProcessError) {
    return error;
  }
  const run = runId === null ? "" : ` for run ${runId}`;
  const errno = errnoCodeOf(error);
  const code = errno === undefined ? "" : ` [${errno}]`;
  return new ProcessError(
    "store_error",
    `The run store ${path} failed ${doing}${run} (${messageOf(error)}${code}): check the disk and the file; ` +
      "if the file was changed by something other than acp-process, move it aside and start with a new one",
    { cause: error },
  );
}

/** Any call but `flush()`/`close()` on a closed store: the write would otherwise be lost without a word. */
export function storeClosed(store: string, what: string): ProcessError {
  return new ProcessError(
    "store_closed",
    `Cannot ${what}: ${store} is closed. Open a new store (and a new ProcessManager on it) to go on`,
  );
}

/**
 * A write from the flush timer failed: nobody awaits that timer, so this is reported instead of
 * crashing the agent (the batch is retried on the next write).
 */
export function flushFailure(error: unknown): ProcessError {
  const root = error instanceof ProcessError && error.cause !== undefined ? error.cause : error;
  return new ProcessError(
    "store_error",
    `writing run output to the SQLite store failed (${messageOf(root)}); check the disk and the database file. ${messageOf(error)}`,
    { cause: error },
  );
}
