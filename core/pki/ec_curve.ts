/**
 * The NIST curves' sizes and group orders, and FIPS 186-5's derivation of a private scalar from
 * random bytes: what the deterministic crypto ports use to derive EC keys from a run's random
 * source, and what the key encodings size their fields by.
 *
 * @module
 */
import type { EcCurve } from "../ports/crypto.ts";

/** The byte length of a curve's scalars and coordinates. */
export function curveByteLength(curve: EcCurve): number {
  return curve === "P-256" ? 32 : curve === "P-384" ? 48 : 66;
}

/** Each curve's group order n (FIPS 186-5 / SEC 2), the bound of its private scalars. */
export const CURVE_ORDER: Readonly<Record<EcCurve, bigint>> = {
  "P-256": 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  "P-384":
    0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
  "P-521":
    0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
};

/**
 * The length of the random seed an EC private scalar is drawn from: the scalar's length plus
 * half again, so that reducing it modulo n − 1 is biased by at most 2^-128 (FIPS 186-5 A.2.1
 * asks for 64 extra bits; this is the length noble's `getMinHashLength` gives).
 */
export function ecSeedLength(curve: EcCurve): number {
  const n = curveByteLength(curve);
  return n + Math.ceil(n / 2);
}

/**
 * The private scalar d = (seed mod (n − 1)) + 1 of FIPS 186-5 A.2.1, big-endian in the curve's
 * scalar length: always in [1, n − 1]. `seed` holds at least {@link ecSeedLength} random bytes.
 */
export function ecScalarFromSeed(curve: EcCurve, seed: Uint8Array): Uint8Array {
  if (seed.length < ecSeedLength(curve)) {
    throw new RangeError(`an EC seed for ${curve} needs ${ecSeedLength(curve)} bytes`);
  }
  let c = 0n;
  for (const b of seed) c = (c << 8n) | BigInt(b);
  let d = (c % (CURVE_ORDER[curve] - 1n)) + 1n;
  const out = new Uint8Array(curveByteLength(curve));
  for (let i = out.length - 1; i >= 0; i--, d >>= 8n) out[i] = Number(d & 0xffn);
  return out;
}
