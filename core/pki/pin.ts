/**
 * CA public-key pins (`--discovery-token-ca-cert-hash`): `sha256:<hex>` of a certificate's
 * DER SubjectPublicKeyInfo (RFC 7469 style), and the pin set with upstream's parsing rules and
 * error texts (`pubkeypin.Set`).
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import type { Hashing } from "../ports/crypto.ts";
// Types only: checking a pin's syntax (configuration validation) must not load the X.509 code.
import type { Certificate } from "./cert.ts";

const FORMAT_SHA256 = "sha256";
const SUPPORTED_FORMATS = FORMAT_SHA256;

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `sha256:<64 lowercase hex>` of a certificate's (or raw SPKI DER's) public key. */
export async function certificatePin(
  cert: Certificate | Uint8Array,
  crypto: Hashing,
): Promise<string> {
  const spki = cert instanceof Uint8Array ? cert : cert.spki;
  return `${FORMAT_SHA256}:${hex(await crypto.digest("SHA-256", spki))}`;
}

/** Go's `%#U` for a byte: `U+0067 'g'`. */
function goRune(code: number): string {
  const u = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return code >= 0x20 && code < 0x7f ? `${u} '${String.fromCharCode(code)}'` : u;
}

/** Go's `hex.DecodeString` error for a string, or undefined when it is valid hex. */
function hexDecodeError(s: string): string | undefined {
  const isHex = (c: string) => /[0-9a-fA-F]/.test(c);
  let j = 1;
  for (; j < s.length; j += 2) {
    if (!isHex(s[j - 1])) return `encoding/hex: invalid byte: ${goRune(s.charCodeAt(j - 1))}`;
    if (!isHex(s[j])) return `encoding/hex: invalid byte: ${goRune(s.charCodeAt(j))}`;
  }
  if (s.length % 2 === 1) {
    if (!isHex(s[j - 1])) return `encoding/hex: invalid byte: ${goRune(s.charCodeAt(j - 1))}`;
    return "encoding/hex: odd length hex string";
  }
  return undefined;
}

/**
 * Why a `--discovery-token-ca-cert-hash` value is not a valid pin, in upstream's words
 * (`pubkeypin.Set.Allow`), or `undefined` when it is one. Checks the syntax only: no
 * certificate is involved, so callers can validate pins before any network call.
 */
export function pinProblem(pin: string): string | undefined {
  const parts = pin.split(":");
  if (parts.length !== 2) {
    return `invalid hash, expected "format:hex-value". Known format(s) are: ${SUPPORTED_FORMATS}`;
  }
  const [format, value] = parts;
  if (format.toLowerCase() !== FORMAT_SHA256) {
    return `unknown hash format ${
      JSON.stringify(format)
    }. Known format(s) are: ${SUPPORTED_FORMATS}`;
  }
  const decodedLen = Math.floor(value.length / 2);
  if (decodedLen !== 32) {
    return `invalid hash ${
      JSON.stringify(pin)
    }, expected a 32 byte SHA-256 hash, found ${decodedLen} bytes`;
  }
  const hexErr = hexDecodeError(value);
  if (hexErr) {
    return `invalid hash ${JSON.stringify(pin)}, could not decode SHA-256 from hex: ${hexErr}`;
  }
  return undefined;
}

/** A set of pinned public keys. */
export class PinSet {
  readonly #sha256 = new Set<string>();
  readonly #crypto: Hashing;

  /** @param crypto what computes the pins of the certificates checked. */
  constructor(crypto: Hashing) {
    this.#crypto = crypto;
  }

  /**
   * Adds pins (`sha256:<hex>`, format and hex case-insensitive). Stops at the first invalid
   * one with upstream's error text; pins added before it stay.
   */
  allow(...pins: string[]): void {
    for (const pin of pins) {
      const problem = pinProblem(pin);
      if (problem) {
        throw new KubeadmError(problem, {
          field: "discovery-token-ca-cert-hash",
          value: pin,
          hint: "use the form sha256:<64 hex characters>",
        });
      }
      this.#sha256.add(pin.split(":")[1].toLowerCase());
    }
  }

  /** True when no pin has been added. */
  isEmpty(): boolean {
    return this.#sha256.size === 0;
  }

  /** True when the certificate's public key is pinned. */
  async has(cert: Certificate | Uint8Array): Promise<boolean> {
    const pin = await certificatePin(cert, this.#crypto);
    return this.#sha256.has(pin.slice(FORMAT_SHA256.length + 1));
  }

  /**
   * Succeeds when ANY certificate's key is pinned; else throws upstream's
   * `none of the public keys "<h1>:<h2>" are pinned`.
   */
  async checkAny(certs: (Certificate | Uint8Array)[]): Promise<void> {
    const hashes: string[] = [];
    for (const cert of certs) {
      if (await this.has(cert)) return;
      hashes.push(await certificatePin(cert, this.#crypto));
    }
    throw new KubeadmError(
      `none of the public keys ${JSON.stringify(hashes.join(":"))} are pinned`,
      {
        hint: "check the --discovery-token-ca-cert-hash value against the cluster CA",
      },
    );
  }
}
