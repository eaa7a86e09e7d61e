/**
 * The deterministic crypto port, on the audited `@noble/curves` (ECDSA), and the factory it
 * shares with the pure-JavaScript port (`./pure_js.ts`).
 *
 * - ECDSA keys (P-256, P-384, P-521) are derived from the caller's {@link RandomSource}
 *   (FIPS 186-5 B.4.1 reduction of `seed` bytes, noble's `randomSecretKey`), so a seeded source
 *   gives the same keys everywhere.
 * - ECDSA signatures are deterministic (RFC 6979, high S kept as Go and OpenSSL may produce
 *   it), so the same key and data give the same bytes everywhere.
 * - RSA keys cannot be derived from a seed: generating one is a {@link PkiError} naming
 *   `encryptionAlgorithm`.
 *
 * What noble does not cover goes to a delegate: {@link deterministicCryptoPort} signs and
 * checks RSA and does AES-GCM, digests and HMACs on WebCrypto (PKCS#1 v1.5 signatures and
 * AES-GCM under a given nonce are deterministic anyway); `pureJsCryptoPort` (`./pure_js.ts`)
 * touches no WebCrypto at all, for engines whose WebCrypto cannot generate, export or import
 * keys: the WebAssembly component's.
 *
 * @module
 */
import { p256, p384, p521 } from "@noble/curves/nist.js";
import { type KubeadmErrorOptions, PkiError } from "../../core/errors.ts";
import type { RandomSource } from "../../core/ports/random.ts";
import type {
  CryptoPort,
  EcCurve,
  KeyPair,
  KeySpec,
  PrivateKeyMaterial,
} from "../../core/ports/crypto.ts";
import { curveByteLength } from "../../core/pki/ec_curve.ts";
import { signatureHashFor } from "../../core/pki/signature.ts";
import { ecSpki, leftPad, publicKeyOfSpki, samePublicKeyValues } from "../../core/pki/key_der.ts";
import { encryptionAlgorithmOf } from "../../core/pki/keys.ts";
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
 * What a noble port hands on, because noble does not cover it: RSA keys and signature checks,
 * ECDSA checks under another hash than the curve's own, AES-GCM, digests and HMACs.
 */
export type NobleDelegate = Pick<
  CryptoPort,
  "importPrivateKey" | "verify" | "sealAesGcm" | "openAesGcm" | "digest" | "hmac"
>;

/** How a noble port is made. */
export interface NoblePortOptions {
  /** The error for an RSA key generation (`algorithm`: `RSA-2048`, ...). */
  rsaGenerationRefused(algorithm: string, options: KubeadmErrorOptions): PkiError;
  /** What the caller can do instead. */
  hint: string;
  /** Where the rest goes. */
  delegate: NobleDelegate;
}

/**
 * Checks an ECDSA signature (DER) with noble: over `message` hashed with the curve's own hash,
 * or, with `prehashed`, over a digest the caller computed. False when it does not verify.
 */
export function nobleVerifyEcdsa(
  spki: Uint8Array,
  curve: EcCurve,
  message: Uint8Array,
  signature: Uint8Array,
  prehashed = false,
): boolean {
  try {
    const key = publicKeyOfSpki(spki);
    if (!("point" in key)) return false;
    return CURVES[curve].verify(signature, message, key.point, {
      lowS: false,
      format: "der",
      prehash: !prehashed,
    });
  } catch {
    return false;
  }
}

/** A port with ECDSA on noble (seeded keys, RFC 6979) and the rest handed to `o.delegate`. */
export function noblePort(name: string, o: NoblePortOptions): CryptoPort {
  return {
    name,
    deterministic: true,

    generateKeyPair(spec: KeySpec, random: RandomSource): Promise<KeyPair> {
      if (spec.type === "RSA") {
        const algorithm = encryptionAlgorithmOf(spec) ?? `RSA-${spec.modulusLength}`;
        return Promise.reject(
          o.rsaGenerationRefused(algorithm, {
            field: "encryptionAlgorithm",
            value: algorithm,
            hint: o.hint,
          }),
        );
      }
      const curve = CURVES[spec.namedCurve];
      const seed = random.bytes(curve.lengths.seed!);
      return Promise.resolve(ecKey(spec.namedCurve, curve.utils.randomSecretKey(seed)));
    },

    importPrivateKey(material: PrivateKeyMaterial): Promise<KeyPair> {
      if (material.type === "RSA") return o.delegate.importPrivateKey(material);
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
      if (spec.type === "RSA" || hash !== signatureHashFor(spec)) {
        return o.delegate.verify(spki, spec, hash, data, signature);
      }
      return Promise.resolve(nobleVerifyEcdsa(spki, spec.namedCurve, data, signature));
    },

    sealAesGcm: (key, nonce, plaintext) => o.delegate.sealAesGcm(key, nonce, plaintext),
    openAesGcm: (key, nonce, sealed) => o.delegate.openAesGcm(key, nonce, sealed),
    digest: (hash, data) => o.delegate.digest(hash, data),
    hmac: (hash, key, data) => o.delegate.hmac(hash, key, data),
  };
}

/**
 * The deterministic crypto port: ECDSA on `@noble/curves` with keys derived from the run's
 * random source and RFC 6979 signatures; RSA signing and checking, AES-GCM, digests and HMACs
 * on WebCrypto; no RSA key generation. Made by a call marked pure, so that a bundle which never
 * uses it leaves it, and noble, out.
 */
export const deterministicCryptoPort: CryptoPort = /* @__PURE__ */ noblePort("deterministic", {
  rsaGenerationRefused: (algorithm, options) =>
    new PkiError(
      `a reproducible (seeded) run cannot generate ${algorithm} keys: RSA keys cannot be derived from a random seed`,
      options,
    ),
  hint:
    "use encryptionAlgorithm ECDSA-P256 or ECDSA-P384, supply the RSA keys, or leave out the seeded random source to generate them with WebCrypto",
  delegate: webCryptoPort,
});
