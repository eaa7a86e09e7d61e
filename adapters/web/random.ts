/**
 * The randomness port on the web platform's CSPRNG (`crypto.getRandomValues`).
 *
 * @module
 */
import type { RandomSource } from "../../core/ports/random.ts";

/** The web platform's CSPRNG (`crypto.getRandomValues`). */
export const webRandom: RandomSource = {
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 65536) {
      crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
    }
    return out;
  },
};
