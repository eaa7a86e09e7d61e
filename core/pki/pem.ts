/**
 * PEM armour, written the way Go's `encoding/pem` writes it (64-column base64 lines, trailing
 * newline) and read as leniently as Go reads it (junk between blocks, CRLF, optional headers).
 *
 * @module
 */
import { PkiError } from "../errors.ts";

/** One decoded PEM block. */
export interface PemBlock {
  /** The label, e.g. `CERTIFICATE`, `RSA PRIVATE KEY`. */
  type: string;
  /** The DER bytes. */
  bytes: Uint8Array;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Every pair of base64 digits, indexed by 12 bits of input. */
let b64Pairs: string[] | undefined;

/** The platform's own base64 of typed arrays (TC39 "Uint8Array to/from base64"), if it has it. */
const nativeToBase64 = (Uint8Array.prototype as { toBase64?: (this: Uint8Array) => string })
  .toBase64;
const nativeFromBase64 = (Uint8Array as { fromBase64?: (s: string) => Uint8Array }).fromBase64;

/** Standard base64 of bytes (with `=` padding). */
export function base64Encode(bytes: Uint8Array): string {
  return nativeToBase64 ? nativeToBase64.call(bytes) : base64EncodeByTable(bytes);
}

/** {@link base64Encode} in JavaScript, for engines without `Uint8Array.prototype.toBase64`. */
export function base64EncodeByTable(bytes: Uint8Array): string {
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

/** Decodes standard base64 (whitespace ignored); throws on invalid input. */
export function base64Decode(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) {
    throw new PkiError("illegal base64 data");
  }
  if (nativeFromBase64) return nativeFromBase64.call(Uint8Array, clean);
  const bin = atob(clean);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Encodes one block: `-----BEGIN <type>-----`, 64-column base64, `-----END <type>-----\n`. */
export function encodePem(type: string, bytes: Uint8Array): string {
  const b64 = base64Encode(bytes);
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join("")}-----END ${type}-----\n`;
}

/** Encodes several blocks of the same type back to back (a bundle). */
export function encodePemBundle(type: string, items: Uint8Array[]): string {
  return items.map((b) => encodePem(type, b)).join("");
}

/**
 * Decodes every well-formed PEM block in the text, in order. Malformed blocks are skipped like
 * Go's `pem.Decode` skips them; text outside blocks is ignored.
 */
export function decodePem(input: string | Uint8Array): PemBlock[] {
  const text = typeof input === "string" ? input : new TextDecoder().decode(input);
  const blocks: PemBlock[] = [];
  const re =
    /(?:^|\n)-----BEGIN ([^\r\n]*?)-----[ \t]*\r?\n([\s\S]*?)(?:^|\n)-----END ([^\r\n]*?)-----/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const [, type, rawBody, endType] = m;
    if (type !== endType) continue;
    let body = rawBody;
    const firstLine = body.split(/\r?\n/, 1)[0];
    if (firstLine.includes(":")) {
      // RFC 1421 headers: skip up to the blank line that ends them.
      const blank = body.search(/\r?\n\r?\n/);
      if (blank < 0) continue;
      body = body.slice(blank).trimStart();
    }
    try {
      blocks.push({ type, bytes: base64Decode(body) });
    } catch {
      continue;
    }
  }
  return blocks;
}

/** Decodes the blocks of one type, ignoring the others. */
export function decodePemOfType(input: string | Uint8Array, type: string): Uint8Array[] {
  return decodePem(input).filter((b) => b.type === type).map((b) => b.bytes);
}
