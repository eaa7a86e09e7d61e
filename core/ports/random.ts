/**
 * The randomness port: where keys, tokens, serial numbers and nonces draw their bytes from
 * (the platform's CSPRNG, or a seeded stream for a reproducible plan).
 *
 * @module
 */

/** Cryptographically secure random bytes. */
export interface RandomSource {
  /** The next `n` random bytes. */
  bytes(n: number): Uint8Array;
}
