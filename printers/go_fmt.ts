/**
 * Go's `fmt` and `encoding/json` over the values a decoded JSON document holds, for the output
 * printers (`-o go-template=…`, `-o jsonpath=…`) that must print values byte for byte as
 * upstream's Go does.
 *
 * A {@link GoValue} is what Go's `interface{}` holds after `json.Unmarshal`: `null` (nil),
 * booleans, strings, `number` (float64), `bigint` (int64: apimachinery keeps integers), a
 * {@link GoInt} (Go's `int`: template literals, `len`), arrays (`[]interface {}`) and plain
 * objects (`map[string]interface {}`, printed in sorted key order as Go prints maps).
 *
 * @module
 */
import { goQuote } from "../core/text/go_quote.ts";
import { isLetter, isNumber, isPrintable } from "../core/text/unicode.ts";

/** Go's `int` (a template's integer literal, `len`'s result), as opposed to data's int64. */
export class GoInt {
  constructor(readonly value: bigint) {}
}

/** A JSON-decoded Go value (see the module comment). */
export type GoValue =
  | null
  | boolean
  | string
  | number
  | bigint
  | GoInt
  | GoValue[]
  | { [key: string]: GoValue };

/** A plain object: Go's `map[string]interface {}`. */
export function isGoMap(v: unknown): v is { [key: string]: GoValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof GoInt);
}

/** The integer a Go int or int64 holds, else `undefined`. */
export function goIntValue(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  return v instanceof GoInt ? v.value : undefined;
}

/**
 * Go's `parsenum`: the leading decimal digits of `s` and how many there are; `undefined` when
 * there are none, `null` when the number grows past 10⁶ (Go gives up on the rest of the format).
 */
function parseNum(s: string): { value: number; length: number } | undefined | null {
  let value = 0;
  let length = 0;
  while (length < s.length && s[length] >= "0" && s[length] <= "9") {
    if (value > 1_000_000) return null;
    value = value * 10 + (s.charCodeAt(length) - 48);
    length++;
  }
  return length === 0 ? undefined : { value, length };
}

/** Go's `%#U` of a character (`U+0023 '#'`), as lexers name an unexpected one. */
export function goCharName(c: string): string {
  return goSprintf("%#U", [new GoInt(BigInt(c.codePointAt(0)!))]);
}

/**
 * A character of a Go identifier or JSONPath word: `_`, a letter or a number (Go asks for a
 * digit, Nd; the core's tables know numbers as a whole).
 */
export function isWordChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  if (c === "_") return true;
  const cp = c.codePointAt(0)!;
  if (cp < 0x80) return /[A-Za-z0-9]/.test(c);
  return isLetter(cp) || isNumber(cp);
}

/** Go's type name of a value (`%T`). */
export function goTypeName(v: GoValue): string {
  if (v === null) return "<nil>";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64";
  if (typeof v === "bigint") return "int64";
  if (v instanceof GoInt) return "int";
  return Array.isArray(v) ? "[]interface {}" : "map[string]interface {}";
}

/** Map keys in Go's order (byte order of the UTF-8 strings). */
export function goSortedKeys(m: { [key: string]: GoValue }): string[] {
  const enc = new TextEncoder();
  return Object.keys(m).sort((a, b) => {
    const x = enc.encode(a);
    const y = enc.encode(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return x[i] - y[i];
    }
    return x.length - y.length;
  });
}

// ---- Floats -----------------------------------------------------------------------------------

/** Decimal digits `d` (no leading zeros unless the value is 0) with the point after `dp`. */
interface Decimal {
  digits: string;
  dp: number;
}

/** The exact decimal expansion of a finite, non-negative float64. */
function exactDecimal(x: number): Decimal {
  if (x === 0) return { digits: "0", dp: 1 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let exp: number;
  if (expBits === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = expBits - 1075;
  }
  if (exp >= 0) {
    const s = (mant << BigInt(exp)).toString();
    return { digits: s, dp: s.length };
  }
  // mant / 2^-exp = mant * 5^-exp / 10^-exp
  const s = (mant * 5n ** BigInt(-exp)).toString();
  const dp = s.length + exp;
  const trimmed = s.replace(/0+$/, "");
  return { digits: trimmed, dp };
}

/** The shortest decimal that reads back as `x` (finite, non-negative), as Go's and JS's. */
function shortestDecimal(x: number): Decimal {
  if (x === 0) return { digits: "0", dp: 1 };
  const [mant, e] = x.toExponential().split("e");
  return { digits: mant.replace(".", ""), dp: Number(e) + 1 };
}

/** `d` rounded to `nd` significant digits, half to even on exact halves (Go's decimal rounding). */
function roundDecimal(d: Decimal, nd: number): Decimal {
  if (nd < 0) return { digits: "0", dp: d.dp };
  if (d.digits.length <= nd) return d;
  const next = d.digits.charCodeAt(nd) - 48;
  let up: boolean;
  if (next === 5 && nd + 1 === d.digits.length) {
    up = nd > 0 && (d.digits.charCodeAt(nd - 1) - 48) % 2 === 1;
  } else up = next >= 5;
  let digits = d.digits.slice(0, nd);
  let dp = d.dp;
  if (up) {
    let i = nd - 1;
    const arr = digits.split("");
    while (i >= 0 && arr[i] === "9") arr[i--] = "0";
    if (i < 0) {
      arr.unshift("1");
      arr.pop();
      dp++;
      if (nd === 0) return { digits: "1", dp };
    } else arr[i] = String.fromCharCode(arr[i].charCodeAt(0) + 1);
    digits = arr.join("");
  }
  digits = digits.replace(/0+$/, "");
  return { digits: digits === "" ? "0" : digits, dp: digits === "" ? 1 : dp };
}

function digitAt(d: Decimal, i: number): string {
  return i >= 0 && i < d.digits.length ? d.digits[i] : "0";
}

/** `%e` of `d` with `prec` digits after the point. */
function formatE(d: Decimal, prec: number, e: string): string {
  let s = d.digits[0] ?? "0";
  if (prec > 0) {
    s += ".";
    for (let i = 1; i <= prec; i++) s += digitAt(d, i);
  }
  const exp = d.digits === "0" ? 0 : d.dp - 1;
  const abs = Math.abs(exp);
  return `${s}${e}${exp < 0 ? "-" : "+"}${abs < 10 ? "0" : ""}${abs}`;
}

/** `%f` of `d` with `prec` digits after the point. */
function formatF(d: Decimal, prec: number): string {
  let s = "";
  if (d.dp > 0) {
    for (let i = 0; i < d.dp; i++) s += digitAt(d, i);
  } else s = "0";
  if (prec > 0) {
    s += ".";
    for (let i = 0; i < prec; i++) s += digitAt(d, d.dp + i);
  }
  return s;
}

/**
 * Go's `strconv.FormatFloat(x, verb, prec, 64)` for verbs `e E f g G` (`prec` -1: the shortest
 * representation).
 */
export function goFormatFloat(x: number, verb: "e" | "E" | "f" | "g" | "G", prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "+Inf" : "-Inf";
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  const shortest = prec < 0;
  let d: Decimal;
  let p = prec;
  if (shortest) {
    d = shortestDecimal(ax);
    if (verb === "e" || verb === "E") p = d.digits.length - 1;
    else if (verb === "f") p = Math.max(d.digits.length - d.dp, 0);
    else p = d.digits.length;
  } else {
    const exact = exactDecimal(ax);
    if (verb === "e" || verb === "E") d = roundDecimal(exact, p + 1);
    else if (verb === "f") d = roundDecimal(exact, exact.dp + p);
    else {
      if (p === 0) p = 1;
      d = roundDecimal(exact, p);
    }
    if (d.digits === "0") d = { digits: "0", dp: ax === 0 ? 1 : d.dp };
  }
  let body: string;
  if (verb === "e" || verb === "E") body = formatE(d, p, verb);
  else if (verb === "f") body = formatF(d, p);
  else {
    let eprec = p;
    if (eprec > d.digits.length && d.digits.length >= d.dp) eprec = d.digits.length;
    if (shortest) eprec = 6;
    const exp = d.dp - 1;
    if (d.digits !== "0" && (exp < -4 || exp >= eprec)) {
      const q = Math.min(p, d.digits.length);
      body = formatE(d, q - 1, verb === "g" ? "e" : "E");
    } else {
      const q = p > d.dp ? d.digits.length : p;
      body = formatF(d, Math.max(q - d.dp, 0));
    }
  }
  return neg ? `-${body}` : body;
}

// ---- fmt ---------------------------------------------------------------------------------------

interface Spec {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width?: number;
  prec?: number;
  /** `%+v` / `%#v`. */
  plusV: boolean;
  sharpV: boolean;
}

function plainSpec(): Spec {
  return {
    plus: false,
    minus: false,
    sharp: false,
    space: false,
    zero: false,
    plusV: false,
    sharpV: false,
  };
}

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function pad(s: string, f: Spec, zeroOk = true): string {
  if (f.width === undefined) return s;
  const n = f.width - runeCount(s);
  if (n <= 0) return s;
  if (f.minus) return s + " ".repeat(n);
  return (f.zero && zeroOk ? "0" : " ").repeat(n) + s;
}

function truncate(s: string, f: Spec): string {
  if (f.prec === undefined) return s;
  return [...s].slice(0, f.prec).join("");
}

function canBackquote(s: string): boolean {
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === "`" || ch === "\uFFFD") return false;
    if (cp < 0x20 && ch !== "\t") return false;
    if (cp === 0x7f) return false;
  }
  return true;
}

function quoteToAscii(s: string): string {
  let out = "";
  for (const ch of goQuote(s)) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return out;
}

function fmtQ(s: string, f: Spec): string {
  s = truncate(s, f);
  if (f.sharp && canBackquote(s)) return pad(`\`${s}\``, f);
  return pad(f.plus ? quoteToAscii(s) : goQuote(s), f);
}

function fmtHexString(s: string, f: Spec, upper: boolean): string {
  let bytes = new TextEncoder().encode(s);
  if (f.prec !== undefined && f.prec < bytes.length) bytes = bytes.slice(0, f.prec);
  if (bytes.length === 0) return f.width !== undefined ? " ".repeat(f.width) : "";
  const hex = (b: number) => {
    const h = b.toString(16).padStart(2, "0");
    return upper ? h.toUpperCase() : h;
  };
  const prefix = upper ? "0X" : "0x";
  let out = f.sharp ? prefix : "";
  bytes.forEach((b, i) => {
    if (f.space && i > 0) out += f.sharp ? ` ${prefix}` : " ";
    out += hex(b);
  });
  return pad(out, { ...f, zero: false });
}

function fmtInteger(v: bigint, base: number, verb: string, f: Spec): string {
  const negative = v < 0n;
  let u = negative ? -v : v;
  let prec = 0;
  if (f.prec !== undefined) {
    prec = f.prec;
    if (prec === 0 && u === 0n) return f.width !== undefined ? " ".repeat(f.width) : "";
  } else if (f.zero && !f.minus && f.width !== undefined) {
    prec = f.width;
    if (negative || f.plus || f.space) prec--;
  }
  let digits = u.toString(base);
  if (verb === "X") digits = digits.toUpperCase();
  u = 0n;
  if (digits.length < prec) digits = "0".repeat(prec - digits.length) + digits;
  if (f.sharp) {
    if (base === 2) digits = `0b${digits}`;
    else if (base === 8 && digits[0] !== "0") digits = `0${digits}`;
    else if (base === 16) digits = `0${verb === "X" ? "X" : "x"}${digits}`;
  }
  if (verb === "O") digits = `0o${digits}`;
  if (negative) digits = `-${digits}`;
  else if (f.plus) digits = `+${digits}`;
  else if (f.space) digits = ` ${digits}`;
  return pad(digits, f, false);
}

function fmtUnicode(v: bigint, f: Spec): string {
  let hex = v.toString(16).toUpperCase();
  const prec = f.prec ?? 4;
  if (hex.length < prec) hex = "0".repeat(prec - hex.length) + hex;
  let s = `U+${hex}`;
  if (f.sharp && v >= 0n && v <= 0x10ffffn) {
    if (isPrintable(Number(v))) s += ` '${String.fromCodePoint(Number(v))}'`;
  }
  return pad(s, { ...f, zero: false });
}

function runeOf(v: bigint): string {
  if (v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn)) return "\uFFFD";
  return String.fromCodePoint(Number(v));
}

function quoteRune(v: bigint, f: Spec): string {
  const ch = runeOf(v);
  let body = ch === "'" ? "\\'" : ch === '"' ? '"' : goQuote(ch).slice(1, -1);
  if (f.plus && ch !== "'" && ch !== '"') body = quoteToAscii(ch).slice(1, -1);
  return pad(`'${body}'`, f);
}

function fmtFloat(x: number, verb: string, prec: number, f: Spec): string {
  const fmtVerb = (verb === "v" ? "g" : verb === "F" ? "f" : verb) as "e" | "E" | "f" | "g" | "G";
  let num = goFormatFloat(x, fmtVerb, f.prec ?? prec);
  if (!num.startsWith("-") && !num.startsWith("+")) num = `+${num}`;
  if (num === "+NaN" || num === "+Inf" || num === "-Inf") {
    let s = num;
    if (s === "+NaN" && !f.space && !f.plus) s = "NaN";
    else if (f.space && s[0] === "+" && !f.plus) s = ` ${s.slice(1)}`;
    else if (s[0] === "+" && !f.plus) s = s.slice(1);
    return pad(s, { ...f, zero: false });
  }
  if (f.space && num[0] === "+" && !f.plus) num = ` ${num.slice(1)}`;
  if (f.sharp) {
    let digits = verb === "v" || verb === "g" || verb === "G" ? f.prec ?? prec : 0;
    if (digits === -1) digits = 6;
    let tail = "";
    const ei = num.search(/[eE]/);
    let head = num;
    if (ei >= 0) {
      tail = num.slice(ei);
      head = num.slice(0, ei);
    }
    let saw = false;
    for (const c of head.slice(1)) {
      if (c === ".") continue;
      if (c !== "0") saw = true;
      if (saw) digits--;
    }
    if (!head.includes(".")) {
      if (head.length === 2 && head[1] === "0") digits--;
      head += ".";
    }
    while (digits-- > 0) head += "0";
    num = head + tail;
  }
  if (f.plus || num[0] !== "+") {
    if (f.zero && !f.minus && f.width !== undefined && f.width > num.length) {
      return num[0] + "0".repeat(f.width - num.length) + num.slice(1);
    }
    return pad(num, f);
  }
  return pad(num.slice(1), f);
}

function badVerb(verb: string, v: GoValue | undefined): string {
  if (v === undefined || v === null) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v)}=${formatValue(v, "v", plainSpec(), 0)})`;
}

function formatValue(v: GoValue, verb: string, f: Spec, depth: number): string {
  if (v === null) {
    if (depth > 0) {
      return f.sharpV ? "interface {}(nil)" : pad("<nil>", f);
    }
    return verb === "v" || verb === "T" ? pad("<nil>", f) : badVerb(verb, null);
  }
  if (typeof v === "boolean") {
    return verb === "t" || verb === "v" ? pad(String(v), f) : badVerb(verb, v);
  }
  if (typeof v === "string") {
    switch (verb) {
      case "v":
        return f.sharpV ? fmtQ(v, { ...f, sharp: false }) : pad(truncate(v, f), f);
      case "s":
        return pad(truncate(v, f), f);
      case "q":
        return fmtQ(v, f);
      case "x":
      case "X":
        return fmtHexString(v, f, verb === "X");
    }
    return badVerb(verb, v);
  }
  if (typeof v === "number") {
    switch (verb) {
      case "v":
      case "g":
      case "G":
        return fmtFloat(v, verb, -1, f);
      case "e":
      case "E":
      case "f":
      case "F":
        return fmtFloat(v, verb, 6, f);
    }
    return badVerb(verb, v);
  }
  const n = goIntValue(v);
  if (n !== undefined) {
    switch (verb) {
      case "v":
      case "d":
        return fmtInteger(n, 10, verb, f);
      case "b":
        return fmtInteger(n, 2, verb, f);
      case "o":
      case "O":
        return fmtInteger(n, 8, verb, f);
      case "x":
      case "X":
        return fmtInteger(n, 16, verb, f);
      case "c":
        return pad(runeOf(n), f);
      case "q":
        return quoteRune(n, f);
      case "U":
        return fmtUnicode(n, f);
    }
    return badVerb(verb, v as GoValue);
  }
  if (Array.isArray(v)) {
    const parts = v.map((e) => formatValue(e, verb, f, depth + 1));
    return f.sharpV ? `[]interface {}{${parts.join(", ")}}` : `[${parts.join(" ")}]`;
  }
  const m = v as { [key: string]: GoValue };
  const parts = goSortedKeys(m).map((k) =>
    `${formatValue(k, verb, f, depth + 1)}:${formatValue(m[k], verb, f, depth + 1)}`
  );
  return f.sharpV ? `map[string]interface {}{${parts.join(", ")}}` : `map[${parts.join(" ")}]`;
}

/** One value as `fmt.Sprint` prints it (`%v`). */
export function goSprintValue(v: GoValue): string {
  return formatValue(v, "v", plainSpec(), 0);
}

/** `fmt.Sprintf("%+v", v)`: the same as `%v` for JSON values. */
export function goSprintPlusV(v: GoValue): string {
  return formatValue(v, "v", { ...plainSpec(), plusV: true }, 0);
}

/** `fmt.Sprintf("%#v", v)`: Go syntax. */
export function goSprintSharpV(v: GoValue): string {
  return formatValue(v, "v", { ...plainSpec(), sharpV: true }, 0);
}

/** `fmt.Sprint(args...)`: spaces between operands when neither side is a string. */
export function goSprint(args: readonly GoValue[]): string {
  let out = "";
  let prevString = false;
  args.forEach((a, i) => {
    const isString = typeof a === "string";
    if (i > 0 && !isString && !prevString) out += " ";
    out += goSprintValue(a);
    prevString = isString;
  });
  return out;
}

/** `fmt.Sprintln(args...)`: spaces between all operands, then a newline. */
export function goSprintln(args: readonly GoValue[]): string {
  return `${args.map(goSprintValue).join(" ")}\n`;
}

/** `fmt.Sprintf(format, args...)`, with Go's `%!verb(…)` notes for mismatches. */
export function goSprintf(format: string, args: readonly GoValue[]): string {
  let out = "";
  let argNum = 0;
  let reordered = false;
  let i = 0;
  const end = format.length;
  while (i < end) {
    const pct = format.indexOf("%", i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const f = plainSpec();
    flags: while (i < end) {
      switch (format[i]) {
        case "#":
          f.sharp = true;
          break;
        case "0":
          f.zero = !f.minus;
          break;
        case "+":
          f.plus = true;
          break;
        case "-":
          f.minus = true;
          f.zero = false;
          break;
        case " ":
          f.space = true;
          break;
        default:
          break flags;
      }
      i++;
    }
    // Argument index [n]: `found` when one is written (even out of range); a bad one makes
    // this verb `%!v(BADINDEX)` whatever follows (Go's goodArgNum).
    let good = true;
    const argIndex = (): boolean => {
      if (format[i] !== "[") return false;
      reordered = true;
      const close = format.indexOf("]", i);
      if (close < 0 || close > end) {
        good = false;
        i += 1;
        return false;
      }
      const digits = format.slice(i + 1, close);
      i = close + 1;
      const n = parseNum(digits);
      if (!n || n.length !== digits.length) {
        good = false;
        return false;
      }
      if (n.value < 1 || n.value > args.length) good = false;
      else argNum = n.value - 1;
      return true;
    };
    /** The value of a `*` argument: an int within Go's ±10⁶ (`tooLarge`), else undefined. */
    const starArg = (): number | undefined => {
      if (argNum >= args.length) return undefined;
      const v = goIntValue(args[argNum++]);
      return v === undefined || v > 1_000_000n || v < -1_000_000n ? undefined : Number(v);
    };
    let afterIndex = argIndex();
    if (format[i] === "*") {
      i++;
      const w = starArg();
      if (w === undefined) out += "%!(BADWIDTH)";
      else {
        f.width = w;
        if (f.width < 0) {
          f.minus = true;
          f.zero = false;
          f.width = -f.width;
        }
      }
      afterIndex = false;
    } else {
      const n = parseNum(format.slice(i, end));
      if (n) {
        f.width = n.value;
        i += n.length;
        if (afterIndex) good = false; // "%[3]2d"
      } else if (n === null) i = end;
    }
    if (i + 1 < end && format[i] === ".") {
      i++;
      if (afterIndex) good = false; // "%[3].2d"
      afterIndex = argIndex();
      if (format[i] === "*") {
        i++;
        const p = starArg();
        if (p === undefined || p < 0) out += "%!(BADPREC)";
        else f.prec = p;
        afterIndex = false;
      } else {
        const n = parseNum(format.slice(i, end));
        f.prec = n ? n.value : 0;
        if (n) i += n.length;
        else if (n === null) i = end;
      }
    }
    if (!afterIndex) afterIndex = argIndex();
    const goodIndex = good;
    if (i >= end) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (!goodIndex) {
      out += `%!${verb}(BADINDEX)`;
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[argNum++];
    if (verb === "w") {
      out += badVerb(verb, arg);
      continue;
    }
    if (verb === "v") {
      if (f.sharp) {
        f.sharp = false;
        f.sharpV = true;
      }
      if (f.plus) {
        f.plus = false;
        f.plusV = true;
      }
    }
    if (verb === "T") {
      out += pad(goTypeName(arg), f);
      continue;
    }
    out += formatValue(arg, verb, f, 0);
  }
  if (!reordered && argNum < args.length) {
    out += "%!(EXTRA ";
    out += args.slice(argNum).map((a) =>
      a === null ? "<nil>" : `${goTypeName(a)}=${goSprintValue(a)}`
    ).join(", ");
    out += ")";
  }
  return out;
}

/**
 * Unquotes a Go string, raw string or character literal (`strconv.Unquote`), or throws; with
 * `quotedStrings`, single quotes delimit strings too (client-go's JSONPath `UnquoteExtend`).
 */
export function goUnquote(text: string, quotedStrings = false): string {
  const q = text[0];
  if (q === "`") {
    if (text.length < 2 || !text.endsWith("`")) throw new Error("invalid syntax");
    return text.slice(1, -1).replace(/\r/g, "");
  }
  if ((q !== '"' && q !== "'") || text.length < 2 || text[text.length - 1] !== q) {
    throw new Error("invalid syntax");
  }
  const body = text.slice(1, -1);
  let out = "";
  let count = 0;
  for (let i = 0; i < body.length;) {
    const c = body[i];
    count++;
    if (c === q && (q === '"' || quotedStrings)) throw new Error("invalid syntax");
    if (c === "\n") throw new Error("invalid syntax");
    if (c !== "\\") {
      const ch = String.fromCodePoint(body.codePointAt(i)!);
      out += ch;
      i += ch.length;
      continue;
    }
    const e = body[i + 1];
    i += 2;
    const simple: Record<string, string> = {
      a: "\x07",
      b: "\b",
      f: "\f",
      n: "\n",
      r: "\r",
      t: "\t",
      v: "\v",
      "\\": "\\",
    };
    if (e !== undefined && e in simple) out += simple[e];
    else if (e === q) out += q;
    else if (e === "x" || e === "u" || e === "U") {
      const n = e === "x" ? 2 : e === "u" ? 4 : 8;
      const hex = body.slice(i, i + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new Error("invalid syntax");
      const v = parseInt(hex, 16);
      if (e === "x") out += String.fromCharCode(v);
      else {
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) throw new Error("invalid syntax");
        out += String.fromCodePoint(v);
      }
      i += n;
    } else if (e !== undefined && e >= "0" && e <= "7") {
      const oct = body.slice(i - 1, i + 2);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) throw new Error("invalid syntax");
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else throw new Error("invalid syntax");
  }
  if (q === "'" && !quotedStrings && count !== 1) throw new Error("invalid syntax");
  return out;
}

// ---- encoding/json ------------------------------------------------------------------------------

function jsonString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function jsonFloat(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`json: unsupported value: ${goFormatFloat(x, "g", -1)}`);
  const abs = Math.abs(x);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    return goFormatFloat(x, "e", -1).replace(/e([-+])0(\d)$/, "e$1$2");
  }
  return goFormatFloat(x, "f", -1);
}

/**
 * Go's `json.Marshal` (compact) or `json.MarshalIndent(v, "", "    ")` of a decoded value: maps
 * in sorted key order unless `keepOrder` (a Go struct's fields, in declaration order), HTML-safe
 * string escapes.
 */
export function goJson(
  v: GoValue,
  options: { indent?: boolean; keepOrder?: boolean } = {},
): string {
  const step = options.indent ? "    " : "";
  const nl = options.indent ? "\n" : "";
  const colon = options.indent ? ": " : ":";
  const enc = (x: GoValue, prefix: string): string => {
    if (x === null) return "null";
    if (typeof x === "boolean") return String(x);
    if (typeof x === "string") return jsonString(x);
    if (typeof x === "number") return jsonFloat(x);
    const n = goIntValue(x);
    if (n !== undefined) return n.toString();
    const inner = prefix + step;
    if (Array.isArray(x)) {
      if (x.length === 0) return "[]";
      return `[${nl}${x.map((e) => inner + enc(e, inner)).join(`,${nl}`)}${nl}${prefix}]`;
    }
    const m = x as { [key: string]: GoValue };
    const keys = options.keepOrder ? Object.keys(m) : goSortedKeys(m);
    if (keys.length === 0) return "{}";
    return `{${nl}${
      keys.map((k) => `${inner}${jsonString(k)}${colon}${enc(m[k], inner)}`).join(`,${nl}`)
    }${nl}${prefix}}`;
  };
  return enc(v, "");
}

/**
 * A JavaScript object as Go sees it after `json.Marshal` then `json.Unmarshal` into
 * `interface{}`: `undefined` members dropped, numbers float64 — or, with `preserveInts`
 * (apimachinery's decoder, which the go-template printer uses), int64 when the JSON number is
 * an integer that fits.
 */
export function toGoValue(value: unknown, preserveInts: boolean): GoValue {
  const conv = (v: unknown): GoValue | undefined => {
    if (v === null) return null;
    switch (typeof v) {
      case "boolean":
      case "string":
        return v;
      case "number":
        if (!Number.isFinite(v)) return null;
        if (preserveInts && Number.isInteger(v) && Math.abs(v) < 1e21 && Math.abs(v) < 2 ** 63) {
          return BigInt(v);
        }
        return v;
      case "bigint":
        return preserveInts ? v : Number(v);
      case "object": {
        const withJson = v as { toJSON?: () => unknown };
        if (typeof withJson.toJSON === "function") return conv(withJson.toJSON());
        if (Array.isArray(v)) return v.map((e) => conv(e) ?? null);
        const out: { [key: string]: GoValue } = {};
        for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
          const c = conv(e);
          if (c !== undefined) out[k] = c;
        }
        return out;
      }
    }
    return undefined;
  };
  return conv(value) ?? null;
}
