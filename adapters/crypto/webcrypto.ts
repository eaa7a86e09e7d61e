/**
 * The crypto port on the platform's WebCrypto (`crypto.subtle`): the CLI's implementation, and
 * the library's unless its caller picks another.
 *
 * WebCrypto exports PKCS#8/JWK/SPKI only, so PKCS#1 is the inner OCTET STRING of the PKCS#8
 * export and a SEC1 key is rebuilt from the JWK; imports wrap the other way round. ECDSA
 * signatures are randomised and converted between WebCrypto's raw `r||s` and X.509's DER.
 *
 * @module
 */
import { PkiError } from "../../core/errors.ts";
import type {
  CryptoPort,
  EcCurve,
  Hashing,
  HashName,
  KeyPair,
  KeySpec,
  PrivateKeyMaterial,
} from "../../core/ports/crypto.ts";
import { curveByteLength, ecScalarFromSeed, ecSeedLength } from "../../core/pki/ec_curve.ts";
import { signatureHashFor } from "../../core/pki/signature.ts";
import { integer, sequence } from "../../core/pki/der.ts";
import { base64UrlDecode, base64UrlEncode } from "../../core/text/base64.ts";
import {
  childrenOf,
  type DerElement,
  isUniversal,
  readDer,
  TAG,
} from "../../core/pki/der_reader.ts";
import {
  ecSpki,
  innerOfPkcs8,
  leftPad,
  modulusBits,
  pkcs8OfEcScalar,
  pkcs8OfPkcs1,
  rsaPublicOfPkcs1,
  rsaSpki,
} from "../../core/pki/key_der.ts";

function algorithmOf(spec: KeySpec, hash: HashName = "SHA-256") {
  return spec.type === "RSA"
    ? { name: "RSASSA-PKCS1-v1_5", hash }
    : { name: "ECDSA", namedCurve: spec.namedCurve };
}

/** Converts WebCrypto's raw ECDSA `r||s` into DER `SEQUENCE { INTEGER r, INTEGER s }`. */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2;
  return sequence(integer(raw.slice(0, half)), integer(raw.slice(half)));
}

/** Converts a DER ECDSA signature into raw `r||s` of the curve's size. */
export function ecdsaDerToRaw(der: Uint8Array, size: number): Uint8Array {
  let ints: DerElement[];
  try {
    const seq = readDer(der);
    ints = isUniversal(seq, TAG.sequence) ? childrenOf(seq) : [];
  } catch {
    ints = [];
  }
  if (ints.length !== 2 || !ints.every((v) => isUniversal(v, TAG.integer))) {
    throw new PkiError("x509: ECDSA signature is not a valid DER sequence");
  }
  const out = new Uint8Array(size * 2);
  ints.forEach((v, i) => {
    let bytes = v.content;
    while (bytes.length > size && bytes[0] === 0) bytes = bytes.subarray(1);
    if (bytes.length > size) throw new PkiError("x509: ECDSA signature integer too large");
    out.set(bytes, i * size + size - bytes.length);
  });
  return out;
}

/** A key pair held as a WebCrypto `CryptoKey`. */
class WebCryptoKeyPair implements KeyPair {
  readonly spec: KeySpec;
  readonly spki: Uint8Array;
  #key: Promise<CryptoKey> | undefined;
  readonly #load: () => Promise<CryptoKey>;
  readonly #material: PrivateKeyMaterial | undefined;

  /**
   * `load` gives the `CryptoKey`, on the first signature (a key read from a file is often only
   * compared or written out again); `material`, when known, is what `exportPrivate` returns.
   */
  constructor(
    spec: KeySpec,
    spki: Uint8Array,
    load: () => Promise<CryptoKey>,
    material?: PrivateKeyMaterial,
  ) {
    this.spec = spec;
    this.spki = spki;
    this.#load = load;
    this.#material = material;
  }

  #cryptoKey(): Promise<CryptoKey> {
    return this.#key ??= this.#load();
  }

  async sign(data: Uint8Array): Promise<Uint8Array> {
    const key = await this.#cryptoKey();
    if (this.spec.type === "RSA") {
      return new Uint8Array(
        await crypto.subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, key, data.slice()),
      );
    }
    const raw = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: signatureHashFor(this.spec) },
        key,
        data.slice(),
      ),
    );
    return ecdsaRawToDer(raw);
  }

  async exportPrivate(): Promise<PrivateKeyMaterial> {
    const known = this.#material;
    if (known?.type === "ECDSA") {
      return { ...known, d: known.d.slice(), point: known.point?.slice() };
    }
    if (known?.type === "RSA") return { type: "RSA", pkcs1: known.pkcs1.slice() };
    const key = await this.#cryptoKey();
    if (this.spec.type === "RSA") {
      const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", key));
      return { type: "RSA", pkcs1: innerOfPkcs8(pkcs8) };
    }
    const jwk = await crypto.subtle.exportKey("jwk", key);
    return ecMaterialOfJwk(this.spec.namedCurve, jwk);
  }
}

function ecMaterialOfJwk(
  curve: "P-256" | "P-384" | "P-521",
  jwk: JsonWebKey,
): PrivateKeyMaterial & { type: "ECDSA" } {
  const size = curveByteLength(curve);
  const point = new Uint8Array(1 + 2 * size);
  point[0] = 4;
  point.set(leftPad(base64UrlDecode(jwk.x!), size), 1);
  point.set(leftPad(base64UrlDecode(jwk.y!), size), 1 + size);
  return { type: "ECDSA", namedCurve: curve, d: leftPad(base64UrlDecode(jwk.d!), size), point };
}

async function importEc(material: PrivateKeyMaterial & { type: "ECDSA" }): Promise<KeyPair> {
  const spec: KeySpec = { type: "ECDSA", namedCurve: material.namedCurve };
  const size = curveByteLength(material.namedCurve);
  const point = material.point;
  if (point) {
    const kept = { ...material, d: material.d.slice(), point: point.slice() };
    const jwk = (): JsonWebKey => ({
      kty: "EC",
      crv: kept.namedCurve,
      d: base64UrlEncode(kept.d),
      x: base64UrlEncode(kept.point.slice(1, 1 + size)),
      y: base64UrlEncode(kept.point.slice(1 + size)),
      ext: true,
    });
    return new WebCryptoKeyPair(
      spec,
      ecSpki(material.namedCurve, point),
      () => crypto.subtle.importKey("jwk", jwk(), algorithmOf(spec), true, ["sign"]),
      kept,
    );
  }
  const pkcs8 = pkcs8OfEcScalar(material.namedCurve, material.d);
  const key = await crypto.subtle.importKey("pkcs8", pkcs8.slice(), algorithmOf(spec), true, [
    "sign",
  ]);
  const full = ecMaterialOfJwk(material.namedCurve, await crypto.subtle.exportKey("jwk", key));
  return new WebCryptoKeyPair(
    spec,
    ecSpki(material.namedCurve, full.point!),
    () => Promise.resolve(key),
    full,
  );
}

async function importRsa(pkcs1: Uint8Array): Promise<KeyPair> {
  const { n, e } = rsaPublicOfPkcs1(pkcs1);
  const spec: KeySpec = { type: "RSA", modulusLength: modulusBits(n) };
  const key = await crypto.subtle.importKey(
    "pkcs8",
    pkcs8OfPkcs1(pkcs1).slice(),
    algorithmOf(spec),
    true,
    ["sign"],
  );
  return new WebCryptoKeyPair(spec, rsaSpki(n, e), () => Promise.resolve(key));
}

/**
 * The key pair of a PKCS#1 RSA private key generated outside WebCrypto (the command line's
 * RSA key generation, `adapters/deno/rsa_keygen.ts`): its PKCS#1 kept for writing, imported
 * into WebCrypto only when it first signs (most keys are only written).
 */
export function rsaKeyPairOfPkcs1(pkcs1: Uint8Array): KeyPair {
  const { n, e } = rsaPublicOfPkcs1(pkcs1);
  const spec: KeySpec = { type: "RSA", modulusLength: modulusBits(n) };
  const kept = pkcs1.slice();
  return new WebCryptoKeyPair(
    spec,
    rsaSpki(n, e),
    () =>
      crypto.subtle.importKey("pkcs8", pkcs8OfPkcs1(kept).slice(), algorithmOf(spec), true, [
        "sign",
      ]),
    { type: "RSA", pkcs1: kept },
  );
}

/** Whether this engine imports a bare EC scalar (cleared on its first refusal). */
let bareScalarImports = true;

/**
 * An ECDSA key from a private scalar drawn from the platform's CSPRNG and mapped into [1, n-1]
 * as FIPS 186-5 A.2.1 describes ({@link ecScalarFromSeed}); WebCrypto imports it and derives
 * the public point. Deno's own EC generateKey pays a one-time set-up on a process's
 * first key (measured: 30-45 ms for the first, 0.1 ms for later ones); this costs under 1 ms.
 */
async function ecKeyFromRandomScalar(curve: EcCurve): Promise<KeyPair> {
  const seed = crypto.getRandomValues(new Uint8Array(ecSeedLength(curve)));
  const d = ecScalarFromSeed(curve, seed);
  try {
    return await importEc({ type: "ECDSA", namedCurve: curve, d });
  } finally {
    seed.fill(0);
    d.fill(0);
  }
}

/** An ECDSA key from the engine's generateKey; one JWK export gives both halves. */
async function generatedEcKey(spec: KeySpec & { type: "ECDSA" }): Promise<KeyPair> {
  const pair = await crypto.subtle.generateKey(algorithmOf(spec), true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const material = ecMaterialOfJwk(
    spec.namedCurve,
    await crypto.subtle.exportKey("jwk", pair.privateKey),
  );
  return new WebCryptoKeyPair(
    spec,
    ecSpki(spec.namedCurve, material.point!),
    () => Promise.resolve(pair.privateKey),
    material,
  );
}

async function digest(hash: HashName, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(hash, data.slice()));
}

async function hmac(hash: HashName, key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", key.slice(), { name: "HMAC", hash }, false, [
    "sign",
  ]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, data.slice()));
}

/**
 * Digests and HMACs on WebCrypto: the hashing half of {@link webCryptoPort}, alone for what
 * only hashes (the cluster-info verifier, whose bundle then carries no key code).
 */
export const webHashing: Hashing = { digest, hmac };

/** The crypto port on WebCrypto: the platform's key generator, randomised ECDSA signatures. */
export const webCryptoPort: CryptoPort = {
  name: "webcrypto",
  deterministic: false,
  digest,
  hmac,

  async generateKeyPair(spec: KeySpec): Promise<KeyPair> {
    if (spec.type === "ECDSA") {
      if (bareScalarImports) {
        try {
          return await ecKeyFromRandomScalar(spec.namedCurve);
        } catch {
          // Engines that cannot import a PKCS#8 EC key without its public point (Safari) or
          // export such a key as a JWK (Firefox) generate it themselves, from now on at once.
          bareScalarImports = false;
        }
      }
      return await generatedEcKey(spec);
    }
    const pair = await crypto.subtle.generateKey(
      {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: spec.modulusLength,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: "SHA-256",
      },
      true,
      ["sign", "verify"],
    ) as CryptoKeyPair;
    const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
    return new WebCryptoKeyPair(spec, spki, () => Promise.resolve(pair.privateKey));
  },

  importPrivateKey(material: PrivateKeyMaterial): Promise<KeyPair> {
    return material.type === "RSA" ? importRsa(material.pkcs1) : importEc(material);
  },

  async verify(spki, spec, hash, data, signature): Promise<boolean> {
    const key = await crypto.subtle.importKey(
      "spki",
      spki.slice(),
      algorithmOf(spec, hash),
      false,
      [
        "verify",
      ],
    );
    if (spec.type === "RSA") {
      return crypto.subtle.verify(
        { name: "RSASSA-PKCS1-v1_5" },
        key,
        signature.slice(),
        data.slice(),
      );
    }
    let raw: Uint8Array;
    try {
      raw = ecdsaDerToRaw(signature, curveByteLength(spec.namedCurve));
    } catch {
      return false;
    }
    return crypto.subtle.verify({ name: "ECDSA", hash }, key, raw.slice(), data.slice());
  },

  async sealAesGcm(key, nonce, plaintext): Promise<Uint8Array> {
    const k = await crypto.subtle.importKey("raw", key.slice(), "AES-GCM", false, ["encrypt"]);
    const params = { name: "AES-GCM", iv: nonce.slice(), tagLength: 128 };
    return new Uint8Array(await crypto.subtle.encrypt(params, k, plaintext.slice()));
  },

  async openAesGcm(key, nonce, sealed): Promise<Uint8Array> {
    const k = await crypto.subtle.importKey("raw", key.slice(), "AES-GCM", false, ["decrypt"]);
    const params = { name: "AES-GCM", iv: nonce.slice(), tagLength: 128 };
    return new Uint8Array(await crypto.subtle.decrypt(params, k, sealed.slice()));
  },
};
