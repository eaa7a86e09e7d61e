/**
 * PEM armour, written the way Go's `encoding/pem` writes it (64-column base64 lines, trailing
 * newline) and read as leniently as Go reads it (junk between blocks, CRLF, optional headers).
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
}

/** Encodes one block: `-----BEGIN <type>-----`, 64-column base64, `-----END <type>-----\n`. */
export function encodePem(type: string, bytes: Uint8Array): string {
  const b64 = base64Encode(bytes);
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join("")}-----END ${type}-----\n`;
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
