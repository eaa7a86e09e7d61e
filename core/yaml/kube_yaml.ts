/**
 * YAML the way Kubernetes tooling writes and reads it.
 *
 * Output matches `kubectl -o yaml` (go-yaml v2 via sigs.k8s.io/yaml): keys sorted, sequences
 * not indented under their key, strings that would read back as another type double-quoted,
 * other non-plain strings single-quoted, multi-line strings as literal blocks. Parsing uses
 * YAML 1.1 rules like Go's reader (`yes` is a boolean, `0755` is octal).
 *
 * @module
 */
import * as YAML from "yaml";
import { ConfigError } from "../errors.ts";
import { BoundedMemo } from "../text/bounded_memo.ts";

/**
 * A plain scalar of letters, digits and `._/-` that starts with a letter reads back as a string
 * under YAML 1.1 unless it is one of the boolean or null words (any case is checked the slow way).
 */
const PLAIN_WORD = /^(?![eE][-+0-9])[A-Za-z][A-Za-z0-9._/-]*$/;
const YAML11_WORDS = new Set(["y", "yes", "n", "no", "true", "false", "on", "off", "null"]);

/**
 * Answers of {@link parsesAsNonString}, per isolate (a pure function of the text), bounded, for
 * short texts only: a memo outlives the run, and longer texts may be secrets (a bootstrap token
 * is 23 characters, a certificate key 64), while YAML 1.1's typed words and numbers are short.
 */
const nonStringMemo = new BoundedMemo<boolean>(4096);
const NON_STRING_MEMO_MAX_LENGTH = 16;

/**
 * One plain scalar with a `/` or `=` in it (base64 data, paths, flags): no YAML 1.1 type but
 * string matches those, and none of its characters is YAML syntax, so it reads as a string.
 */
const UNTYPED_PLAIN = /^(?![-.:?])[^\s#!&*'"|>%@`?{}[\],]*[/=][^\s#!&*'"|>%@`?{}[\],]*$/;

/** Whether YAML 1.1 reads `value` back as another type than string (`"3.10"`, `"yes"`). */
export function readsAsNonString(value: string): boolean {
  if (value === "") return true;
  if (PLAIN_WORD.test(value) && (value.length > 5 || !YAML11_WORDS.has(value.toLowerCase()))) {
    return false; // (the longest YAML 1.1 word is 5 letters)
  }
  if (UNTYPED_PLAIN.test(value)) return false;
  if (value.length > NON_STRING_MEMO_MAX_LENGTH) return parsesAsNonString(value);
  return nonStringMemo.get(value) ?? nonStringMemo.set(value, parsesAsNonString(value));
}

/** Whether YAML 1.1 reads `value` back as a scalar of another type than string. */
export function parsesAsNonString(value: string): boolean {
  try {
    const parsed = YAML.parse(value, { version: "1.1", logLevel: "error" });
    // Scalars of another type (number, bool, null, date) must be double-quoted like Go does;
    // strings that merely need quoting (`a: b`, `*`) are left to the single-quote default.
    return parsed === null || (typeof parsed !== "string" && typeof parsed !== "object") ||
      parsed instanceof Date;
  } catch {
    return false;
  }
}

/** Thrown inside {@link blockYaml} when a value needs the full emitter. */
const NEEDS_FULL_EMITTER = Symbol("needs the full YAML emitter");

/**
 * Strings that are plain scalars as they stand (no indicator first, no `: ` or ` #`, not a
 * document marker, one line of printable ASCII): written as they are, or double-quoted when they
 * would read back as another type. Anything else goes to the full emitter.
 */
const SIMPLE_STRING = /^(?!---|\.\.\.|-$)[A-Za-z0-9_./+=$(-][A-Za-z0-9_./+=:,@$()*-]*(?<!:)$/;

/**
 * Multi-line text the literal block style (`|`, `|-`) carries as it stands: printable ASCII,
 * spaces and newlines, not starting with a space or newline, not ending in blanks, at most one
 * final newline.
 */
const SIMPLE_BLOCK = /^[!-~][ -~\n]*(?<![ \n])\n?$/;

function scalarYaml(value: unknown, indent: string): string {
  if (typeof value === "string") {
    if (value === "") return '""';
    if (value.includes("\n")) {
      if (!SIMPLE_BLOCK.test(value)) throw NEEDS_FULL_EMITTER;
      const clip = value.endsWith("\n");
      const body = clip ? value.slice(0, -1) : value;
      return `|${clip ? "" : "-"}\n${indent}${body.replace(/\n+/g, `$&${indent}`)}`;
    }
    if (!SIMPLE_STRING.test(value) || value.length > 1024) throw NEEDS_FULL_EMITTER;
    return readsAsNonString(value) ? `"${value}"` : value;
  }
  if (typeof value === "number" && Number.isSafeInteger(value) && !Object.is(value, -0)) {
    return String(value);
  }
  if (typeof value === "boolean") return String(value);
  if (value === null) return "null";
  throw NEEDS_FULL_EMITTER;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Sorted keys of a map's defined entries, as the full emitter orders them (code-unit order). */
function mapKeys(value: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const k of Object.keys(value)) if (value[k] !== undefined) keys.push(k);
  return keys.sort();
}

function isEmptyCollection(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length === 0 ? "[]" : undefined;
  if (!isPlainObject(value)) return undefined;
  for (const k in value) {
    if (Object.hasOwn(value, k) && value[k] !== undefined) return undefined;
  }
  return "{}";
}

/**
 * Block YAML of a map or sequence at `indent`, each line ending in a newline, the first line
 * without its indentation (the caller has written it, or a `- ` in its place).
 */
function blockYaml(value: unknown, indent: string): string {
  let out = "";
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) continue; // a hole, as forEach skips it
      const item = value[i];
      if (item === undefined) throw NEEDS_FULL_EMITTER;
      out += `${i === 0 ? "" : indent}- `;
      const empty = isEmptyCollection(item);
      if (empty !== undefined) out += `${empty}\n`;
      else if (Array.isArray(item) || isPlainObject(item)) out += blockYaml(item, `${indent}  `);
      else out += `${scalarYaml(item, `${indent}  `)}\n`;
    }
    return out;
  }
  if (!isPlainObject(value)) throw NEEDS_FULL_EMITTER;
  const keys = mapKeys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const item = value[key];
    if (key.includes("\n")) throw NEEDS_FULL_EMITTER;
    out += `${i === 0 ? "" : indent}${scalarYaml(key, indent)}:`;
    const empty = isEmptyCollection(item);
    if (empty !== undefined) out += ` ${empty}\n`;
    else if (Array.isArray(item)) out += `\n${indent}${blockYaml(item, indent)}`;
    else if (isPlainObject(item)) out += `\n${indent}  ${blockYaml(item, `${indent}  `)}`;
    else out += ` ${scalarYaml(item, `${indent}  `)}\n`;
  }
  return out;
}

/** Serialises one object as Kubernetes-style YAML (no leading `---`, trailing newline). */
export function toKubeYaml(value: unknown): string {
  if (isEmptyCollection(value) === undefined && (Array.isArray(value) || isPlainObject(value))) {
    try {
      return blockYaml(value, "");
    } catch (e) {
      if (e !== NEEDS_FULL_EMITTER) throw e;
    }
  }
  return fullKubeYaml(value);
}

/** {@link toKubeYaml} on the `yaml` library's emitter: every value, every string. */
export function fullKubeYaml(value: unknown): string {
  const doc = new YAML.Document(value, {
    version: "1.1",
    aliasDuplicateObjects: false,
    sortMapEntries: true,
  });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === "string") {
        if (node.value.includes("\n")) {
          node.type = YAML.Scalar.BLOCK_LITERAL;
        } else if (readsAsNonString(node.value)) {
          node.type = YAML.Scalar.QUOTE_DOUBLE;
        }
      }
    },
  });
  return doc.toString({
    indentSeq: false,
    blockQuote: "literal",
    singleQuote: true,
    lineWidth: 0,
    minContentWidth: 0,
    nullStr: "null",
  });
}

/** One parsed YAML document with its position in the stream. */
export interface ParsedDocument {
  /** 0-based index in the stream. */
  index: number;
  /** The plain JS value of the document. */
  value: unknown;
}

/** Alias expansions allowed per document (a guard against "billion laughs" inputs). */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses a (possibly multi-document) YAML or JSON stream with YAML 1.1 semantics.
 * Empty documents are dropped. Syntax errors, duplicate keys and alias bombs (more than
 * {@link MAX_ALIAS_COUNT} alias expansions) raise a {@link ConfigError} naming the source and
 * the document.
 */
export function parseKubeYaml(text: string, source = "<input>"): ParsedDocument[] {
  const docs = YAML.parseAllDocuments(text, { version: "1.1", uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const out: ParsedDocument[] = [];
  list.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      const err = doc.errors[0];
      const line = err.linePos?.[0]?.line;
      throw new ConfigError(
        `${source}: invalid YAML in document ${index + 1}${line ? ` at line ${line}` : ""}: ${
          err.message.split("\n")[0]
        }`,
        { field: source, hint: "fix the YAML syntax" },
      );
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      // The only failure left after parsing: alias expansion past the limit ("billion laughs").
      throw new ConfigError(
        `${source}: invalid YAML in document ${
          index + 1
        }: too many aliases (more than ${MAX_ALIAS_COUNT} alias expansions): ${
          e instanceof Error ? e.message : String(e)
        }`,
        {
          field: source,
          hint: "a configuration needs no more than a few aliases; write the values out",
          cause: e,
        },
      );
    }
    if (value === null || value === undefined) return;
    out.push({ index, value });
  });
  return out;
}

/** Parses a single-document YAML (or JSON) text. */
export function parseKubeYamlOne(text: string, source = "<input>"): unknown {
  return onlyDocument(parseKubeYaml(text, source), source);
}

/** The value of the one document of a parsed stream ({@link parseKubeYamlOne}'s rule). */
export function onlyDocument(docs: readonly ParsedDocument[], source = "<input>"): unknown {
  if (docs.length !== 1) {
    throw new ConfigError(`${source}: expected exactly one YAML document, found ${docs.length}`, {
      field: source,
    });
  }
  return docs[0].value;
}
