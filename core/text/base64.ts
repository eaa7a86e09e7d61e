/**
 * Base64, standard (PEM, kubeconfig data, Secrets, cloud-init) and URL-safe without padding
 * (JWS, JWK, the kubelet's CSR names): the one codec of the core. The platform's own
 * `Uint8Array.prototype.toBase64` / `Uint8Array.fromBase64` (TC39) are used where the engine
 * has them (Deno, current browsers); JavaScript fallbacks serve the others.
 *
 * @module
 */
import { ValueError } from "../errors.ts";

type NativeToBase64 = (
  this: Uint8Array,
  options?: { alphabet?: "base64" | "base64url"; omitPadding?: boolean },
) => string;
type NativeFromBase64 = (
  text: string,
  options?: { alphabet?: "base64" | "base64url"; lastChunkHandling?: "strict" | "loose" },
) => Uint8Array;

/** The platform's own base64 of typed arrays, if it has it. */
const nativeToBase64 = (Uint8Array.prototype as { toBase64?: NativeToBase64 }).toBase64;
const nativeFromBase64 = (Uint8Array as { fromBase64?: NativeFromBase64 }).fromBase64;

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Every pair of base64 digits, indexed by 12 bits of input. */
let b64Pairs: string[] | undefined;

/** Standard base64 of bytes (with `=` padding). */
export function base64Encode(bytes: Uint8Array): string {
  return nativeToBase64 ? nativeToBase64.call(bytes) : base64EncodeByTable(bytes);
}

/** {@link base64Encode} in JavaScript, for engines without `Uint8Array.prototype.toBase64`. */
function base64EncodeByTable(bytes: Uint8Array): string {
  const pairs = b64Pairs ??= Array.from({ length: 4096 }, (_, i) => B64[i >> 6] + B64[i & 63]);
  const parts: string[] = [];
  const whole = bytes.length - (bytes.length % 3);
  for (let i = 0; i < whole; i += 3) {
    const v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    parts.push(pairs[v >> 12] + pairs[v & 0xfff]);
  }
  if (bytes.length - whole === 1) {
    const v = bytes[whole] << 4;
    parts.push(`${pairs[v]}==`);
  } else if (bytes.length - whole === 2) {
    const v = (bytes[whole] << 10) | (bytes[whole + 1] << 2);
    parts.push(`${pairs[v >> 6]}${B64[v & 63]}=`);
  }
  return parts.join("");
}

/**
 * Decodes standard base64 as Go's `StdEncoding` does (padding required), whitespace ignored;
 * throws {@link ValueError} `illegal base64 data` otherwise.
 */
export function base64Decode(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) {
    throw new ValueError("illegal base64 data");
  }
  if (nativeFromBase64) return nativeFromBase64(clean);
  return bytesOfBinary(atob(clean));
}

/** Base64url without padding (RFC 7515 §2, RFC 7517). */
export function base64UrlEncode(bytes: Uint8Array): string {
  if (nativeToBase64) {
    return nativeToBase64.call(bytes, { alphabet: "base64url", omitPadding: true });
  }
  return base64EncodeByTable(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Decodes base64url without padding (RFC 7515 §2); throws {@link ValueError}
 * `illegal base64 data` on anything else.
 */
export function base64UrlDecode(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new ValueError("illegal base64 data");
  }
  if (nativeFromBase64) return nativeFromBase64(text, { alphabet: "base64url" });
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return bytesOfBinary(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)));
}

/** The bytes of a binary string (one character per byte, as `atob` returns). */
function bytesOfBinary(bin: string): Uint8Array {
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
