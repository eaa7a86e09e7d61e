/**
 * Keys generated ahead of time, concurrently.
 *
 * RSA key generation dominates `kubeadm init`'s certificate phases. WebCrypto generates keys
 * off the main thread, so starting every key a run will need at once (and only then signing
 * and writing in upstream's order) cuts that time to roughly one key's worth per core. A pool
 * belongs to one run (see {@link keyPoolFor}); each key is taken once.
 *
 * @module
 */
import type { EncryptionAlgorithm } from "../config/types.ts";
import { generateKeyPair, type KeyOptions, type KeyPair } from "./keys.ts";

/**
 * Pending keys by purpose (e.g. `cert:apiserver`, `kubeconfig:admin.conf`). With a
 * deterministic crypto port, keys are drawn from the run's random source in the order they are
 * requested, so the same run gives the same keys.
 */
export class KeyPool {
  /** Pending keys; a provided key has no algorithm and is taken whatever the run asks for. */
  readonly #pending = new Map<
    string,
    { algorithm?: EncryptionAlgorithm; key: Promise<KeyPair> }
  >();
  readonly #maker: KeyOptions;

  /** @param maker what the pool makes keys with: the run's crypto port and random source. */
  constructor(maker: KeyOptions) {
    this.#maker = maker;
  }

  #generate(algorithm: EncryptionAlgorithm): Promise<KeyPair> {
    return generateKeyPair(algorithm, this.#maker);
  }

  /**
   * Hands out `key` for `id` instead of generating one (keys a caller brings: a plan given
   * existing keys).
   */
  provide(id: string, key: KeyPair): void {
    this.#pending.set(id, { key: Promise.resolve(key) });
  }

  /** Starts generating a key for `id` unless one is already pending. */
  prefetch(id: string, algorithm: EncryptionAlgorithm): void {
    if (this.#pending.has(id)) return;
    const key = this.#generate(algorithm);
    // A prefetched key may never be taken (the phase fails first); don't report that as unhandled.
    key.catch(() => {});
    this.#pending.set(id, { algorithm, key });
  }

  /** Starts every listed key at once. */
  prefetchAll(ids: Iterable<string>, algorithm: EncryptionAlgorithm): void {
    for (const id of ids) this.prefetch(id, algorithm);
  }

  /** The key for `id`: the prefetched one (removed from the pool) or a freshly generated one. */
  take(id: string, algorithm: EncryptionAlgorithm): Promise<KeyPair> {
    const hit = this.#pending.get(id);
    this.#pending.delete(id);
    if (hit && (hit.algorithm === undefined || hit.algorithm === algorithm)) return hit.key;
    return this.#generate(algorithm);
  }

  /** Ids with a key still pending or unclaimed. */
  get pendingIds(): string[] {
    return [...this.#pending.keys()];
  }
}

const pools = new WeakMap<object, KeyPool>();

/**
 * The pool attached to a run's data object (created on first use, garbage-collected with it),
 * making keys with the run's crypto port and random source.
 */
export function keyPoolFor(owner: KeyOptions): KeyPool {
  let pool = pools.get(owner);
  if (!pool) {
    pool = new KeyPool(owner);
    pools.set(owner, pool);
  }
  return pool;
}
