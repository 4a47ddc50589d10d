type Listener<Args extends unknown[]> = (...args: Args) => void;

/**
 * A small typed event emitter. A listener that throws does not reach the emitter (the emit comes
 * from a child's output stream or exit, which must go on): the error becomes a process warning.
 */
export class TypedEvents<Events extends { [K in keyof Events]: unknown[] }> {
  readonly #listeners = new Map<keyof Events, Set<Listener<never>>>();
  /**
   * Each event's listeners as an array, made once per change of them: an emit (one per chunk of
   * output) iterates it without copying the set, and a listener added or removed meanwhile counts
   * from the next emit on.
   */
  readonly #snapshots = new Map<keyof Events, Array<Listener<never>>>();

  on<E extends keyof Events>(event: E, listener: Listener<Events[E]>): void {
    let set = this.#listeners.get(event);
    if (!set) {
      this.#listeners.set(event, (set = new Set()));
    }
    set.add(listener as Listener<never>);
    this.#snapshots.delete(event);
  }

  off<E extends keyof Events>(event: E, listener: Listener<Events[E]>): void {
    const set = this.#listeners.get(event);
    if (!set) {
      return;
    }
    this.#snapshots.delete(event);
    if (set.delete(listener as Listener<never>)) {
      return;
    }
    // A listener added with once() is registered through its wrapper.
    for (const registered of set) {
      if ("listener" in registered && registered.listener === listener) {
        set.delete(registered);
        return;
      }
    }
  }

  once<E extends keyof Events>(event: E, listener: Listener<Events[E]>): void {
    const wrapper = Object.assign(
      (...args: Events[E]) => {
        this.off(event, wrapper);
        listener(...args);
      },
      { listener },
    );
    this.on(event, wrapper);
  }

  /** Whether any listener would receive `event` (lets an emitter skip building its arguments). */
  has(event: keyof Events): boolean {
    return (this.#listeners.get(event)?.size ?? 0) > 0;
  }

  emit<E extends keyof Events>(event: E, ...args: Events[E]): void {
    let listeners = this.#snapshots.get(event);
    if (listeners === undefined) {
      const set = this.#listeners.get(event);
      if (!set) {
        return;
      }
      listeners = [...set];
      this.#snapshots.set(event, listeners);
    }
    for (const listener of listeners) {
      try {
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the set under `event` holds only that event's listeners (on() adds them so); a Map cannot tie each key's value type to its key
        (listener as Listener<Events[E]>)(...args);
      } catch (error) {
        process.emitWarning(`A TerminalHost "${String(event)}" listener threw: ${String(error)}`, {
          type: "TerminalHostListenerWarning",
          detail: error instanceof Error ? error.stack : undefined,
        });
      }
    }
  }
}
