/**
 * Values and builtin functions of Go templates as upstream's printer has them: Go's builtins
 * (`and`, `or`, `not`, `len`, `index`, `slice`, `eq`…`ge`, `print*`, `html`, `js`,
 * `urlquery`, `call`) and cli-runtime's `exists` and `base64decode`, with Go's error texts.
 *
 * @module
 */
import {
  GoInt,
  goIntValue,
  goSprint,
  goSprintf,
  goSprintln,
  goSprintValue,
  goTypeName,
  type GoValue,
  isGoMap,
} from "./go_fmt.ts";
import { isPrintable } from "../core/text/unicode.ts";

/** An `interface{}` holding a value (a map's or list's element); `null` inside: a nil one. */
export class Iface {
  constructor(readonly v: GoValue) {}
}

/** A value during execution: invalid (`undefined`), an interface, or a concrete value. */
export type Val = undefined | Iface | Exclude<GoValue, null>;

/** Parameter kinds of the builtin functions. */
export type Param = "value" | "any" | "string";

export interface Builtin {
  params: Param[];
  variadic?: Param;
}

export const BUILTINS: Readonly<Record<string, Builtin>> = {
  and: { params: ["value"], variadic: "value" },
  or: { params: ["value"], variadic: "value" },
  call: { params: ["value"], variadic: "value" },
  html: { params: [], variadic: "any" },
  index: { params: ["value"], variadic: "value" },
  slice: { params: ["value"], variadic: "value" },
  js: { params: [], variadic: "any" },
  len: { params: ["value"] },
  not: { params: ["value"] },
  print: { params: [], variadic: "any" },
  printf: { params: ["string"], variadic: "any" },
  println: { params: [], variadic: "any" },
  urlquery: { params: [], variadic: "any" },
  eq: { params: ["value"], variadic: "value" },
  ge: { params: ["value", "value"] },
  gt: { params: ["value", "value"] },
  le: { params: ["value", "value"] },
  lt: { params: ["value", "value"] },
  ne: { params: ["value", "value"] },
  exists: { params: ["any"], variadic: "any" },
  base64decode: { params: ["string"] },
};

export function typeOf(v: Val): string {
  if (v instanceof Iface) return "interface {}";
  return goTypeName(v as GoValue);
}

/** Unwraps an interface (`indirectInterface`): a nil one is invalid. */
export function concrete(v: Val): Exclude<Val, Iface> {
  if (v instanceof Iface) return v.v === null ? undefined : v.v;
  return v;
}

/** A value as an `interface{}` argument (nil for invalid or nil). */
export function asAny(v: Val): GoValue {
  if (v === undefined) return null;
  return v instanceof Iface ? v.v : v;
}

export function elem(v: GoValue): Iface {
  return new Iface(v);
}

function isTrue(v: Exclude<Val, Iface>): boolean {
  if (v === undefined) return false;
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v.length > 0;
  if (typeof v === "number") return v !== 0;
  const n = goIntValue(v);
  if (n !== undefined) return n !== 0n;
  if (Array.isArray(v)) return v.length > 0;
  return Object.keys(v).length > 0;
}

export function truth(v: Val): boolean {
  return isTrue(concrete(v));
}

export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

type Kind = "bool" | "int" | "float" | "string" | "invalid";

function basicKind(v: Exclude<Val, Iface>): Kind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float";
  if (goIntValue(v) !== undefined) return "int";
  return "invalid";
}

export class FuncError extends Error {}

function sprintS(v: Val): string {
  return goSprintf("%s", [asAny(v)]);
}

function eq(arg1: Val, rest: Val[]): boolean {
  const a = concrete(arg1);
  if (rest.length === 0) throw new FuncError("missing argument for comparison");
  const k1 = basicKind(a);
  for (const r of rest) {
    const b = concrete(r);
    const k2 = basicKind(b);
    let t = false;
    if (k1 !== k2) {
      if (a !== undefined && b !== undefined) {
        throw new FuncError(`incompatible types for comparison: ${typeOf(a)} and ${typeOf(b)}`);
      }
    } else if (k1 === "int") t = goIntValue(a) === goIntValue(b);
    else if (k1 !== "invalid") t = a === b;
    else {
      const nil1 = a === undefined;
      const nil2 = b === undefined;
      if (nil1 || nil2) t = nil1 === nil2;
      else if (Array.isArray(a) !== Array.isArray(b)) {
        throw new FuncError(
          `non-comparable types ${sprintS(a)}: ${typeOf(a)}, ${typeOf(b)}: ${
            goSprintValue(b as GoValue)
          }`,
        );
      } else {
        throw new FuncError(`non-comparable type ${sprintS(b)}: ${typeOf(b)}`);
      }
    }
    if (t) return true;
  }
  return false;
}

function lt(arg1: Val, arg2: Val): boolean {
  const a = concrete(arg1);
  const b = concrete(arg2);
  const k1 = basicKind(a);
  if (k1 === "invalid") throw new FuncError("invalid type for comparison");
  const k2 = basicKind(b);
  if (k2 === "invalid") throw new FuncError("invalid type for comparison");
  if (k1 !== k2) {
    throw new FuncError(`incompatible types for comparison: ${typeOf(a)} and ${typeOf(b)}`);
  }
  if (k1 === "bool") throw new FuncError("invalid type for comparison");
  if (k1 === "int") return goIntValue(a)! < goIntValue(b)!;
  if (k1 === "string") return utf8Less(a as string, b as string);
  return (a as number) < (b as number);
}

function utf8Less(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i];
  }
  return x.length < y.length;
}

function indexArg(index: Val, cap: number): number {
  const v = concrete(index);
  const n = goIntValue(v);
  if (n === undefined) {
    if (v === undefined) throw new FuncError("cannot index slice/array with nil");
    throw new FuncError(`cannot index slice/array with type ${typeOf(v)}`);
  }
  if (n < 0n || n > BigInt(cap)) throw new FuncError(`index out of range: ${n}`);
  return Number(n);
}

function indexFn(item: Val, indexes: Val[]): Val {
  let it: Val = concrete(item);
  if (it === undefined) throw new FuncError("index of untyped nil");
  for (const raw of indexes) {
    const index = concrete(raw);
    if (it instanceof Iface) {
      if (it.v === null) throw new FuncError("index of nil pointer");
      it = it.v;
    }
    if (typeof it === "string") {
      const bytes = new TextEncoder().encode(it);
      const x = indexArg(index, bytes.length);
      if (x >= bytes.length) throw new FuncError("reflect: string index out of range");
      it = new GoInt(BigInt(bytes[x]));
    } else if (Array.isArray(it)) {
      const x = indexArg(index, it.length);
      if (x >= it.length) throw new FuncError("reflect: slice index out of range");
      it = elem(it[x]);
    } else if (isGoMap(it)) {
      if (index === undefined) throw new FuncError("value is nil; should be of type string");
      if (typeof index !== "string") {
        throw new FuncError(`value has type ${typeOf(index)}; should be string`);
      }
      it = elem(Object.hasOwn(it, index) ? it[index] : null);
    } else {
      throw new FuncError(`can't index item of type ${typeOf(it as Val)}`);
    }
  }
  return it;
}

function sliceFn(item: Val, indexes: Val[]): Val {
  const it = concrete(item);
  if (it === undefined) throw new FuncError("slice of untyped nil");
  if (indexes.length > 3) throw new FuncError(`too many slice indexes: ${indexes.length}`);
  let len: number;
  if (typeof it === "string") {
    if (indexes.length === 3) throw new FuncError("cannot 3-index slice a string");
    len = utf8Length(it);
  } else if (Array.isArray(it)) len = it.length;
  else throw new FuncError(`can't slice item of type ${typeOf(it)}`);
  const idx = [0, len, len];
  indexes.forEach((x, i) => idx[i] = indexArg(x, len));
  if (idx[0] > idx[1]) throw new FuncError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1] > idx[2]) {
    throw new FuncError(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  }
  if (typeof it === "string") {
    return new TextDecoder().decode(new TextEncoder().encode(it).slice(idx[0], idx[1]));
  }
  return (it as GoValue[]).slice(idx[0], idx[1]);
}

function lenFn(item: Val): Val {
  if (item instanceof Iface && item.v === null) throw new FuncError("len of nil pointer");
  const it = concrete(item);
  if (it === undefined) {
    throw new FuncError("reflect: call of reflect.Value.Type on zero Value");
  }
  if (typeof it === "string") return new GoInt(BigInt(utf8Length(it)));
  if (Array.isArray(it)) return new GoInt(BigInt(it.length));
  if (isGoMap(it)) return new GoInt(BigInt(Object.keys(it).length));
  throw new FuncError(`len of type ${typeOf(it)}`);
}

function existsFn(item: GoValue, indices: GoValue[]): boolean {
  let v: GoValue | undefined = item === null ? undefined : item;
  for (const index of indices) {
    if (v === null) return false;
    if (v === undefined) return false;
    if (typeof v === "string" || Array.isArray(v)) {
      const n = goIntValue(index);
      if (n === undefined) return false;
      const len = typeof v === "string" ? utf8Length(v) : v.length;
      if (n < 0n || n >= BigInt(len)) return false;
      v = typeof v === "string"
        ? new GoInt(BigInt(new TextEncoder().encode(v)[Number(n)]))
        : v[Number(n)];
    } else if (isGoMap(v)) {
      const key = index === null ? "" : index;
      if (typeof key !== "string") return false;
      v = Object.hasOwn(v, key) ? v[key] : null;
    } else return false;
  }
  return v !== null;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Go's `base64.StdEncoding.DecodeString` (padding required; CR and LF skipped). */
function base64Decode(s: string): string {
  const bytes: number[] = [];
  const chars = [...new TextEncoder().encode(s)];
  let quantum: number[] = [];
  let i = 0;
  const corrupt = (at: number) => new FuncError(`illegal base64 data at input byte ${at}`);
  while (i < chars.length) {
    const c = chars[i];
    if (c === 0x0a || c === 0x0d) {
      i++;
      continue;
    }
    if (c === 0x3d) {
      // Padding: only after 2 or 3 symbols of a quantum, then the end.
      const have = quantum.length;
      if (have < 2) throw corrupt(i);
      let j = i + 1;
      const skip = () => {
        while (j < chars.length && (chars[j] === 0x0a || chars[j] === 0x0d)) j++;
      };
      if (have === 2) {
        skip();
        if (j >= chars.length) throw corrupt(chars.length);
        if (chars[j] !== 0x3d) throw corrupt(j);
        j++;
      }
      skip();
      if (j < chars.length) throw corrupt(j);
      const n = (quantum[0] << 18) | (quantum[1] << 12) | ((quantum[2] ?? 0) << 6);
      bytes.push((n >> 16) & 0xff);
      if (have === 3) bytes.push((n >> 8) & 0xff);
      quantum = [];
      i = chars.length;
      break;
    }
    const v = B64.indexOf(String.fromCharCode(c));
    if (v < 0) throw corrupt(i);
    quantum.push(v);
    if (quantum.length === 4) {
      const n = (quantum[0] << 18) | (quantum[1] << 12) | (quantum[2] << 6) | quantum[3];
      bytes.push((n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
      quantum = [];
    }
    i++;
  }
  if (quantum.length > 0) throw corrupt(chars.length - quantum.length);
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) =>
    ({
      "\0": "\uFFFD",
      '"': "&#34;",
      "'": "&#39;",
      "&": "&amp;",
      "<": "&lt;",
      ">": "&gt;",
    })[c]!);
}

function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case "\\":
        out += "\\\\";
        continue;
      case "'":
        out += "\\'";
        continue;
      case '"':
        out += '\\"';
        continue;
      case "<":
        out += "\\u003C";
        continue;
      case ">":
        out += "\\u003E";
        continue;
      case "&":
        out += "\\u0026";
        continue;
      case "=":
        out += "\\u003D";
        continue;
    }
    if (cp < 0x20) out += `\\u00${cp.toString(16).toUpperCase().padStart(2, "0")}`;
    else if (cp < 0x80 || isPrintable(cp)) out += ch;
    else out += `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return out;
}

function urlQueryEscape(s: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The text/template `evalArgs` of `html`, `js` and `urlquery`. */
function escaperArgs(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return goSprint(args.map((a) => a === null ? "<no value>" : a));
}

/**
 * Calls builtin `name` on evaluated arguments; `callee` is the text of `call`'s first argument.
 * Throws a {@link FuncError} with Go's message.
 */
export function callBuiltin(name: string, argv: Val[], callee: string | undefined): Val {
  const any = () => argv.map(asAny);
  switch (name) {
    case "not":
      return !truth(argv[0]);
    case "len":
      return lenFn(argv[0]);
    case "index":
      return indexFn(argv[0], argv.slice(1));
    case "slice":
      return sliceFn(argv[0], argv.slice(1));
    case "eq":
      return eq(argv[0], argv.slice(1));
    case "ne":
      return !eq(argv[0], [argv[1]]);
    case "lt":
      return lt(argv[0], argv[1]);
    case "le":
      return lt(argv[0], argv[1]) || eq(argv[0], [argv[1]]);
    case "gt":
      return !(lt(argv[0], argv[1]) || eq(argv[0], [argv[1]]));
    case "ge":
      return !lt(argv[0], argv[1]);
    case "print":
      return goSprint(any());
    case "printf":
      return goSprintf(argv[0] as string, any().slice(1));
    case "println":
      return goSprintln(any());
    case "html":
      return htmlEscape(escaperArgs(any()));
    case "js":
      return jsEscape(escaperArgs(any()));
    case "urlquery":
      return urlQueryEscape(escaperArgs(any()));
    case "exists":
      return existsFn(asAny(argv[0]), any().slice(1));
    case "base64decode":
      try {
        return base64Decode(argv[0] as string);
      } catch (e) {
        throw new FuncError(`base64 decode failed: ${(e as Error).message}`);
      }
    case "call": {
      const f = concrete(argv[0]);
      if (f === undefined) throw new FuncError("call of nil");
      const fnName = callee ?? sprintS(f);
      throw new FuncError(`non-function ${fnName} of type ${typeOf(f)}`);
    }
  }
  throw new FuncError(`unknown function ${name}`);
}
