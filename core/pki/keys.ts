/**
 * Private/public key pairs, encoded the way kubeadm (client-go `keyutil`) writes them:
 * `RSA PRIVATE KEY` (PKCS#1) and `EC PRIVATE KEY` (SEC1 with the curve OID and public point),
 * `PUBLIC KEY` (SubjectPublicKeyInfo) for `sa.pub`. Reading also accepts PKCS#8
 * (`PRIVATE KEY`).
 *
 * Generating and importing go through the run's crypto port (`core/ports/crypto.ts`): WebCrypto,
 * or the deterministic one for reproducible plans.
 *
 * @module
 */
import type { EncryptionAlgorithm } from "../config/types.ts";
import { PkiError, UnsupportedAlgorithmError } from "../errors.ts";
import type { RandomSource } from "../ports/random.ts";
import type { CryptoPort, KeyPair, KeySpec, PrivateKeyMaterial } from "../ports/crypto.ts";
import {
  ecMaterialOfSec1,
  materialOfPkcs8,
  privateKeyDer,
  rsaMaterialOfPkcs1,
  samePublicKeyValues,
} from "./key_der.ts";
import { decodePem, encodePem } from "./pem.ts";

export type { CryptoPort, EcCurve, KeyPair, KeySpec } from "../ports/crypto.ts";

/** PEM label of a PKCS#1 RSA private key. */
const RSA_PRIVATE_KEY_BLOCK = "RSA PRIVATE KEY";
/** PEM label of a SEC1 EC private key. */
const EC_PRIVATE_KEY_BLOCK = "EC PRIVATE KEY";
/** PEM label of a PKCS#8 private key. */
const PRIVATE_KEY_BLOCK = "PRIVATE KEY";
/** PEM label of a SubjectPublicKeyInfo public key. */
const PUBLIC_KEY_BLOCK = "PUBLIC KEY";

/** Maps kubeadm's `encryptionAlgorithm` to a key shape (empty means RSA-2048, as upstream). */
export function keySpecFor(algorithm: EncryptionAlgorithm | "" | undefined): KeySpec {
  switch (algorithm) {
    case "ECDSA-P256":
      return { type: "ECDSA", namedCurve: "P-256" };
    case "ECDSA-P384":
      return { type: "ECDSA", namedCurve: "P-384" };
    case "RSA-3072":
      return { type: "RSA", modulusLength: 3072 };
    case "RSA-4096":
      return { type: "RSA", modulusLength: 4096 };
    case "RSA-2048":
    case "":
    case undefined:
      return { type: "RSA", modulusLength: 2048 };
    default:
      throw new PkiError(
        `cannot obtain key size from unknown RSA algorithm: ${JSON.stringify(algorithm)}`,
        {
          field: "encryptionAlgorithm",
          value: String(algorithm),
        },
      );
  }
}

/** The `encryptionAlgorithm` value a key corresponds to, if any (e.g. RSA-1024 has none). */
export function encryptionAlgorithmOf(spec: KeySpec): EncryptionAlgorithm | undefined {
  if (spec.type === "ECDSA") {
    return spec.namedCurve === "P-256"
      ? "ECDSA-P256"
      : spec.namedCurve === "P-384"
      ? "ECDSA-P384"
      : undefined;
  }
  return ({ 2048: "RSA-2048", 3072: "RSA-3072", 4096: "RSA-4096" } as const)[
    spec.modulusLength as 2048 | 3072 | 4096
  ];
}

/** How a key is made: the crypto port and, for a deterministic port, the entropy. */
export interface KeyOptions {
  crypto: CryptoPort;
  /** Where a deterministic port draws the key from (WebCrypto's uses its own generator). */
  random: RandomSource;
}

/** Generates a new key pair (`RSA-*` with e = 65537, or ECDSA on P-256/P-384). */
export function generateKeyPair(
  algorithm: EncryptionAlgorithm | KeySpec,
  opts: KeyOptions,
): Promise<KeyPair> {
  const spec = typeof algorithm === "string" ? keySpecFor(algorithm) : algorithm;
  return opts.crypto.generateKeyPair(spec, opts.random);
}

/** The SubjectPublicKeyInfo DER of a key pair. */
export function exportSPKI(key: KeyPair): Promise<Uint8Array> {
  return Promise.resolve(key.spki);
}

/** The private key in kubeadm's on-disk DER form: PKCS#1 for RSA, SEC1 for ECDSA. */
async function exportPrivateKeyDER(
  key: KeyPair,
): Promise<{ type: string; der: Uint8Array }> {
  const material = await key.exportPrivate();
  return {
    type: material.type === "RSA" ? RSA_PRIVATE_KEY_BLOCK : EC_PRIVATE_KEY_BLOCK,
    der: privateKeyDer(material),
  };
}

/** `RSA PRIVATE KEY` or `EC PRIVATE KEY` PEM, exactly the blocks upstream writes for `*.key`. */
export async function encodePrivateKeyPEM(key: KeyPair): Promise<string> {
  const { type, der } = await exportPrivateKeyDER(key);
  return encodePem(type, der);
}

/** `PUBLIC KEY` PEM (SubjectPublicKeyInfo), as written to `sa.pub`. */
export function encodePublicKeyPEM(key: KeyPair): Promise<string> {
  return Promise.resolve(encodePem(PUBLIC_KEY_BLOCK, key.spki));
}

/** The material of one PEM block, if it is a private key block kubeadm reads. */
function materialOfBlock(
  type: string,
  bytes: Uint8Array,
  path: string,
): PrivateKeyMaterial | undefined {
  if (type === RSA_PRIVATE_KEY_BLOCK) return rsaMaterialOfPkcs1(bytes);
  if (type === EC_PRIVATE_KEY_BLOCK) return ecMaterialOfSec1(bytes);
  if (type !== PRIVATE_KEY_BLOCK) return undefined;
  const r = materialOfPkcs8(bytes);
  if ("material" in r) return r.material;
  throw new PkiError(`the private key file ${path} is neither in RSA nor ECDSA format`, {
    field: path,
    hint: "kubeadm only uses RSA and ECDSA keys",
  });
}

/**
 * Reads the first private key of a PEM text: `RSA PRIVATE KEY`, `EC PRIVATE KEY` or
 * `PRIVATE KEY` (PKCS#8), through `crypto`. Errors use upstream's wording; `path` names the
 * file in them.
 */
export async function parsePrivateKeyPEM(
  pem: string | Uint8Array,
  crypto: CryptoPort,
  path = "<input>",
): Promise<KeyPair> {
  for (const block of decodePem(pem)) {
    // Like client-go's keyutil, a block that fails to parse is skipped, not fatal.
    try {
      const material = materialOfBlock(block.type, block.bytes, path);
      if (material) return await crypto.importPrivateKey(material);
    } catch (e) {
      if (e instanceof UnsupportedAlgorithmError) throw e;
      if (e instanceof PkiError && e.message.startsWith("the private key file")) throw e;
    }
  }
  throw new PkiError(
    `error reading private key file ${path}: data does not contain a valid RSA or ECDSA private key`,
    { field: path },
  );
}

/**
 * The SubjectPublicKeyInfo DER of the first `PUBLIC KEY` block of a PEM text (`sa.pub`). Errors
 * use upstream's wording; `path` names the file in them.
 */
export function parsePublicKeyPEM(pem: string | Uint8Array, path = "<input>"): Uint8Array {
  const block = decodePem(pem).find((b) => b.type === PUBLIC_KEY_BLOCK);
  if (!block) {
    throw new PkiError(
      `error reading public key file ${path}: data does not contain any valid RSA or ECDSA public keys`,
      { field: path },
    );
  }
  return block.bytes;
}

/** True when two public keys (SPKI DER) denote the same key, compared by value not encoding. */
export function samePublicKey(a: Uint8Array, b: Uint8Array): Promise<boolean> {
  try {
    return Promise.resolve(samePublicKeyValues(a, b));
  } catch (e) {
    return Promise.reject(e);
  }
}
