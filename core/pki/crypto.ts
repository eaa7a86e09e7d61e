/**
 * The crypto port: everything the core does with private keys (generate, import, sign) and
 * public-key signature checks, behind one interface with two implementations:
 *
 * - {@link webCryptoPort} (`core/pki/webcrypto.ts`): the platform's WebCrypto. The CLI's
 *   default: fast, keys generated off the main thread; ECDSA signatures are randomised.
 * - `deterministicCryptoPort` (`core/pki/noble.ts`): pure JavaScript on the audited
 *   `@noble/curves`. ECDSA keys are derived from the caller's {@link RandomSource} and ECDSA
 *   signatures are deterministic (RFC 6979), so a seeded run gives byte-identical output in
 *   every runtime. RSA signing and checking and AES-GCM stay on WebCrypto there (PKCS#1 v1.5
 *   signatures are deterministic anyway); RSA keys cannot be derived from a seed, so
 *   generating one is an error naming the option.
 * - `pureJsCryptoPort` (`core/pki/pure_js.ts`): the same without WebCrypto at all (AES-GCM on
 *   `@noble/ciphers`, no RSA), for engines whose WebCrypto cannot generate, export or import
 *   keys, such as the WebAssembly component's (`wasm/`).
 *
 * Which one a run uses is its `crypto` (see `RunContext`); keys remember the implementation
 * that made them, so signing needs no port argument.
 *
 * @module
 */
import type { RandomSource } from "../host/ports.ts";

/** Supported named curves. */
export type EcCurve = "P-256" | "P-384" | "P-521";

/** The shape of a key: RSA with its modulus size, or ECDSA on a named curve. */
export type KeySpec =
  | { type: "RSA"; modulusLength: number }
  | { type: "ECDSA"; namedCurve: EcCurve };

/** Hash names used by X.509 signatures (WebCrypto spelling). */
export type HashName = "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512";

/** A private key's material in the form kubeadm stores it. */
export type PrivateKeyMaterial =
  /** PKCS#1 `RSAPrivateKey` DER. */
  | { type: "RSA"; pkcs1: Uint8Array }
  /** An EC private scalar (big-endian, curve size) and, when known, the uncompressed point. */
  | { type: "ECDSA"; namedCurve: EcCurve; d: Uint8Array; point?: Uint8Array };

/**
 * A usable private key (Go's `crypto.Signer`): its shape, its public half and a way to sign
 * with it, bound to the implementation that made or imported it.
 */
export interface KeyPair {
  /** RSA with its size, or ECDSA with its curve. */
  readonly spec: KeySpec;
  /** The public key as SubjectPublicKeyInfo DER. */
  readonly spki: Uint8Array;
  /**
   * Signs `data` with the algorithm Go's x509 picks for the key (SHA-256 with RSA PKCS#1 v1.5;
   * ECDSA with the curve's hash), returning the signature as X.509 carries it (DER for ECDSA).
   */
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** The private key's material, to write it to disk. */
  exportPrivate(): Promise<PrivateKeyMaterial>;
}

/** One implementation of the core's private-key and signature operations. */
export interface CryptoPort {
  /** `webcrypto` or `deterministic`. */
  readonly name: string;
  /** True when the same inputs (random source included) give the same keys and signatures. */
  readonly deterministic: boolean;
  /**
   * A new key pair of the shape. A deterministic port derives it from `random`; WebCrypto uses
   * its own generator and ignores it.
   */
  generateKeyPair(spec: KeySpec, random: RandomSource): Promise<KeyPair>;
  /** A key pair from stored material (`PrivateKeyMaterial`). */
  importPrivateKey(material: PrivateKeyMaterial): Promise<KeyPair>;
  /**
   * Checks a signature as X.509 carries it over `data` with the public key `spki` (of shape
   * `spec`) and hash; false when it does not verify.
   */
  verify(
    spki: Uint8Array,
    spec: KeySpec,
    hash: HashName,
    data: Uint8Array,
    signature: Uint8Array,
  ): Promise<boolean>;
  /**
   * AES-GCM encryption (the `kubeadm-certs` Secret) under a 16-, 24- or 32-byte key and a
   * 12-byte nonce, 16-byte tag, no additional data: returns `ciphertext ‖ tag`.
   */
  sealAesGcm(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array>;
  /** Opens {@link CryptoPort.sealAesGcm}'s `ciphertext ‖ tag`; rejects when it does not authenticate. */
  openAesGcm(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): Promise<Uint8Array>;
}

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

/** The hash Go's x509 signs with for a key (SHA-256 for RSA; the curve's hash for ECDSA). */
export function signatureHashFor(spec: KeySpec): HashName {
  if (spec.type === "RSA") return "SHA-256";
  return spec.namedCurve === "P-256"
    ? "SHA-256"
    : spec.namedCurve === "P-384"
    ? "SHA-384"
    : "SHA-512";
}
