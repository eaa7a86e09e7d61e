/**
 * KYAML, the strict YAML subset `-o kyaml` prints (sigs.k8s.io/yaml `kyaml.Encoder`, new in
 * kubeadm 1.37): a `---` line, then flow style everywhere — `{` mappings with one `key: value,`
 * per line, sequences of mappings or sequences cuddled (`[{ … }, { … }]`), other sequences one
 * item per line — keys unquoted unless they could read as something else, every string value
 * double-quoted, two spaces per level. Input is a JSON-like value (what the object's JSON
 * encoding holds, in that key order); comments and anchors do not occur.
 *
 * @module
 */

import { goEscapeRune } from "../text/go_quote.ts";
import { isLetter, isNumber, singleCodePoint } from "../text/unicode.ts";

const INDENT = "  ";

function isLetterOrNumber(ch: string): boolean {
  const cp = singleCodePoint(ch);
  return cp !== undefined && (isLetter(cp) || isNumber(cp));
}

const SEXAGESIMAL = /^[+-]?[1-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/;
const GO_INT = /^[+-]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[0-9]+)$/;
const GO_FLOAT =
  /^[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|0[xX][0-9a-fA-F.]+[pP][+-]?[0-9]+|inf|infinity|nan)$/i;
const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}.*)?$/;

/** A plain scalar that YAML would read as null, a bool, a number or a timestamp. */
function isTypeAmbiguous(s: string): boolean {
  const lower = s.toLowerCase();
  if (s.length <= 5 && ["null", "~", ""].includes(lower)) return true;
  if (
    ["1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"].includes(s)
  ) {
    return true;
  }
  if (s.length <= 5 && ["y", "yes", "on", "n", "no", "off"].includes(lower)) return true;
  const bare = s.replaceAll("_", "");
  if (GO_INT.test(bare) || GO_FLOAT.test(bare)) return true;
  if (SEXAGESIMAL.test(s)) return true;
  if (s.length <= 5 && [".inf", "-.inf", "+.inf", ".nan"].includes(lower)) return true;
  return TIMESTAMP.test(s);
}

/** Whether a key must be quoted: empty, ambiguous, or any rune besides letters, digits, `_`
 * (and `-` `.` `/` inside). */
function needsQuotes(s: string): boolean {
  if (s === "" || isTypeAmbiguous(s)) return true;
  const runes = [...s];
  return runes.some((r, i) =>
    !(isLetterOrNumber(r) || r === "_" ||
      (i > 0 && i < runes.length - 1 && (r === "-" || r === "." || r === "/")))
  );
}

/** YAML's own escapes, on top of Go's `strconv.Quote` ones. */
const YAML_ESCAPES: Readonly<Record<string, string>> = {
  "\0": "\\0",
  "\x1b": "\\e",
  "\x85": "\\N",
  "\xa0": "\\_",
  "\u2028": "\\L",
  "\u2029": "\\P",
};

function escapeRune(r: string): string {
  return YAML_ESCAPES[r] ?? goEscapeRune(r);
}

/** A string value: always double-quoted; multi-line strings folded over escaped newlines. */
function renderString(s: string, indent: number, key = false): string {
  const multi = s.includes("\n");
  if (key && !multi && !needsQuotes(s)) return s;
  const fold = multi && !key;
  let buf = fold ? '"\\\n' : '"';
  for (const r of s) {
    if (buf.endsWith("\n")) {
      buf += INDENT.repeat(indent) + (/^\s$/u.test(r) && r !== "\n" ? "\\" : " ");
    }
    if (r === "\n") buf += key ? "\\n" : "\\n\\\n";
    else if (r === "\t") buf += key ? "\\t" : "\t";
    else buf += escapeRune(r);
  }
  if (fold) {
    if (!buf.endsWith("\n")) buf += "\\\n";
    buf += INDENT.repeat(indent);
  }
  return `${buf}"`;
}

const isCollection = (v: unknown) => typeof v === "object" && v !== null;

function render(value: unknown, indent: number): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return renderString(value, indent + 1);
  if (typeof value !== "object") return JSON.stringify(value);
  const pad = INDENT.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every(isCollection)) return `[${value.map((v) => render(v, indent)).join(", ")}]`;
    return `[\n${value.map((v) => `${pad}${INDENT}${render(v, indent + 1)},\n`).join("")}${pad}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${
    entries.map(([k, v]) =>
      `${pad}${INDENT}${renderString(k, indent + 1, true)}: ${render(v, indent + 1)},\n`
    ).join("")
  }${pad}}`;
}

/** One object as `-o kyaml` prints it: `---`, the value, a newline. */
export function toKyaml(value: unknown): string {
  return `---\n${render(JSON.parse(JSON.stringify(value)), 0)}\n`;
}
