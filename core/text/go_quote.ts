/**
 * Go's `%q` / `strconv.Quote` for strings, used where kubeadm writes quoted values into files
 * (`kubeadm-flags.env`, `instance-config.yaml`) and where Go's messages and printers quote
 * (the template printers in `printers/`, upgrade's policy errors, KYAML).
 *
 * Printable characters are kept; `"` and `\` are escaped; `\a \b \f \n \r \t \v` use their
 * short escapes; other ASCII control characters become `\xNN`, other non-printable characters
 * `\uNNNN` or `\UNNNNNNNN` (lowercase hex, as Go writes them).
 *
 * @module
 */
import { isPrintable, singleCodePoint } from "./unicode.ts";

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

/** One character as Go's `strconv.Quote` writes it inside the quotes. */
export function goEscapeRune(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short) return short;
  const cp = ch.codePointAt(0)!;
  if (singleCodePoint(ch) !== undefined && isPrintable(cp)) return ch;
  if (cp < 0x80) return `\\x${cp.toString(16).padStart(2, "0")}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, "0")}`;
  return `\\U${cp.toString(16).padStart(8, "0")}`;
}

/** Quotes `s` exactly like Go's `strconv.Quote` (and `fmt`'s `%q`). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += goEscapeRune(ch);
  return `${out}"`;
}
