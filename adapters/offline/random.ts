/**
 * A reproducible random source for plans that must come out byte-identical in every runtime:
 * the SHAKE256 extendable output (`@noble/hashes`) of a seed, read as one stream.
 *
 * Everything drawn from it (keys with the deterministic crypto port, serial numbers, tokens) is
 * as secret as the seed: use a seed of at least 32 random bytes kept like a private key, or a
 * fixed one only for tests and examples.
 *
 * @module
 */
import { shake256 } from "@noble/hashes/sha3.js";
import { KubeadmError } from "../../core/errors.ts";
import type { RandomSource } from "../../core/ports/random.ts";

const DOMAIN = "kubeadm-ts seeded random v1\0";

/**
 * A {@link RandomSource} that returns the SHAKE256 stream of `seed` (bytes, or text taken as
 * UTF-8): the same seed gives the same bytes, in the same order, everywhere.
 */
export function seededRandom(seed: Uint8Array | string): RandomSource {
  const bytes = typeof seed === "string" ? new TextEncoder().encode(seed) : seed;
  if (bytes.length === 0) {
    throw new KubeadmError("the random seed is empty", {
      field: "seed",
      hint: "pass at least 32 random bytes (or, for tests, any fixed text)",
    });
  }
  const xof = shake256.create({}).update(new TextEncoder().encode(DOMAIN)).update(bytes);
  return { bytes: (n: number) => xof.xof(n) };
}
