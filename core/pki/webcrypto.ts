/**
 * The crypto port on the platform's WebCrypto (`crypto.subtle`): the CLI's implementation.
 *
 * WebCrypto exports PKCS#8/JWK/SPKI only, so PKCS#1 is the inner OCTET STRING of the PKCS#8
 * export and a SEC1 key is rebuilt from the JWK; imports wrap the other way round. ECDSA
 * signatures are randomised and converted between WebCrypto's raw `r||s` and X.509's DER.
 *
 * @module
 */
import * as asn1js from "asn1js";
import { PkiError } from "../errors.ts";
import {
  type CryptoPort,
  curveByteLength,
  type HashName,
  type KeyPair,
  type KeySpec,
  type PrivateKeyMaterial,
  signatureHashFor,
} from "./crypto.ts";
import { integer, sequence } from "./der.ts";
import {
  ecSpki,
  innerOfPkcs8,
  leftPad,
  modulusBits,
  pkcs8OfEcScalar,
  pkcs8OfPkcs1,
  rsaPublicOfPkcs1,
  rsaSpki,
} from "./key_der.ts";

/** Base64url without padding (JWK). */
function b64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

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
  const parsed = asn1js.fromBER(der.slice());
  const seq = parsed.result;
  if (
    parsed.offset === -1 || !(seq instanceof asn1js.Sequence) || seq.valueBlock.value.length !== 2
  ) {
    throw new PkiError("x509: ECDSA signature is not a valid DER sequence");
  }
  const out = new Uint8Array(size * 2);
  seq.valueBlock.value.forEach((v, i) => {
    let bytes = (v as asn1js.Integer).valueBlock.valueHexView;
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
  readonly #key: CryptoKey;

  constructor(spec: KeySpec, spki: Uint8Array, key: CryptoKey) {
    this.spec = spec;
    this.spki = spki;
    this.#key = key;
  }

  async sign(data: Uint8Array): Promise<Uint8Array> {
    if (this.spec.type === "RSA") {
      return new Uint8Array(
        await crypto.subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, this.#key, data.slice()),
      );
    }
    const raw = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: signatureHashFor(this.spec) },
        this.#key,
        data.slice(),
      ),
    );
    return ecdsaRawToDer(raw);
  }

  async exportPrivate(): Promise<PrivateKeyMaterial> {
    if (this.spec.type === "RSA") {
      const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", this.#key));
      return { type: "RSA", pkcs1: innerOfPkcs8(pkcs8) };
    }
    const jwk = await crypto.subtle.exportKey("jwk", this.#key);
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
  point.set(leftPad(unb64url(jwk.x!), size), 1);
  point.set(leftPad(unb64url(jwk.y!), size), 1 + size);
  return { type: "ECDSA", namedCurve: curve, d: leftPad(unb64url(jwk.d!), size), point };
}

async function importEc(material: PrivateKeyMaterial & { type: "ECDSA" }): Promise<KeyPair> {
  const spec: KeySpec = { type: "ECDSA", namedCurve: material.namedCurve };
  const size = curveByteLength(material.namedCurve);
  let point = material.point;
  let key: CryptoKey;
  if (point) {
    const jwk: JsonWebKey = {
      kty: "EC",
      crv: material.namedCurve,
      d: b64url(material.d),
      x: b64url(point.slice(1, 1 + size)),
      y: b64url(point.slice(1 + size)),
      ext: true,
    };
    key = await crypto.subtle.importKey("jwk", jwk, algorithmOf(spec), true, ["sign"]);
  } else {
    const pkcs8 = pkcs8OfEcScalar(material.namedCurve, material.d);
    key = await crypto.subtle.importKey("pkcs8", pkcs8.slice(), algorithmOf(spec), true, ["sign"]);
    point = ecMaterialOfJwk(material.namedCurve, await crypto.subtle.exportKey("jwk", key)).point;
  }
  return new WebCryptoKeyPair(spec, ecSpki(material.namedCurve, point!), key);
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
  return new WebCryptoKeyPair(spec, rsaSpki(n, e), key);
}

/** The crypto port on WebCrypto: the platform's key generator, randomised ECDSA signatures. */
export const webCryptoPort: CryptoPort = {
  name: "webcrypto",
  deterministic: false,

  async generateKeyPair(spec: KeySpec): Promise<KeyPair> {
    const params: RsaHashedKeyGenParams | EcKeyGenParams = spec.type === "RSA"
      ? {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: spec.modulusLength,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: "SHA-256",
      }
      : { name: "ECDSA", namedCurve: spec.namedCurve };
    const pair = await crypto.subtle.generateKey(params, true, ["sign", "verify"]) as CryptoKeyPair;
    const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
    return new WebCryptoKeyPair(spec, spki, pair.privateKey);
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
