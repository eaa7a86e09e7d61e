/**
 * The crypto port: everything the core does with private keys (generate, import, sign),
 * public-key signature checks, AES-GCM, digests and HMACs, behind one interface with three
 * implementations (`adapters/crypto/`); no core module calls `crypto.subtle` itself:
 *
 * - `webCryptoPort` (`webcrypto.ts`): the platform's WebCrypto. The CLI's choice: fast, keys
 *   generated off the main thread; ECDSA signatures are randomised.
 * - `deterministicCryptoPort` (`noble.ts`): pure JavaScript on the audited
 *   `@noble/curves`. ECDSA keys are derived from the caller's {@link RandomSource} and ECDSA
 *   signatures are deterministic (RFC 6979), so a seeded run gives byte-identical output in
 *   every runtime. RSA signing and checking and AES-GCM stay on WebCrypto there (PKCS#1 v1.5
 *   signatures are deterministic anyway), and so do digests and HMACs; RSA keys cannot be
 *   derived from a seed, so generating one is an error naming the option.
 * - `pureJsCryptoPort` (`pure_js.ts`): the same without WebCrypto at all (AES-GCM on
 *   `@noble/ciphers`, digests and HMACs on `@noble/hashes`, no RSA), for engines whose WebCrypto cannot generate, export or import
 *   keys, such as the WebAssembly component's (`wasm/`).
 *
 * Which one a run uses is its `crypto` (see `RunContext`), picked by the face (the CLI, the
 * library, the component); keys remember the implementation
 * that made them, so signing needs no port argument.
 *
 * @module
 */
import type { RandomSource } from "./random.ts";

/** Supported named curves. */
export type EcCurve = "P-256" | "P-384" | "P-521";

/** The shape of a key: RSA with its modulus size, or ECDSA on a named curve. */
export type KeySpec =
  | { type: "RSA"; modulusLength: number }
  | { type: "ECDSA"; namedCurve: EcCurve };

/** Hash names used by X.509 signatures, pins and HMACs (WebCrypto spelling). */
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

/**
 * Hashing and message authentication: what the core computes over public data and token
 * secrets (CA pins, subject key identifiers, the component configs' checksum, the JWS that
 * signs `cluster-info`). The half of the port that holds no private key.
 */
export interface Hashing {
  /** The digest of `data` under `hash`. */
  digest(hash: HashName, data: Uint8Array): Promise<Uint8Array>;
  /** The HMAC of `data` under `key` (at least one byte long) with `hash`. */
  hmac(hash: HashName, key: Uint8Array, data: Uint8Array): Promise<Uint8Array>;
}

/** One implementation of the core's private-key, signature and hash operations. */
export interface CryptoPort extends Hashing {
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
