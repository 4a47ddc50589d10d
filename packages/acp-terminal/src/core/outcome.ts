/** A promise settled from outside, once: the first `resolve` or `reject` wins. */
export class Outcome<T> {
  readonly promise: Promise<T>;
  #resolve: (value: T) => void = () => {};
  #reject: (error: unknown) => void = () => {};

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  resolve(value: T): void {
    this.#resolve(value);
  }

  reject(error: unknown): void {
    this.#reject(error);
  }
}
