/**
 * The NIST curves' sizes and group orders, and FIPS 186-5's derivation of a private scalar from
 * random bytes: what the deterministic crypto ports use to derive EC keys from a run's random
 * source, and what the key encodings size their fields by.
 *
 * @module
 */
import { bigintFromBytes, bytesFromBigint } from "../bigint.ts";
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
  const d = (bigintFromBytes(seed) % (CURVE_ORDER[curve] - 1n)) + 1n;
  return bytesFromBigint(d, curveByteLength(curve));
}

/** A NIST prime curve Go's x509 reads public keys on, named as Go's errors name it. */
export type PrimeCurveName = "P224" | "P256" | "P384" | "P521";

/** Each curve's coordinate length, field prime p and coefficient b of y² = x³ − 3x + b (SEC 2). */
const PRIME_CURVES: Readonly<Record<PrimeCurveName, { bytes: number; p: bigint; b: bigint }>> = {
  P224: {
    bytes: 28,
    p: 0xffffffffffffffffffffffffffffffff000000000000000000000001n,
    b: 0xb4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4n,
  },
  P256: {
    bytes: 32,
    p: 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn,
    b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
  },
  P384: {
    bytes: 48,
    p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffffn,
    b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
  },
  P521: {
    bytes: 66,
    p: (1n << 521n) - 1n,
    b: 0x51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n,
  },
};

/**
 * What is wrong with an uncompressed point (`04 || x || y`) on `curve`, in Go's words
 * (crypto/internal/fips140/nistec): its length, a coordinate not below p, or a point not on the
 * curve; `undefined` for a valid point. Go's x509 refuses such a key when it parses the
 * certificate, so a CA with one is refused before it is trusted, as upstream's.
 */
export function ecPointProblem(curve: PrimeCurveName, point: Uint8Array): string | undefined {
  const { bytes, p, b } = PRIME_CURVES[curve];
  if (point.length !== 1 + 2 * bytes || point[0] !== 4) return `invalid ${curve} point encoding`;
  const x = bigintFromBytes(point.subarray(1, 1 + bytes));
  const y = bigintFromBytes(point.subarray(1 + bytes));
  if (x >= p || y >= p) return `invalid ${curve}Element encoding`;
  const rhs = (((x * x) % p) * x - 3n * x + b) % p;
  return ((y * y - rhs) % p + p) % p === 0n ? undefined : `${curve} point not on curve`;
}
