/**
 * A minimal DER reader for the X.509 and PKCS structures kubeadm reads (certificates, CSRs,
 * names, extensions, keys): tag-length-value elements as views into the input, and the few
 * primitive types those structures hold.
 *
 * It reads definite lengths only (DER) and never copies: an element's `raw` (the whole TLV,
 * what is hashed or signed) and `content` are subarrays of the bytes given. `./der.ts` writes.
 *
 * @module
 */
import { PkiError } from "../errors.ts";

/** Identifier-octet classes (X.690 8.1.2.2). */
const UNIVERSAL = 0;
/** Context-specific class (`[n]`). */
export const CONTEXT = 2;

/** Universal tag numbers kubeadm's structures use. */
export const TAG = {
  boolean: 1,
  integer: 2,
  bitString: 3,
  octetString: 4,
  oid: 6,
  sequence: 16,
  set: 17,
  utcTime: 23,
  generalizedTime: 24,
} as const;

/** One tag-length-value element. */
export interface DerElement {
  /** Class: {@link UNIVERSAL}, 1 (application), {@link CONTEXT} or 3 (private). */
  cls: number;
  /** Whether the content is itself a series of elements. */
  constructed: boolean;
  /** Tag number within the class. */
  tag: number;
  /** The whole element: identifier, length and content. */
  raw: Uint8Array;
  /** The content octets. */
  content: Uint8Array;
}

const STRUCTURE_ERROR = "asn1: structure error";

function malformed(): never {
  throw new PkiError(STRUCTURE_ERROR);
}

/** Whether `e` is this reader's own error (bytes that are not the DER expected). */
export function isStructureError(e: unknown): boolean {
  return e instanceof PkiError && e.message === STRUCTURE_ERROR;
}

/**
 * Runs `read`; the structure error it may throw becomes a {@link PkiError} with `message`
 * (what the caller was reading, in Go's words).
 */
export function asMalformed<T>(read: () => T, message: string): T {
  try {
    return read();
  } catch (e) {
    if (isStructureError(e)) throw new PkiError(message);
    throw e;
  }
}

/** A {@link DerElement} as read: its content a view, its whole bytes made on demand. */
class Element implements DerElement {
  readonly cls: number;
  readonly constructed: boolean;
  readonly tag: number;
  readonly content: Uint8Array;
  /** Where the element ends in its input (the next one starts there). */
  readonly end: number;
  readonly #input: Uint8Array;
  readonly #offset: number;

  constructor(
    input: Uint8Array,
    offset: number,
    id: number,
    tag: number,
    start: number,
    end: number,
  ) {
    this.cls = id >> 6;
    this.constructed = (id & 0x20) !== 0;
    this.tag = tag;
    this.content = input.subarray(start, end);
    this.end = end;
    this.#input = input;
    this.#offset = offset;
  }

  get raw(): Uint8Array {
    return this.#input.subarray(this.#offset, this.end);
  }
}

function elementAt(bytes: Uint8Array, offset: number): Element {
  let i = offset;
  if (i + 2 > bytes.length) malformed();
  const id = bytes[i++];
  // The high-tag-number form (tags above 30): no structure kubeadm reads has one, and Go's
  // parsers (cryptobyte) refuse it.
  if ((id & 0x1f) === 0x1f) malformed();
  let length = bytes[i++];
  if (length & 0x80) {
    const n = length & 0x7f;
    // 0x80 is BER's indefinite length; more than 4 length octets cannot fit in memory.
    if (n === 0 || n > 4 || i + n > bytes.length) malformed();
    length = 0;
    for (let k = 0; k < n; k++) length = length * 256 + bytes[i++];
    // DER: the fewest octets (short form below 128, no leading zero octet).
    if (length < 0x80 || bytes[i - n] === 0) malformed();
  }
  const end = i + length;
  if (end > bytes.length) malformed();
  return new Element(bytes, offset, id, id & 0x1f, i, end);
}

/** The first element of `bytes` (what follows it is ignored); `asn1: structure error` if none. */
export function readDer(bytes: Uint8Array): DerElement {
  return elementAt(bytes, 0);
}

/** The elements inside a constructed element, in order; none for a primitive one. */
export function childrenOf(el: DerElement | undefined): DerElement[] {
  if (!el?.constructed) return [];
  const out: DerElement[] = [];
  for (let i = 0; i < el.content.length;) {
    const element = elementAt(el.content, i);
    out.push(element);
    i = element.end;
  }
  return out;
}

/** Whether `el` is the universal type `tag`. */
export function isUniversal(el: DerElement | undefined, tag: number): el is DerElement {
  return el !== undefined && el.cls === UNIVERSAL && el.tag === tag;
}

/** Whether `el` is the context-specific `[tag]`. */
export function isContext(el: DerElement | undefined, tag: number): el is DerElement {
  return el !== undefined && el.cls === CONTEXT && el.tag === tag;
}

/**
 * The dotted text of an OBJECT IDENTIFIER element; `undefined` when it is not one or not a valid
 * one in Go's terms (empty, an arc with a leading 0x80 or cut short, an arc above 2^31-1).
 */
export function oidOf(el: DerElement | undefined): string | undefined {
  if (!isUniversal(el, TAG.oid) || el.constructed || el.content.length === 0) return undefined;
  const arcs: number[] = [];
  let v = 0;
  let octets = 0;
  for (const b of el.content) {
    if (octets === 0 && b === 0x80) return undefined;
    if (++octets > 5 || v >= 1 << 24) return undefined;
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(v);
      v = 0;
      octets = 0;
    }
  }
  if (octets !== 0) return undefined;
  const first = arcs[0] < 40 ? 0 : arcs[0] < 80 ? 1 : 2;
  return [first, arcs[0] - first * 40, ...arcs.slice(1)].join(".");
}

/** The value of a DER BOOLEAN (one octet, 0x00 or 0xff); `asn1: structure error` otherwise. */
export function booleanOf(el: DerElement | undefined): boolean {
  const c = primitiveOf(el, TAG.boolean);
  if (c.length !== 1 || (c[0] !== 0 && c[0] !== 0xff)) malformed();
  return c[0] === 0xff;
}

/**
 * The data bits of a BIT STRING element (its content after the unused-bits octet), checked as
 * DER: at most 7 unused bits, none when there is no data, and those bits zero.
 */
export function bitStringOf(el: DerElement | undefined): Uint8Array {
  const c = primitiveOf(el, TAG.bitString);
  const unused = c[0];
  if (
    c.length === 0 || unused > 7 || (c.length === 1 && unused !== 0) ||
    (c.length > 1 && (c[c.length - 1] & ((1 << unused) - 1)) !== 0)
  ) {
    malformed();
  }
  return c.subarray(1);
}

/** The content of a primitive universal element of type `tag` (INTEGER, OCTET STRING, ...). */
export function primitiveOf(el: DerElement | undefined, tag: number): Uint8Array {
  if (!isUniversal(el, tag) || el.constructed) malformed();
  return el.content;
}

/** The value of a DER INTEGER (two's complement, minimally encoded, at least one octet). */
export function integerOf(el: DerElement | undefined): bigint {
  const c = primitiveOf(el, TAG.integer);
  if (
    c.length === 0 || (c.length > 1 && (c[0] === 0 ? c[1] < 0x80 : c[0] === 0xff && c[1] >= 0x80))
  ) {
    malformed();
  }
  // Through hex text: shifting a BigInt in octet by octet is quadratic in the length.
  const hex = new Uint8Array(2 + 2 * c.length);
  hex.set([0x30, 0x78]); // "0x"
  for (let i = 0; i < c.length; i++) {
    hex[2 + 2 * i] = HEX_DIGITS[c[i] >> 4];
    hex[3 + 2 * i] = HEX_DIGITS[c[i] & 15];
  }
  const v = BigInt(new TextDecoder().decode(hex));
  return c[0] & 0x80 ? v - (1n << BigInt(c.length * 8)) : v;
}

const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");

/** Bytes as ISO 8859-1 text (each octet its code point), in chunks the engine can spread. */
function latin1(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x2000) s += String.fromCharCode(...b.subarray(i, i + 0x2000));
  return s;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Go's PrintableString set, with the `*` and `&` it tolerates. */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?*&]*$/;

function ascii(b: Uint8Array, valid: (s: string) => boolean, name: string): string {
  if (b.some((x) => x >= 0x80)) throw new PkiError(`invalid ${name}`);
  const s = latin1(b);
  if (!valid(s)) throw new PkiError(`invalid ${name}`);
  return s;
}

function bmp(b: Uint8Array): string {
  if (b.length % 2 !== 0) throw new PkiError("invalid BMPString");
  // A trailing NUL terminator is dropped, as Go does.
  const end = b.length >= 2 && b[b.length - 1] === 0 && b[b.length - 2] === 0
    ? b.length - 2
    : b.length;
  const units = new Uint16Array(end / 2);
  for (let i = 0; i < end; i += 2) {
    const u = (b[i] << 8) | b[i + 1];
    // Surrogates and the permanent noncharacters are not UCS-2.
    if ((u >= 0xd800 && u <= 0xdfff) || (u >= 0xfdd0 && u <= 0xfdef) || u >= 0xfffe) {
      throw new PkiError("invalid BMPString");
    }
    units[i / 2] = u;
  }
  let s = "";
  for (let i = 0; i < units.length; i += 0x2000) {
    s += String.fromCharCode(...units.subarray(i, i + 0x2000));
  }
  return s;
}

/** Decoders of the character string types Go reads in a Name, by universal tag. */
const STRING_DECODERS: Record<number, (b: Uint8Array) => string> = {
  12: (b) => {
    try {
      return UTF8.decode(b);
    } catch {
      throw new PkiError("invalid UTF-8 string");
    }
  },
  18: (b) => ascii(b, (s) => /^[0-9 ]*$/.test(s), "NumericString"),
  19: (b) => ascii(b, (s) => PRINTABLE.test(s), "PrintableString"),
  20: latin1, // TeletexString (T61), read as Latin-1 as Go and BoringSSL do
  22: (b) => ascii(b, () => true, "IA5String"),
  30: bmp, // BMPString
};

/**
 * The text of a character string element as Go's `crypto/x509` reads one (UTF8String,
 * PrintableString, T61String, IA5String, NumericString, BMPString, each checked); throws a
 * {@link PkiError} with Go's message for any other type or invalid content.
 */
export function stringOf(el: DerElement): string {
  const decode = el.cls === UNIVERSAL && !el.constructed ? STRING_DECODERS[el.tag] : undefined;
  if (!decode) {
    throw new PkiError(
      `unsupported string type: ${(el.cls << 6) | (el.constructed ? 0x20 : 0) | el.tag}`,
    );
  }
  return decode(el.content);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const UTC_TIME = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(Z|[+-]\d{4})$/;
const GENERALIZED_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(Z|[+-]\d{4})$/;

/**
 * The instant of a UTCTime or GeneralizedTime element read as Go reads them (`YYMMDDhhmm[ss]`
 * or `YYYYMMDDhhmmss`, then `Z` or a `±hhmm` offset; every field in range, no fraction, no
 * `+0000`); `undefined` when it is neither or not valid.
 */
export function timeOf(el: DerElement | undefined): Date | undefined {
  const utc = isUniversal(el, TAG.utcTime);
  if ((!utc && !isUniversal(el, TAG.generalizedTime)) || el!.constructed) return undefined;
  const m = (utc ? UTC_TIME : GENERALIZED_TIME).exec(latin1(el!.content));
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const fullYear = utc ? year + (year < 50 ? 2000 : 1900) : year;
  const leap = fullYear % 4 === 0 && (fullYear % 100 !== 0 || fullYear % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  if (!days || day < 1 || day > days || hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  let offsetMinutes = 0;
  if (m[7] !== "Z") {
    const hh = Number(m[7].slice(1, 3));
    const mm = Number(m[7].slice(3));
    // Go writes a zero offset as `Z` and keeps only what it writes back the same way.
    if (hh > 24 || mm > 59 || hh + mm === 0) return undefined;
    offsetMinutes = (m[7][0] === "+" ? 1 : -1) * (hh * 60 + mm);
  }
  const t = new Date(0);
  t.setUTCFullYear(fullYear, month - 1, day);
  t.setUTCHours(hour, minute - offsetMinutes, second, 0);
  return t;
}
