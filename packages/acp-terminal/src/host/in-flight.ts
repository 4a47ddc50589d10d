/** Promises under way (a host's creates and releases), so that a dispose can wait until none is. */
export class InFlight {
  readonly #pending = new Set<Promise<unknown>>();

  /** Counts `promise` until it settles (its rejection stays the caller's to handle). */
  track(promise: Promise<unknown>): void {
    const settled: Promise<boolean> = promise.then(
      () => this.#pending.delete(settled),
      () => this.#pending.delete(settled),
    );
    this.#pending.add(settled);
  }

  /** Resolves once every tracked promise has settled, those tracked meanwhile included. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) {
      await Promise.allSettled([...this.#pending]);
    }
  }
}
