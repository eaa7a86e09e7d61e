/**
 * Keys and CA pins for library callers: the core's functions with the library's crypto port
 * (`./adapters.ts`) where the caller passes none.
 *
 * @module
 */
import type { EncryptionAlgorithm } from "../core/config/types.ts";
import type { CryptoPort, Hashing, KeyPair, KeySpec } from "../core/ports/crypto.ts";
import type { RandomSource } from "../core/ports/random.ts";
import * as keys from "../core/pki/keys.ts";
import * as pin from "../core/pki/pin.ts";
import * as cert from "../core/pki/cert.ts";
import type { Certificate } from "../core/pki/cert.ts";
import { webCryptoPort, webHashing, webRandom } from "./adapters.ts";

/** How a key is made: the crypto port (default WebCrypto) and its entropy (default the CSPRNG). */
export interface KeyOptions {
  /** Default: WebCrypto. */
  crypto?: CryptoPort;
  /** Where a deterministic port draws the key from; default the platform's CSPRNG. */
  random?: RandomSource;
}

/** Generates a new key pair (`RSA-*` with e = 65537, or ECDSA on P-256/P-384). */
export function generateKeyPair(
  algorithm: EncryptionAlgorithm | KeySpec,
  opts: KeyOptions = {},
): Promise<KeyPair> {
  return keys.generateKeyPair(algorithm, {
    crypto: opts.crypto ?? webCryptoPort,
    random: opts.random ?? webRandom,
  });
}

/**
 * Reads the first private key of a PEM text: `RSA PRIVATE KEY`, `EC PRIVATE KEY` or
 * `PRIVATE KEY` (PKCS#8), through `crypto` (default WebCrypto). Errors use upstream's wording;
 * `path` names the file in them.
 */
export function parsePrivateKeyPEM(
  pem: string | Uint8Array,
  path?: string,
  crypto: CryptoPort = webCryptoPort,
): Promise<KeyPair> {
  return keys.parsePrivateKeyPEM(pem, crypto, path);
}

/** `sha256:<64 lowercase hex>` of a certificate's (or raw SPKI DER's) public key. */
export function certificatePin(
  certificate: Certificate | Uint8Array,
  crypto: Hashing = webHashing,
): Promise<string> {
  return pin.certificatePin(certificate, crypto);
}

/** The CA pin of every certificate of a PEM bundle, in order (what a join command lists). */
export function pemCertificatePins(
  pem: string | Uint8Array,
  crypto: Hashing = webHashing,
): Promise<string[]> {
  return cert.pemCertificatePins(pem, crypto);
}

/** A set of pinned public keys (`--discovery-token-ca-cert-hash`), upstream's `pubkeypin.Set`. */
export class PinSet {
  readonly #pins: pin.PinSet;

  /** An empty set; `crypto` computes the pins of the certificates checked (default WebCrypto). */
  constructor(crypto: Hashing = webHashing) {
    this.#pins = new pin.PinSet(crypto);
  }

  /**
   * Adds pins (`sha256:<hex>`, format and hex case-insensitive). Stops at the first invalid
   * one with upstream's error text; pins added before it stay.
   */
  allow(...pins: string[]): void {
    this.#pins.allow(...pins);
  }

  /** True when no pin has been added. */
  isEmpty(): boolean {
    return this.#pins.isEmpty();
  }

  /** True when the certificate's public key is pinned. */
  has(certificate: Certificate | Uint8Array): Promise<boolean> {
    return this.#pins.has(certificate);
  }

  /**
   * Succeeds when ANY certificate's key is pinned; else throws upstream's
   * `none of the public keys "<h1>:<h2>" are pinned`.
   */
  checkAny(certificates: (Certificate | Uint8Array)[]): Promise<void> {
    return this.#pins.checkAny(certificates);
  }
}
