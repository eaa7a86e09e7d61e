/**
 * The deterministic crypto port: pure JavaScript on the audited `@noble/curves`.
 *
 * - ECDSA keys (P-256, P-384, P-521) are derived from the caller's {@link RandomSource}
 *   (FIPS 186-5 B.4.1 reduction of `seed` bytes, noble's `randomSecretKey`), so a seeded source
 *   gives the same keys everywhere.
 * - ECDSA signatures are deterministic (RFC 6979, high S kept as Go and OpenSSL may produce
 *   it), so the same key and data give the same bytes everywhere.
 * - RSA: signing and checking stay on WebCrypto (PKCS#1 v1.5 signatures are deterministic),
 *   but an RSA key cannot be derived from a seed: generating one is a {@link PkiError} naming
 *   `encryptionAlgorithm`.
 *
 * It also works where WebCrypto cannot generate or export keys (a WebAssembly component).
 *
 * @module
 */
import { p256, p384, p521 } from "@noble/curves/nist.js";
import { PkiError } from "../errors.ts";
import type { RandomSource } from "../host/ports.ts";
import {
  type CryptoPort,
  curveByteLength,
  type EcCurve,
  type KeyPair,
  type KeySpec,
  type PrivateKeyMaterial,
  signatureHashFor,
} from "./crypto.ts";
import { ecSpki, leftPad, publicKeyOfSpki, samePublicKeyValues } from "./key_der.ts";
import { encryptionAlgorithmOf } from "./keys.ts";
import { webCryptoPort } from "./webcrypto.ts";

const CURVES = { "P-256": p256, "P-384": p384, "P-521": p521 } as const;

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

/**
 * The deterministic crypto port: ECDSA on `@noble/curves` with keys derived from the run's
 * random source and RFC 6979 signatures; RSA signing and checking on WebCrypto; no RSA key
 * generation.
 */
export const deterministicCryptoPort: CryptoPort = {
  name: "deterministic",
  deterministic: true,

  generateKeyPair(spec: KeySpec, random: RandomSource): Promise<KeyPair> {
    if (spec.type === "RSA") {
      const algorithm = encryptionAlgorithmOf(spec) ?? `RSA-${spec.modulusLength}`;
      return Promise.reject(
        new PkiError(
          `a reproducible (seeded) run cannot generate ${algorithm} keys: RSA keys cannot be derived from a random seed`,
          {
            field: "encryptionAlgorithm",
            value: algorithm,
            hint:
              "use encryptionAlgorithm ECDSA-P256 or ECDSA-P384, supply the RSA keys, or leave out the seeded random source to generate them with WebCrypto",
          },
        ),
      );
    }
    const curve = CURVES[spec.namedCurve];
    const seed = random.bytes(curve.lengths.seed!);
    return Promise.resolve(ecKey(spec.namedCurve, curve.utils.randomSecretKey(seed)));
  },

  importPrivateKey(material: PrivateKeyMaterial): Promise<KeyPair> {
    if (material.type === "RSA") return webCryptoPort.importPrivateKey(material);
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
    // RSA, and ECDSA with another hash than the curve's own, are checked by WebCrypto.
    if (spec.type === "RSA" || hash !== signatureHashFor(spec)) {
      return webCryptoPort.verify(spki, spec, hash, data, signature);
    }
    const curve = CURVES[spec.namedCurve];
    try {
      const key = publicKeyOfSpki(spki);
      if (!("point" in key)) return Promise.resolve(false);
      const point = key.point;
      return Promise.resolve(
        curve.verify(signature, data, point, { lowS: false, format: "der" }),
      );
    } catch {
      return Promise.resolve(false);
    }
  },
};
