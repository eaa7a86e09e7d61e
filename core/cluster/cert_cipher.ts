/**
 * The certificate key and the cipher of the `kubeadm-certs` Secret (upstream
 * `util/crypto`): a 32-byte AES-256 key shown as 64 hex characters, and AES-GCM with a random
 * 12-byte nonce, a 16-byte tag and no additional data, stored as `nonce ‖ ciphertext ‖ tag`.
 * The cipher itself is the run's crypto port's (WebCrypto, or `@noble/ciphers` in the
 * WebAssembly component).
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import type { RandomSource } from "../ports/random.ts";
import type { CryptoPort } from "../ports/crypto.ts";

/** Bytes in a certificate key (AES-256). */
const CERTIFICATE_KEY_SIZE = 32;
/** GCM nonce size. */
const GCM_NONCE_SIZE = 12;

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function invalidByte(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const u = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  return cp >= 0x20 && cp !== 0x7f ? `${u} '${c}'` : u;
}

/** Decodes hex with Go's `encoding/hex` errors (`odd length hex string`, `invalid byte`). */
export function fromHex(text: string): Uint8Array {
  const isHex = (c: string) => /^[0-9a-fA-F]$/.test(c);
  const out = new Uint8Array(text.length >> 1);
  for (let i = 0; i + 1 < text.length; i += 2) {
    for (const c of [text[i], text[i + 1]]) {
      if (!isHex(c)) throw new KubeadmError(`encoding/hex: invalid byte: ${invalidByte(c)}`);
    }
    out[i >> 1] = parseInt(text.slice(i, i + 2), 16);
  }
  if (text.length % 2 === 1) {
    const last = text[text.length - 1];
    if (!isHex(last)) throw new KubeadmError(`encoding/hex: invalid byte: ${invalidByte(last)}`);
    throw new KubeadmError("encoding/hex: odd length hex string");
  }
  return out;
}

/** A fresh certificate key: 32 random bytes, lowercase hex. */
export function generateCertificateKey(random: RandomSource): string {
  return toHex(random.bytes(CERTIFICATE_KEY_SIZE));
}

/**
 * Decodes and checks a certificate key given by the user (`--certificate-key`), with upstream's
 * messages.
 */
export function parseCertificateKey(key: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromHex(key);
  } catch (e) {
    throw new KubeadmError(`error decoding certificate key: ${(e as Error).message}`, {
      field: "--certificate-key",
      hint: "the certificate key is the 64 hex characters printed by `kubeadm init --upload-certs`",
    });
  }
  if (bytes.length !== CERTIFICATE_KEY_SIZE) {
    throw new KubeadmError(
      `invalid certificate key size ${bytes.length}, the key must be an AES key of size ${CERTIFICATE_KEY_SIZE}`,
      { field: "--certificate-key" },
    );
  }
  return bytes;
}

function checkKeySize(key: Uint8Array): void {
  if (![16, 24, 32].includes(key.length)) {
    throw new KubeadmError(`crypto/aes: invalid key size ${key.length}`);
  }
}

/** Encrypts with AES-GCM under a random nonce; returns `nonce ‖ ciphertext ‖ tag`. */
export async function encryptBytes(
  data: Uint8Array,
  key: Uint8Array,
  random: RandomSource,
  crypto: CryptoPort,
): Promise<Uint8Array> {
  checkKeySize(key);
  const nonce = random.bytes(GCM_NONCE_SIZE);
  const sealed = await crypto.sealAesGcm(key, nonce, data);
  const out = new Uint8Array(nonce.length + sealed.length);
  out.set(nonce, 0);
  out.set(sealed, nonce.length);
  return out;
}

/** Decrypts `nonce ‖ ciphertext ‖ tag`; fails like Go's GCM on tampering or a wrong key. */
export async function decryptBytes(
  data: Uint8Array,
  key: Uint8Array,
  crypto: CryptoPort,
): Promise<Uint8Array> {
  checkKeySize(key);
  if (data.length < GCM_NONCE_SIZE) {
    throw new KubeadmError("size of data is less than the nonce");
  }
  try {
    return await crypto.openAesGcm(
      key,
      data.subarray(0, GCM_NONCE_SIZE),
      data.subarray(GCM_NONCE_SIZE),
    );
  } catch (e) {
    throw new KubeadmError("cipher: message authentication failed", { cause: e });
  }
}
