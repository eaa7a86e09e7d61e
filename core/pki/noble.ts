/**
 * The crypto ports on pure JavaScript: the audited `@noble/curves` (ECDSA) and
 * `@noble/ciphers` (AES-GCM), with `@noble/hashes`.
 *
 * - ECDSA keys (P-256, P-384, P-521) are derived from the caller's {@link RandomSource}
 *   (FIPS 186-5 B.4.1 reduction of `seed` bytes, noble's `randomSecretKey`), so a seeded source
 *   gives the same keys everywhere.
 * - ECDSA signatures are deterministic (RFC 6979, high S kept as Go and OpenSSL may produce
 *   it), so the same key and data give the same bytes everywhere.
 * - RSA keys cannot be derived from a seed: generating one is a {@link PkiError} naming
 *   `encryptionAlgorithm`.
 *
 * Two ports share this: {@link deterministicCryptoPort} signs and checks RSA and does AES-GCM
 * on WebCrypto (PKCS#1 v1.5 signatures and AES-GCM under a given nonce are deterministic
 * anyway); {@link pureJsCryptoPort} touches no WebCrypto key operation at all (AES-GCM on
 * `@noble/ciphers`, RSA refused), for engines whose WebCrypto cannot generate, export or
 * import keys: the WebAssembly component's.
 *
 * @module
 */
import { p256, p384, p521 } from "@noble/curves/nist.js";
import { gcm } from "@noble/ciphers/aes.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { type KubeadmErrorOptions, PkiError, UnsupportedAlgorithmError } from "../errors.ts";
import type { RandomSource } from "../host/ports.ts";
import {
  type CryptoPort,
  curveByteLength,
  type EcCurve,
  type HashName,
  type KeyPair,
  type KeySpec,
  type PrivateKeyMaterial,
  signatureHashFor,
} from "./crypto.ts";
import { ecSpki, leftPad, publicKeyOfSpki, samePublicKeyValues } from "./key_der.ts";
import { encryptionAlgorithmOf } from "./keys.ts";
import { webCryptoPort } from "./webcrypto.ts";

const CURVES = { "P-256": p256, "P-384": p384, "P-521": p521 } as const;
const HASHES: Record<HashName, (data: Uint8Array) => Uint8Array> = {
  "SHA-1": sha1,
  "SHA-256": sha256,
  "SHA-384": sha384,
  "SHA-512": sha512,
};

/** An ECDSA key held as its scalar, signing with RFC 6979 nonces. */
class NobleKeyPair implements KeyPair {
  readonly spec: KeySpec;
  readonly spki: Uint8Array;
  readonly #curve: EcCurve;
  readonly #d: Uint8Array;
  readonly #point: Uint8Array;

  constructor(curve: EcCurve, d: Uint8Array, point: Uint8Array) {
    this.spec = { type: "ECDSA", namedCurve: curve };
    this.#curve = curve;
    this.#d = d;
    this.#point = point;
    this.spki = ecSpki(curve, point);
  }

  sign(data: Uint8Array): Promise<Uint8Array> {
    return Promise.resolve(
      CURVES[this.#curve].sign(data, this.#d, { lowS: false, format: "der" }),
    );
  }

  exportPrivate(): Promise<PrivateKeyMaterial> {
    return Promise.resolve({
      type: "ECDSA",
      namedCurve: this.#curve,
      d: this.#d.slice(),
      point: this.#point.slice(),
    });
  }
}

function ecKey(curve: EcCurve, d: Uint8Array): KeyPair {
  const scalar = leftPad(d, curveByteLength(curve));
  return new NobleKeyPair(curve, scalar, CURVES[curve].getPublicKey(scalar, false));
}

/** What a port does for RSA and AES-GCM, which noble does not cover. */
interface Fallback {
  /** The error for an RSA key generation (`algorithm`: `RSA-2048`, ...). */
  rsaGenerationRefused(algorithm: string, options: KubeadmErrorOptions): PkiError;
  /** What the caller can do instead. */
  hint: string;
  /** RSA import, signing and checking, and AES-GCM; absent: RSA refused, AES-GCM on noble. */
  port?: CryptoPort;
}

function rsaUnsupported(what: string): PkiError {
  return new UnsupportedAlgorithmError(
    `the pure-JavaScript crypto port (the WebAssembly component) cannot ${what}: it has no RSA implementation (ECDSA only)`,
    { hint: "use ECDSA keys (encryptionAlgorithm ECDSA-P256 or ECDSA-P384)" },
  );
}

function noblePort(name: string, fallback: Fallback): CryptoPort {
  const rsa = fallback.port;
  return {
    name,
    deterministic: true,

    generateKeyPair(spec: KeySpec, random: RandomSource): Promise<KeyPair> {
      if (spec.type === "RSA") {
        const algorithm = encryptionAlgorithmOf(spec) ?? `RSA-${spec.modulusLength}`;
        return Promise.reject(
          fallback.rsaGenerationRefused(algorithm, {
            field: "encryptionAlgorithm",
            value: algorithm,
            hint: fallback.hint,
          }),
        );
      }
      const curve = CURVES[spec.namedCurve];
      const seed = random.bytes(curve.lengths.seed!);
      return Promise.resolve(ecKey(spec.namedCurve, curve.utils.randomSecretKey(seed)));
    },

    importPrivateKey(material: PrivateKeyMaterial): Promise<KeyPair> {
      if (material.type === "RSA") {
        return rsa
          ? rsa.importPrivateKey(material)
          : Promise.reject(rsaUnsupported("use RSA private keys"));
      }
      try {
        const key = ecKey(material.namedCurve, material.d);
        if (
          material.point &&
          !samePublicKeyValues(key.spki, ecSpki(material.namedCurve, material.point))
        ) {
          throw new PkiError("x509: EC private key does not match its public key");
        }
        return Promise.resolve(key);
      } catch (e) {
        return Promise.reject(
          e instanceof PkiError
            ? e
            : new PkiError("x509: failed to parse EC private key", { cause: e }),
        );
      }
    },

    verify(spki, spec, hash, data, signature): Promise<boolean> {
      if (spec.type === "RSA") {
        return rsa
          ? rsa.verify(spki, spec, hash, data, signature)
          : Promise.reject(rsaUnsupported("check RSA signatures"));
      }
      // ECDSA with another hash than the curve's own: the fallback's, else noble over the digest.
      const ownHash = hash === signatureHashFor(spec);
      if (!ownHash && rsa) return rsa.verify(spki, spec, hash, data, signature);
      const curve = CURVES[spec.namedCurve];
      try {
        const key = publicKeyOfSpki(spki);
        if (!("point" in key)) return Promise.resolve(false);
        const message = ownHash ? data : HASHES[hash](data);
        return Promise.resolve(
          curve.verify(signature, message, key.point, {
            lowS: false,
            format: "der",
            prehash: ownHash,
          }),
        );
      } catch {
        return Promise.resolve(false);
      }
    },

    sealAesGcm(key, nonce, plaintext): Promise<Uint8Array> {
      if (rsa) return rsa.sealAesGcm(key, nonce, plaintext);
      try {
        return Promise.resolve(gcm(key, nonce).encrypt(plaintext));
      } catch (e) {
        return Promise.reject(e);
      }
    },

    openAesGcm(key, nonce, sealed): Promise<Uint8Array> {
      if (rsa) return rsa.openAesGcm(key, nonce, sealed);
      try {
        return Promise.resolve(gcm(key, nonce).decrypt(sealed));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}

/**
 * The deterministic crypto port: ECDSA on `@noble/curves` with keys derived from the run's
 * random source and RFC 6979 signatures; RSA signing and checking and AES-GCM on WebCrypto; no
 * RSA key generation.
 */
export const deterministicCryptoPort: CryptoPort = noblePort("deterministic", {
  rsaGenerationRefused: (algorithm, options) =>
    new PkiError(
      `a reproducible (seeded) run cannot generate ${algorithm} keys: RSA keys cannot be derived from a random seed`,
      options,
    ),
  hint:
    "use encryptionAlgorithm ECDSA-P256 or ECDSA-P384, supply the RSA keys, or leave out the seeded random source to generate them with WebCrypto",
  port: webCryptoPort,
});

/**
 * The pure-JavaScript crypto port: the deterministic port without any WebCrypto key operation
 * (AES-GCM on `@noble/ciphers`; RSA keys and RSA signatures refused with an
 * {@link UnsupportedAlgorithmError}). The WebAssembly component's: its engine's WebCrypto has no
 * `generateKey`/`exportKey` and traps importing EC or RSA keys.
 */
export const pureJsCryptoPort: CryptoPort = noblePort("pure-js", {
  rsaGenerationRefused: (algorithm, options) =>
    new UnsupportedAlgorithmError(
      `the pure-JavaScript crypto port (the WebAssembly component) cannot generate ${algorithm} keys: it has no RSA implementation (ECDSA only)`,
      options,
    ),
  hint: "use encryptionAlgorithm ECDSA-P256 or ECDSA-P384",
});
