/**
 * PEM armour, written the way Go's `encoding/pem` writes it (64-column base64 lines, trailing
 * newline) and read as Go reads it (junk between blocks, CRLF, optional headers).
 *
 * @module
 */
import { base64Decode, base64Encode } from "../text/base64.ts";

/** One decoded PEM block. */
export interface PemBlock {
  /** The label, e.g. `CERTIFICATE`, `RSA PRIVATE KEY`. */
  type: string;
  /** The DER bytes. */
  bytes: Uint8Array;
  /** RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`), when the block has any. */
  headers?: Record<string, string>;
}

/** Encodes one block: `-----BEGIN <type>-----`, 64-column base64, `-----END <type>-----\n`. */
export function encodePem(type: string, bytes: Uint8Array): string {
  const b64 = base64Encode(bytes);
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join("")}-----END ${type}-----\n`;
}

const BEGIN = "-----BEGIN ";
const END = "-----END ";
const DASHES = "-----";
/** A line that cannot be in a block's base64 body (Go's decoder refuses any other character). */
const NOT_BASE64 = /[^A-Za-z0-9+/= \t\r]/;

/** Go's `getLine`: a line without its end-of-line and trailing blanks. */
const trimLine = (line: string) => line.replace(/[ \t\r]+$/, "");

/** For each line, the index of the first line at or after it for which `test` holds. */
function nextWhere(lines: string[], test: (line: string) => boolean): Int32Array {
  const next = new Int32Array(lines.length + 1).fill(lines.length);
  for (let i = lines.length - 1; i >= 0; i--) next[i] = test(lines[i]) ? i : next[i + 1];
  return next;
}

/**
 * Decodes every well-formed PEM block in the text, in order, as Go's `pem.Decode` called in a
 * loop does: a block starts at a `-----BEGIN <type>-----` line, may have `key: value` header
 * lines, and ends at the first `-----END ` line after them, which must name the same type;
 * malformed blocks (no matching end, bad base64) are skipped and text outside blocks is
 * ignored. Linear in the text's length (lookup tables instead of searching again from each
 * BEGIN line: many unterminated BEGIN lines cost Go's loop quadratic time).
 */
export function decodePem(input: string | Uint8Array): PemBlock[] {
  const text = typeof input === "string" ? input : new TextDecoder().decode(input);
  const lines = text.split("\n");
  // A trailing newline ends the last line; it does not start another.
  if (lines[lines.length - 1] === "") lines.pop();
  const nextBegin = nextWhere(lines, (l) => l.startsWith(BEGIN));
  const nextEnd = nextWhere(lines, (l) => l.startsWith(END));
  const nextNotBase64 = nextWhere(lines, (l) => NOT_BASE64.test(l));
  const nextNotHeader = nextWhere(lines, (l) => !l.includes(":"));
  const blocks: PemBlock[] = [];
  for (let i = 0; i < lines.length;) {
    const begin = nextBegin[i];
    if (begin >= lines.length) break;
    i = begin + 1;
    const typeLine = trimLine(lines[begin].slice(BEGIN.length));
    if (!typeLine.endsWith(DASHES)) continue;
    const type = typeLine.slice(0, -DASHES.length);
    const bodyStart = nextNotHeader[begin + 1];
    // Headers that run to the end of the text end the whole reading, as in Go.
    if (bodyStart >= lines.length) break;
    const headerLines = lines.slice(begin + 1, bodyStart);
    const end = headerLines.length === 0 && lines[bodyStart].startsWith(END)
      ? bodyStart
      : nextEnd[bodyStart + 1];
    if (end >= lines.length) continue;
    const trailer = lines[end].slice(END.length);
    if (!trailer.startsWith(typeLine) || trimLine(trailer.slice(typeLine.length)) !== "") continue;
    if (nextNotBase64[bodyStart] < end) continue;
    let bytes: Uint8Array;
    try {
      bytes = base64Decode(lines.slice(bodyStart, end).join("").replace(/[ \t\r]/g, ""));
    } catch {
      continue;
    }
    const block: PemBlock = { type, bytes };
    if (headerLines.length > 0) {
      block.headers = Object.fromEntries(headerLines.map((l) => {
        const at = l.indexOf(":");
        return [l.slice(0, at).trim(), l.slice(at + 1).trim()];
      }));
    }
    blocks.push(block);
    i = end + 1;
  }
  return blocks;
}
