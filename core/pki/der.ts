/**
 * A minimal DER encoder for the X.509 and PKCS structures kubeadm writes.
 *
 * Building the bytes directly (rather than through a generic object model) gives exact control
 * over what Go's `crypto/x509` emits: one RDN SET per attribute type, PrintableString vs
 * UTF8String, UTCTime vs GeneralizedTime, minimal INTEGERs, SET OF sorted in DER order.
 * Parsing is `./der_reader.ts`; this module only writes.
 *
 * @module
 */
import { bytesFromBigint } from "../bigint.ts";
import { PkiError } from "../errors.ts";

/** Concatenates byte arrays. */
function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** The number of bytes of a length's long form (after its first octet). */
function longLengthBytes(n: number): number {
  let count = 0;
  for (let v = n; v > 0; v = Math.floor(v / 256)) count++;
  return count;
}

/** One tag-length-value element with the given identifier octet. */
export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  return element(tag, content);
}

/** {@link tlv} of a list of content parts. */
function element(tag: number, content: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const c of content) length += c.length;
  // Definite length: one octet below 0x80, else 0x80|count and the count big-endian octets.
  const extra = length < 0x80 ? 0 : longLengthBytes(length);
  const out = new Uint8Array(2 + extra + length);
  out[0] = tag;
  if (extra === 0) out[1] = length;
  else {
    out[1] = 0x80 | extra;
    for (let i = extra, v = length; i > 0; i--, v = Math.floor(v / 256)) out[1 + i] = v & 0xff;
  }
  let off = 2 + extra;
  for (const c of content) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** SEQUENCE of already encoded elements. */
export function sequence(...items: Uint8Array[]): Uint8Array {
  return element(0x30, items);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** SET OF already encoded elements, sorted in DER order (as Go's encoding/asn1 does). */
export function setOf(...items: Uint8Array[]): Uint8Array {
  return element(0x31, [...items].sort(compareBytes));
}

/** BOOLEAN. */
export function boolean(v: boolean): Uint8Array {
  return new Uint8Array([0x01, 0x01, v ? 0xff : 0x00]);
}

/** NULL. */
export function nullValue(): Uint8Array {
  return new Uint8Array([0x05, 0x00]);
}

/** Minimal two's-complement bytes of a non-negative integer. */
export function unsignedIntegerBytes(v: bigint): Uint8Array {
  if (v < 0n) throw new PkiError("negative integers are not supported");
  const bytes = bytesFromBigint(v);
  return bytes[0] & 0x80 ? concatBytes(new Uint8Array([0]), bytes) : bytes;
}

/** INTEGER from a non-negative bigint or from big-endian unsigned magnitude bytes. */
export function integer(v: bigint | number | Uint8Array): Uint8Array {
  if (v instanceof Uint8Array) {
    let i = 0;
    while (i < v.length - 1 && v[i] === 0) i++;
    const mag = v.slice(i);
    return tlv(0x02, mag[0] & 0x80 ? concatBytes(new Uint8Array([0]), mag) : mag);
  }
  return tlv(0x02, unsignedIntegerBytes(BigInt(v)));
}

/** Encoded OIDs by dotted text: the few dozen kubeadm writes, encoded once per isolate. */
const encodedOids = new Map<string, Uint8Array>();

/** OBJECT IDENTIFIER from dotted text. */
export function oid(dotted: string): Uint8Array {
  let der = encodedOids.get(dotted);
  if (!der) {
    der = encodeOid(dotted);
    if (encodedOids.size < 256) encodedOids.set(dotted, der);
  }
  return der.slice();
}

function encodeOid(dotted: string): Uint8Array {
  const arcs = dotted.split(".").map((a) => BigInt(a));
  const out: number[] = [];
  const push = (v: bigint) => {
    const tmp: number[] = [Number(v & 0x7fn)];
    v >>= 7n;
    while (v > 0n) {
      tmp.unshift(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(...tmp);
  };
  push(arcs[0] * 40n + arcs[1]);
  for (const a of arcs.slice(2)) push(a);
  return tlv(0x06, new Uint8Array(out));
}

/** OCTET STRING. */
export function octetString(bytes: Uint8Array): Uint8Array {
  return tlv(0x04, bytes);
}

/** BIT STRING with the given number of unused trailing bits. */
export function bitString(bytes: Uint8Array, unusedBits = 0): Uint8Array {
  return tlv(0x03, new Uint8Array([unusedBits]), bytes);
}

/** UTF8String. */
function utf8String(s: string): Uint8Array {
  return tlv(0x0c, new TextEncoder().encode(s));
}

/** PrintableString (caller checks {@link isPrintableString}). */
function printableString(s: string): Uint8Array {
  return tlv(0x13, new TextEncoder().encode(s));
}

/** True when Go would marshal the string as PrintableString (no `*`, no `&`). */
function isPrintableString(s: string): boolean {
  return /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s);
}

/** PrintableString when allowed, else UTF8String: Go's default for Name attribute values. */
export function directoryString(s: string): Uint8Array {
  return isPrintableString(s) ? printableString(s) : utf8String(s);
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, "0");
}

/** UTCTime `YYMMDDHHMMSSZ` (sub-second part dropped, as Go does). */
function utcTime(d: Date): Uint8Array {
  const s = `${pad(d.getUTCFullYear() % 100)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${
    pad(d.getUTCHours())
  }${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
  return tlv(0x17, new TextEncoder().encode(s));
}

/** GeneralizedTime `YYYYMMDDHHMMSSZ` (sub-second part dropped, as Go does). */
function generalizedTime(d: Date): Uint8Array {
  const s = `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${
    pad(d.getUTCHours())
  }${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
  return tlv(0x18, new TextEncoder().encode(s));
}

/** X.509 Time: UTCTime for 1950..2049, GeneralizedTime otherwise (RFC 5280, Go's rule). */
export function x509Time(d: Date): Uint8Array {
  const y = d.getUTCFullYear();
  return y >= 1950 && y < 2050 ? utcTime(d) : generalizedTime(d);
}

/** `[n] EXPLICIT` wrapper (context-specific, constructed). */
export function explicit(tagNumber: number, ...inner: Uint8Array[]): Uint8Array {
  return element(0xa0 | tagNumber, inner);
}

/** `[n] IMPLICIT` primitive element (context-specific, primitive) with raw content. */
export function implicitPrimitive(tagNumber: number, content: Uint8Array): Uint8Array {
  return tlv(0x80 | tagNumber, content);
}
