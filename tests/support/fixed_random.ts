/**
 * Deterministic {@link RandomSource}s for tests: a seeded generator and a replay of fixed bytes.
 *
 * @module
 */
import type { RandomSource } from "../../core/ports/random.ts";

/** A reproducible pseudo-random source (xorshift32); NOT for production use. */
export function seededRandom(seed = 0x9e3779b9): RandomSource {
  let x = seed >>> 0 || 1;
  return {
    bytes(n: number): Uint8Array {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        x ^= x << 13;
        x >>>= 0;
        x ^= x >>> 17;
        x ^= x << 5;
        x >>>= 0;
        out[i] = x & 0xff;
      }
      return out;
    },
  };
}

/** Replays the given bytes in order (then zeros), to force exact values such as serials. */
export function replayRandom(...chunks: number[][]): RandomSource {
  const queue = chunks.flat();
  return {
    bytes(n: number): Uint8Array {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = queue.shift() ?? 0;
      return out;
    },
  };
}
