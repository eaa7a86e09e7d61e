/**
 * Go's `%q` / `strconv.Quote` for strings, used where kubeadm writes quoted values into files
 * (`kubeadm-flags.env`, `instance-config.yaml`).
 *
 * Printable characters are kept; `"` and `\` are escaped; `\a \b \f \n \r \t \v` use their
 * short escapes; other ASCII control characters become `\xNN`, other non-printable characters
 * `\uNNNN` or `\UNNNNNNNN` (lowercase hex, as Go writes them).
 *
 * @module
 */

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

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Quotes `s` exactly like Go's `strconv.Quote` (and `fmt`'s `%q`). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const short = SHORT_ESCAPES[ch];
    if (short) {
      out += short;
      continue;
    }
    if (PRINTABLE.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}
