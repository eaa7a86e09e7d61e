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
const CONTEXT = 2;

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
  if (i >= bytes.length) malformed();
  const id = bytes[i++];
  let tag = id & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (;;) {
      if (i >= bytes.length || tag > 0xffffff) malformed();
      const b = bytes[i++];
      tag = tag * 128 + (b & 0x7f);
      if (!(b & 0x80)) break;
    }
  }
  if (i >= bytes.length) malformed();
  let length = bytes[i++];
  if (length & 0x80) {
    const n = length & 0x7f;
    // 0x80 is BER's indefinite length; more than 4 length octets cannot fit in memory.
    if (n === 0 || n > 4 || i + n > bytes.length) malformed();
    length = 0;
    for (let k = 0; k < n; k++) length = length * 256 + bytes[i++];
  }
  const end = i + length;
  if (end > bytes.length) malformed();
  return new Element(bytes, offset, id, tag, i, end);
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

/** The dotted text of an OBJECT IDENTIFIER element, if it is one. */
export function oidOf(el: DerElement | undefined): string | undefined {
  if (!isUniversal(el, TAG.oid) || el.content.length === 0) return undefined;
  const arcs: number[] = [];
  let v = 0;
  for (const b of el.content) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(v);
      v = 0;
    }
  }
  const first = arcs[0] < 40 ? 0 : arcs[0] < 80 ? 1 : 2;
  return [first, arcs[0] - first * 40, ...arcs.slice(1)].join(".");
}

/** The content of a BOOLEAN element (false when it is not one). */
export function booleanOf(el: DerElement | undefined): boolean {
  return isUniversal(el, TAG.boolean) && el.content.length > 0 && el.content[0] !== 0;
}

/** The data bits of a BIT STRING element (its content after the unused-bits octet). */
export function bitStringOf(el: DerElement | undefined): Uint8Array {
  if (!isUniversal(el, TAG.bitString) || el.constructed || el.content.length === 0) malformed();
  return el.content.subarray(1);
}

/** The content of a primitive universal element of type `tag` (INTEGER, OCTET STRING, ...). */
export function primitiveOf(el: DerElement | undefined, tag: number): Uint8Array {
  if (!isUniversal(el, tag) || el.constructed) malformed();
  return el.content;
}

const latin1 = (b: Uint8Array) => String.fromCharCode(...b);

function utf16be(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i + 1 < b.length; i += 2) s += String.fromCharCode((b[i] << 8) | b[i + 1]);
  return s;
}

function utf32be(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i + 3 < b.length; i += 4) {
    s += String.fromCodePoint(((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0);
  }
  return s;
}

/** Decoders of the character string types an X.509 name may hold, by universal tag. */
const STRING_DECODERS: Record<number, (b: Uint8Array) => string> = {
  12: (b) => new TextDecoder().decode(b), // UTF8String
  18: latin1, // NumericString
  19: latin1, // PrintableString
  20: latin1, // TeletexString (T61)
  21: latin1, // VideotexString
  22: latin1, // IA5String
  25: latin1, // GraphicString
  26: latin1, // VisibleString
  27: latin1, // GeneralString
  28: utf32be, // UniversalString
  30: utf16be, // BMPString
};

/** The text of a character string element, if it is one. */
export function stringOf(el: DerElement | undefined): string | undefined {
  if (!el || el.cls !== UNIVERSAL || el.constructed) return undefined;
  return STRING_DECODERS[el.tag]?.(el.content);
}

const TIME = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(\.\d+)?(Z|[+-]\d{4})$/;

/** The instant of a UTCTime or GeneralizedTime element; `undefined` when it is neither. */
export function timeOf(el: DerElement | undefined): Date | undefined {
  const utc = isUniversal(el, TAG.utcTime);
  if (!utc && !isUniversal(el, TAG.generalizedTime)) return undefined;
  const m = TIME.exec(latin1(el!.content));
  if (!m || (m[1].length === 2) !== utc) return undefined;
  let year = Number(m[1]);
  if (utc) year += year < 50 ? 2000 : 1900;
  const ms = m[7] ? Math.round(Number(`0${m[7]}`) * 1000) : 0;
  let t = Date.UTC(
    year,
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? 0),
    ms,
  );
  if (m[8] !== "Z") {
    const sign = m[8][0] === "+" ? 1 : -1;
    t -= sign * (Number(m[8].slice(1, 3)) * 60 + Number(m[8].slice(3))) * 60000;
  }
  return new Date(t);
}
