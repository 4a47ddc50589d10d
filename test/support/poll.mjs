/**
 * A deadline-bounded wait for the test servers (sshd, dockerd) in plain JavaScript, shared by the
 * tests and the benchmarks: calls `predicate` until it returns true (a throw ends the wait with
 * that error), failing after `timeoutMs` with `what` it was waiting for.
 *
 * @param {() => boolean | Promise<boolean>} predicate
 * @param {number} timeoutMs
 * @param {string} what
 */
export async function pollUntil(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
