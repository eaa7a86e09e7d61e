/**
 * The pure-JavaScript crypto port: the deterministic port (`./noble.ts`: ECDSA on
 * `@noble/curves`, keys from the run's random source, RFC 6979 signatures) without any
 * WebCrypto operation. AES-GCM runs on `@noble/ciphers`, digests, HMACs and ECDSA checks under
 * another hash than the curve's on `@noble/hashes`; RSA (keys, signatures, checks) is refused with
 * an {@link UnsupportedAlgorithmError}: noble has none, and the core does not hand-write crypto.
 *
 * The WebAssembly component's port: its engine's WebCrypto has no `generateKey`, `exportKey`
 * or `encrypt`, and traps importing EC or RSA keys. Kept apart from `./noble.ts` so that the
 * web bundles, which never use it, do not carry its cipher and hashes.
 *
 * @module
 */
import { gcm } from "@noble/ciphers/aes.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import type { CHash } from "@noble/hashes/utils.js";
import { UnsupportedAlgorithmError } from "../../core/errors.ts";
import type { CryptoPort, HashName } from "../../core/ports/crypto.ts";
import { type NobleDelegate, noblePort, nobleVerifyEcdsa } from "./noble.ts";

const HASHES: Record<HashName, CHash> = {
  "SHA-1": sha1,
  "SHA-256": sha256,
  "SHA-384": sha384,
  "SHA-512": sha512,
};

function rsaUnsupported(what: string): UnsupportedAlgorithmError {
  return new UnsupportedAlgorithmError(
    `the pure-JavaScript crypto port (the WebAssembly component) cannot ${what}: it has no RSA implementation (ECDSA only)`,
    { hint: "use ECDSA keys (encryptionAlgorithm ECDSA-P256 or ECDSA-P384)" },
  );
}

/** Runs `fn` as a promise (noble throws synchronously). */
function promised<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}

const pureDelegate: NobleDelegate = {
  importPrivateKey: () => Promise.reject(rsaUnsupported("use RSA private keys")),
  verify: (spki, spec, hash, data, signature) =>
    spec.type === "RSA"
      ? Promise.reject(rsaUnsupported("check RSA signatures"))
      : promised(() =>
        nobleVerifyEcdsa(spki, spec.namedCurve, HASHES[hash](data), signature, true)
      ),
  sealAesGcm: (key, nonce, plaintext) => promised(() => gcm(key, nonce).encrypt(plaintext)),
  openAesGcm: (key, nonce, sealed) => promised(() => gcm(key, nonce).decrypt(sealed)),
  digest: (hash, data) => promised(() => HASHES[hash](data)),
  hmac: (hash, key, data) => promised(() => hmac(HASHES[hash], key, data)),
};

/**
 * The pure-JavaScript crypto port: ECDSA on noble, AES-GCM on `@noble/ciphers`, no RSA. The
 * WebAssembly component's. Made by a call marked pure, so that a bundle which never uses it
 * leaves it, its cipher and hashes out.
 */
export const pureJsCryptoPort: CryptoPort = /* @__PURE__ */ noblePort("pure-js", {
  rsaGenerationRefused: (algorithm, options) =>
    new UnsupportedAlgorithmError(
      `the pure-JavaScript crypto port (the WebAssembly component) cannot generate ${algorithm} keys: it has no RSA implementation (ECDSA only)`,
      options,
    ),
  hint: "use encryptionAlgorithm ECDSA-P256 or ECDSA-P384",
  delegate: pureDelegate,
});
