/**
 * Results of pure functions of a text, remembered per isolate and bounded: emptied when full, so
 * a long-lived process (an edge function's isolate) never grows it without end. Only for values
 * that are not secret; failures are never remembered (callers remember what they computed).
 *
 * @module
 */

/** A bounded map from a text to what a pure function gave for it. */
export class BoundedMemo<T> {
  readonly #values = new Map<string, T>();
  readonly #max: number;

  /** @param max entries kept before the memo starts over */
  constructor(max: number) {
    this.#max = max;
  }

  /** The value remembered for `key`, if any. */
  get(key: string): T | undefined {
    return this.#values.get(key);
  }

  /** Remembers `value` for `key` and returns it. */
  set(key: string, value: T): T {
    if (this.#values.size >= this.#max) this.#values.clear();
    this.#values.set(key, value);
    return value;
  }
}
