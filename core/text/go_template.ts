/**
 * Go's `text/template` over a JSON-decoded value, as upstream's `-o go-template=…` printer runs
 * it (cli-runtime: the template named `output`, its `exists` and `base64decode` functions, the
 * `missingkey` option): the same lexing, parsing, evaluation and error texts, so a script written
 * against upstream kubeadm prints the same bytes here.
 *
 * Values follow Go's reflection where it shows: a map or list element is an `interface{}` (a
 * JSON `null` one is a nil interface, which prints `<nil>` through `print` but `<no value>` as an
 * action's result), a missing key is an invalid value (`<no value>`), integers of the data are
 * int64 and the template's own integer literals Go `int` ({@link GoInt}).
 *
 * Not supported: complex-number literals and hexadecimal float literals (refused as parse
 * errors), method calls (JSON values have none).
 *
 * @module
 */
import {
  GoInt,
  goIntValue,
  goSortedKeys,
  goSprint,
  goSprintf,
  goSprintln,
  goSprintValue,
  goTypeName,
  type GoValue,
  isGoMap,
} from "./go_fmt.ts";
import { goQuote } from "../kubelet/go_quote.ts";
import { isLetter, isNumber, isPrintable } from "./unicode.ts";

/** A template that failed to parse or execute; the message is Go's. */
export class GoTemplateError extends Error {
  override name = "GoTemplateError";
}

// ---- Lexer --------------------------------------------------------------------------------------

type ItemType =
  | "error"
  | "bool"
  | "char"
  | "charConstant"
  | "complex"
  | "assign"
  | "declare"
  | "EOF"
  | "field"
  | "identifier"
  | "leftDelim"
  | "leftParen"
  | "number"
  | "pipe"
  | "rawString"
  | "rightDelim"
  | "rightParen"
  | "space"
  | "string"
  | "text"
  | "variable"
  // keywords
  | "block"
  | "break"
  | "continue"
  | "dot"
  | "define"
  | "else"
  | "end"
  | "if"
  | "nil"
  | "range"
  | "template"
  | "with";

const KEYWORDS: Readonly<Record<string, ItemType>> = {
  ".": "dot",
  block: "block",
  break: "break",
  continue: "continue",
  define: "define",
  else: "else",
  end: "end",
  if: "if",
  range: "range",
  nil: "nil",
  template: "template",
  with: "with",
};

const KEYWORD_TYPES = new Set<ItemType>(Object.values(KEYWORDS));

interface Item {
  type: ItemType;
  pos: number;
  val: string;
  line: number;
}

function itemString(i: Item): string {
  if (i.type === "EOF") return "EOF";
  if (i.type === "error") return i.val;
  if (KEYWORD_TYPES.has(i.type)) return `<${i.val}>`;
  const runes = [...i.val];
  if (runes.length > 10) return `${goQuote(runes.slice(0, 10).join(""))}...`;
  return goQuote(i.val);
}

function isSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\r" || c === "\n";
}

function isAlphaNumeric(c: string | undefined): boolean {
  if (c === undefined) return false;
  if (c === "_") return true;
  const cp = c.codePointAt(0)!;
  if (cp < 0x80) return /[A-Za-z0-9]/.test(c);
  // Go asks for a digit (Nd); the core's tables know numbers (N) as a whole.
  return isLetter(cp) || isNumber(cp);
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s[at] === "-" && isSpace(s[at + 1]);
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return isSpace(s[at]) && s[at + 1] === "-";
}

function goCharName(c: string): string {
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase().padStart(4, "0");
  return isPrintable(cp) ? `U+${hex} '${c}'` : `U+${hex}`;
}

/** Splits a template into items, as Go's lexer does (delimiters `{{`/`}}`). */
function lex(input: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;
  let done = false;

  const emit = (type: ItemType) => {
    items.push({ type, pos: start, val: input.slice(start, pos), line: startLine });
    start = pos;
    startLine = line;
  };
  const countLines = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (input[i] === "\n") line++;
  };
  const ignore = () => {
    countLines(start, pos);
    start = pos;
    startLine = line;
  };
  const fail = (msg: string) => {
    items.push({ type: "error", pos: start, val: msg, line: startLine });
    done = true;
  };
  const next = (): string | undefined => {
    if (pos >= input.length) {
      pos = input.length + 1; // past the end: backup() is a no-op at EOF, as Go's atEOF
      return undefined;
    }
    const c = String.fromCodePoint(input.codePointAt(pos)!);
    pos += c.length;
    if (c === "\n") line++;
    return c;
  };
  const backup = () => {
    if (pos > input.length) {
      pos = input.length;
      return;
    }
    if (pos > 0) {
      const prev = input.codePointAt(pos - 1)!;
      const w = prev >= 0xdc00 && prev <= 0xdfff && pos >= 2 ? 2 : 1;
      pos -= w;
      if (input[pos] === "\n") line--;
    }
  };
  const peek = () => {
    const save = pos;
    const saveLine = line;
    const c = next();
    pos = save;
    line = saveLine;
    return c;
  };
  const accept = (valid: string): boolean => {
    const c = next();
    if (c !== undefined && valid.includes(c)) return true;
    backup();
    return false;
  };
  const acceptRun = (valid: string) => {
    for (;;) {
      const c = next();
      if (c === undefined || !valid.includes(c)) break;
    }
    backup();
  };
  const atRightDelim = (): { delim: boolean; trim: boolean } => {
    if (hasRightTrimMarker(input, pos) && input.startsWith("}}", pos + 2)) {
      return { delim: true, trim: true };
    }
    return { delim: input.startsWith("}}", pos), trim: false };
  };
  const atTerminator = (): boolean => {
    const c = peek();
    if (isSpace(c)) return true;
    if (c === undefined || ".,|:)(".includes(c)) return true;
    return input.startsWith("}}", pos);
  };
  const scanNumber = (): boolean => {
    accept("+-");
    let digits = "0123456789_";
    if (accept("0")) {
      if (accept("xX")) digits = "0123456789abcdefABCDEF_";
      else if (accept("oO")) digits = "01234567_";
      else if (accept("bB")) digits = "01_";
    }
    acceptRun(digits);
    if (accept(".")) acceptRun(digits);
    if (digits.length === 11 && accept("eE")) {
      accept("+-");
      acceptRun("0123456789_");
    }
    if (digits.length === 23 && accept("pP")) {
      accept("+-");
      acceptRun("0123456789_");
    }
    accept("i");
    if (isAlphaNumeric(peek())) {
      next();
      return false;
    }
    return true;
  };
  const quoted = (close: string, what: string, raw: boolean): boolean => {
    for (;;) {
      const c = next();
      if (!raw && c === "\\") {
        const d = next();
        if (d !== undefined && d !== "\n") continue;
        fail(`unterminated ${what}`);
        return false;
      }
      if (c === undefined || (!raw && c === "\n")) {
        fail(`unterminated ${what}`);
        return false;
      }
      if (c === close) return true;
    }
  };
  const fieldOrVariable = (type: "field" | "variable") => {
    if (atTerminator()) {
      emit(type === "variable" ? "variable" : "dot");
      return;
    }
    let c: string | undefined;
    for (;;) {
      c = next();
      if (!isAlphaNumeric(c)) {
        backup();
        break;
      }
    }
    if (!atTerminator()) {
      fail(`bad character ${goCharName(c ?? "")}`);
      return;
    }
    emit(type);
  };

  let insideAction = false;
  while (!done) {
    if (!insideAction) {
      const x = input.indexOf("{{", pos);
      if (x < 0) {
        pos = input.length;
        if (pos > start) {
          countLines(start, pos);
          emit("text");
        }
        items.push({ type: "EOF", pos, val: "EOF", line: startLine });
        break;
      }
      if (x > pos) {
        pos = x;
        let trim = 0;
        if (hasLeftTrimMarker(input, x + 2)) {
          const t = input.slice(start, pos);
          trim = t.length - t.replace(/[ \t\r\n]+$/, "").length;
        }
        pos -= trim;
        countLines(start, pos);
        const text = input.slice(start, pos);
        const item: Item = { type: "text", pos: start, val: text, line: startLine };
        start = pos;
        startLine = line;
        pos += trim;
        ignore();
        if (text.length > 0) items.push(item);
      }
      // Left delimiter.
      pos += 2;
      const trimLeft = hasLeftTrimMarker(input, pos);
      const after = trimLeft ? 2 : 0;
      if (input.startsWith("/*", pos + after)) {
        pos += after;
        ignore();
        // Comment.
        pos += 2;
        const close = input.indexOf("*/", pos);
        if (close < 0) {
          fail("unclosed comment");
          break;
        }
        pos = close + 2;
        const { delim, trim } = atRightDelim();
        if (!delim) {
          fail("comment ends before closing delimiter");
          break;
        }
        countLines(start, pos);
        start = pos;
        startLine = line;
        if (trim) pos += 2;
        pos += 2;
        if (trim) { while (isSpace(input[pos])) pos++; }
        ignore();
        continue;
      }
      emit("leftDelim");
      insideAction = true;
      pos += after;
      ignore();
      parenDepth = 0;
      continue;
    }
    // Inside an action.
    const { delim } = atRightDelim();
    if (delim) {
      if (parenDepth !== 0) {
        fail("unclosed left paren");
        break;
      }
      const { trim } = atRightDelim();
      if (trim) {
        pos += 2;
        ignore();
      }
      pos += 2;
      emit("rightDelim");
      if (trim) {
        while (isSpace(input[pos])) pos++;
        ignore();
      }
      insideAction = false;
      continue;
    }
    const c = next();
    if (c === undefined) {
      fail("unclosed action");
      break;
    }
    if (isSpace(c)) {
      backup();
      let n = 0;
      while (isSpace(peek())) {
        next();
        n++;
      }
      if (hasRightTrimMarker(input, pos - 1) && input.startsWith("}}", pos + 1)) {
        backup();
        if (n === 1) continue; // the delimiter's own space: lexed with the delimiter
      }
      emit("space");
      continue;
    }
    if (c === "=") emit("assign");
    else if (c === ":") {
      if (next() !== "=") {
        fail("expected :=");
        break;
      }
      emit("declare");
    } else if (c === "|") emit("pipe");
    else if (c === '"') {
      if (quoted('"', "quoted string", false)) emit("string");
    } else if (c === "`") {
      if (quoted("`", "raw quoted string", true)) emit("rawString");
    } else if (c === "$") {
      if (atTerminator()) emit("variable");
      else fieldOrVariable("variable");
    } else if (c === "'") {
      if (quoted("'", "character constant", false)) emit("charConstant");
    } else if (
      c === "." && pos < input.length && !(input[pos] >= "0" && input[pos] <= "9")
    ) {
      fieldOrVariable("field");
    } else if (c === "." || c === "+" || c === "-" || (c >= "0" && c <= "9")) {
      backup();
      if (!scanNumber()) {
        fail(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
        break;
      }
      const sign = peek();
      if (sign === "+" || sign === "-") {
        if (!scanNumber() || input[pos - 1] !== "i") {
          fail(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
          break;
        }
        emit("complex");
      } else emit("number");
    } else if (isAlphaNumeric(c)) {
      backup();
      let d: string | undefined;
      for (;;) {
        d = next();
        if (!isAlphaNumeric(d)) break;
      }
      backup();
      const word = input.slice(start, pos);
      if (!atTerminator()) {
        fail(`bad character ${goCharName(d ?? "")}`);
        break;
      }
      const kw = KEYWORDS[word];
      if (kw) emit(kw);
      else if (word === "true" || word === "false") emit("bool");
      else emit("identifier");
    } else if (c === "(") {
      parenDepth++;
      emit("leftParen");
    } else if (c === ")") {
      parenDepth--;
      if (parenDepth < 0) {
        fail("unexpected right paren");
        break;
      }
      emit("rightParen");
    } else if (c.codePointAt(0)! <= 0x7f && isPrintable(c.codePointAt(0)!)) emit("char");
    else {
      fail(`unrecognized character in action: ${goCharName(c)}`);
      break;
    }
  }
  return items;
}

// ---- Nodes --------------------------------------------------------------------------------------

interface NumberNode {
  type: "number";
  pos: number;
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  int: bigint;
  float: number;
}

type ArgNode =
  | { type: "field"; pos: number; ident: string[] }
  | { type: "variable"; pos: number; ident: string[] }
  | { type: "dot"; pos: number }
  | { type: "nil"; pos: number }
  | { type: "bool"; pos: number; value: boolean }
  | NumberNode
  | { type: "string"; pos: number; quoted: string; text: string }
  | { type: "identifier"; pos: number; name: string }
  | { type: "chain"; pos: number; node: ArgNode; fields: string[] }
  | PipeNode;

interface CommandNode {
  type: "command";
  pos: number;
  args: ArgNode[];
}

interface PipeNode {
  type: "pipe";
  pos: number;
  line: number;
  isAssign: boolean;
  decl: { pos: number; name: string }[];
  cmds: CommandNode[];
}

interface ListNode {
  type: "list";
  pos: number;
  nodes: Node[];
}

interface BranchNode {
  type: "if" | "range" | "with";
  pos: number;
  pipe: PipeNode;
  list: ListNode;
  elseList?: ListNode;
}

type Node =
  | { type: "text"; pos: number; text: string }
  | { type: "action"; pos: number; pipe: PipeNode }
  | BranchNode
  | { type: "break" | "continue"; pos: number }
  | { type: "template"; pos: number; name: string; pipe?: PipeNode }
  | ListNode
  | { type: "end" | "else"; pos: number; line: number };

function argString(n: ArgNode): string {
  switch (n.type) {
    case "field":
      return n.ident.map((i) => `.${i}`).join("");
    case "variable":
      return n.ident.join(".");
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return String(n.value);
    case "number":
      return n.text;
    case "string":
      return n.quoted;
    case "identifier":
      return n.name;
    case "chain": {
      const base = n.node.type === "pipe" ? `(${argString(n.node)})` : argString(n.node);
      return base + n.fields.map((f) => `.${f}`).join("");
    }
    case "pipe":
      return pipeString(n);
  }
}

function commandString(c: CommandNode): string {
  return c.args.map((a) => a.type === "pipe" ? `(${pipeString(a)})` : argString(a)).join(" ");
}

function pipeString(p: PipeNode): string {
  let s = "";
  if (p.decl.length > 0) {
    s = p.decl.map((d) => d.name).join(", ") + (p.isAssign ? " = " : " := ");
  }
  return s + p.cmds.map(commandString).join(" | ");
}

function nodeString(n: Node | ArgNode | CommandNode): string {
  switch (n.type) {
    case "text":
      return n.text;
    case "action":
      return `{{${pipeString(n.pipe)}}}`;
    case "if":
    case "range":
    case "with": {
      let s = `{{${n.type} ${pipeString(n.pipe)}}}${nodeString(n.list)}`;
      if (n.elseList) s += `{{else}}${nodeString(n.elseList)}`;
      return `${s}{{end}}`;
    }
    case "break":
    case "continue":
      return `{{${n.type}}}`;
    case "template":
      return `{{template ${goQuote(n.name)}${n.pipe ? ` ${pipeString(n.pipe)}` : ""}}}`;
    case "list":
      return n.nodes.map(nodeString).join("");
    case "end":
      return "{{end}}";
    case "else":
      return "{{else}}";
    case "command":
      return commandString(n);
    default:
      return argString(n);
  }
}

// ---- Parser -------------------------------------------------------------------------------------

/** Unquotes a Go string, raw string or character literal (`strconv.Unquote`), or throws. */
function unquoteGo(text: string): string {
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
    if (c === q && q === '"') throw new Error("invalid syntax");
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
  if (q === "'" && count !== 1) throw new Error("invalid syntax");
  return out;
}

/** Go's `strconv.ParseInt(text, 0, 64)`-style integer syntax (sign, base prefix, underscores). */
function parseGoInteger(text: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(
    text,
  );
  if (!m) return undefined;
  let body = m[2];
  if (body.includes("_")) {
    // Go's base-0 rule: an underscore only between digits, or after a base prefix.
    if (/__|_$/.test(body)) return undefined;
    body = body.replace(/_/g, "");
  }
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) v = BigInt(`0o${body.slice(1)}`);
  else v = BigInt(body);
  return m[1] === "-" ? -v : v;
}

/** Go's `strconv.ParseFloat(text, 64)` for the lexer's number forms (decimal and hex floats). */
function parseGoFloat(text: string): number | undefined {
  const hex = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/.exec(text);
  if (hex) {
    const [, sign, int, frac = "", exp] = hex;
    if (`${int}${frac}`.replace(/_/g, "") === "") return undefined;
    const mant = parseInt(`${int}${frac}`.replace(/_/g, "") || "0", 16);
    const v = mant * 2 ** (Number(exp.replace(/_/g, "")) - 4 * frac.replace(/_/g, "").length);
    return sign === "-" ? -v : v;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function newNumber(pos: number, text: string, type: ItemType): NumberNode {
  const n: NumberNode = {
    type: "number",
    pos,
    text,
    isInt: false,
    isUint: false,
    isFloat: false,
    int: 0n,
    float: 0,
  };
  if (type === "charConstant") {
    let s: string;
    try {
      s = unquoteGo(text);
    } catch {
      throw new Error(`malformed character constant: ${text}`);
    }
    const cp = BigInt(s.codePointAt(0) ?? 0);
    return { ...n, isInt: true, isUint: true, isFloat: true, int: cp, float: Number(cp) };
  }
  if (type === "complex" || text.endsWith("i")) {
    throw new Error(`complex number constants are not supported: ${text}`);
  }
  const i = parseGoInteger(text);
  if (i !== undefined) {
    if (i >= INT64_MIN && i <= INT64_MAX) {
      n.isInt = true;
      n.int = i;
    }
    if (i >= 0n && i <= UINT64_MAX) n.isUint = true;
    if (n.isInt || n.isUint) {
      n.isFloat = true;
      n.float = Number(i);
      if (!n.isInt) n.int = i;
      return n;
    }
    throw new Error(`integer overflow: ${goQuote(text)}`);
  }
  const f = parseGoFloat(text);
  if (f === undefined) throw new Error(`illegal number syntax: ${goQuote(text)}`);
  if (!/[.eEpP]/.test(text)) throw new Error(`integer overflow: ${goQuote(text)}`);
  n.isFloat = true;
  n.float = f;
  if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
    n.isInt = true;
    n.int = BigInt(f);
  }
  if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) n.isUint = true;
  return n;
}

/** A parsed template set: the named trees (`output` and every `define`/`block`). */
export interface GoTemplate {
  readonly name: string;
  readonly text: string;
  readonly trees: ReadonlyMap<string, ListNode>;
}

/** Functions every template knows: Go's builtins plus cli-runtime's `exists` and `base64decode`. */
const FUNCTION_NAMES = new Set([
  "and",
  "call",
  "html",
  "index",
  "slice",
  "js",
  "len",
  "not",
  "or",
  "print",
  "printf",
  "println",
  "urlquery",
  "eq",
  "ge",
  "gt",
  "le",
  "lt",
  "ne",
  "exists",
  "base64decode",
]);

class Parser {
  private i = 0;
  private furthest = 0;
  private vars: string[] = ["$"];
  private rangeDepth = 0;
  private actionLine = 0;

  constructor(
    private readonly items: Item[],
    private readonly parseName: string,
    private readonly trees: Map<string, ListNode>,
  ) {}

  private fetch(index: number): Item {
    if (index > this.furthest) this.furthest = index;
    return this.items[Math.min(index, this.items.length - 1)];
  }

  next(): Item {
    return this.fetch(this.i++);
  }

  backup(n = 1): void {
    this.i -= n;
  }

  peek(): Item {
    return this.fetch(this.i);
  }

  nextNonSpace(): Item {
    let t: Item;
    do t = this.next(); while (t.type === "space");
    return t;
  }

  peekNonSpace(): Item {
    const save = this.i;
    const t = this.nextNonSpace();
    this.i = save;
    // Go's peekNonSpace backs up over the non-space token only, consuming the spaces.
    while (this.items[this.i]?.type === "space") this.i++;
    return t;
  }

  errorf(msg: string): never {
    const line = this.items[Math.min(this.furthest, this.items.length - 1)].line;
    throw new GoTemplateError(`template: ${this.parseName}:${line}: ${msg}`);
  }

  unexpected(token: Item, context: string): never {
    if (token.type === "error") {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`;
        if (token.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(`${token.val}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  expect(type: ItemType, context: string): Item {
    const t = this.nextNonSpace();
    if (t.type !== type) this.unexpected(t, context);
    return t;
  }

  /** The top level: text, actions and `define`s; fills `trees`. */
  parse(name: string): void {
    const root: ListNode = { type: "list", pos: this.peek().pos, nodes: [] };
    while (this.peek().type !== "EOF") {
      if (this.peek().type === "leftDelim") {
        const save = this.i;
        this.next();
        if (this.nextNonSpace().type === "define") {
          this.parseDefinition();
          continue;
        }
        this.i = save;
      }
      const n = this.textOrAction();
      if (n.type === "end" || n.type === "else") this.errorf(`unexpected ${nodeString(n)}`);
      root.nodes.push(n);
    }
    this.add(name, root);
  }

  private add(name: string, root: ListNode): void {
    const existing = this.trees.get(name);
    if (!existing || isEmptyTree(existing)) {
      this.trees.set(name, root);
      return;
    }
    if (!isEmptyTree(root)) {
      this.errorf(`template: multiple definition of template ${goQuote(name)}`);
    }
  }

  private parseDefinition(): void {
    const context = "define clause";
    const t = this.nextNonSpace();
    if (t.type !== "string" && t.type !== "rawString") this.unexpected(t, context);
    const name = this.unquote(t.val);
    this.expect("rightDelim", context);
    const saveVars = this.vars;
    this.vars = ["$"];
    const [list, end] = this.itemList();
    this.vars = saveVars;
    if (end.type !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add(name, list);
  }

  private unquote(text: string): string {
    try {
      return unquoteGo(text);
    } catch (e) {
      this.errorf((e as Error).message);
    }
  }

  private itemList(): [ListNode, Node] {
    const list: ListNode = { type: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().type !== "EOF") {
      const n = this.textOrAction();
      if (n.type === "end" || n.type === "else") return [list, n];
      list.nodes.push(n);
    }
    this.errorf("unexpected EOF");
  }

  private textOrAction(): Node {
    const t = this.nextNonSpace();
    switch (t.type) {
      case "text":
        return { type: "text", pos: t.pos, text: t.val };
      case "leftDelim": {
        this.actionLine = t.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      default:
        this.unexpected(t, "input");
    }
  }

  private action(): Node {
    const t = this.nextNonSpace();
    switch (t.type) {
      case "block":
        return this.blockControl();
      case "break":
      case "continue": {
        const n = this.nextNonSpace();
        if (n.type !== "rightDelim") this.unexpected(n, `{{${t.type}}}`);
        if (this.rangeDepth === 0) this.errorf(`{{${t.type}}} outside {{range}}`);
        return { type: t.type, pos: t.pos };
      }
      case "else":
        return this.elseControl();
      case "end":
        return { type: "end", pos: this.expect("rightDelim", "end").pos, line: t.line };
      case "if":
      case "range":
      case "with":
        return this.branch(t.type);
      case "template":
        return this.templateControl();
    }
    this.backup();
    const tok = this.peek();
    return { type: "action", pos: tok.pos, pipe: this.pipeline("command", "rightDelim") };
  }

  private elseControl(): Node {
    const p = this.peekNonSpace();
    if (p.type === "if" || p.type === "with") return { type: "else", pos: p.pos, line: p.line };
    const t = this.expect("rightDelim", "else");
    return { type: "else", pos: t.pos, line: t.line };
  }

  private branch(context: "if" | "range" | "with"): BranchNode {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, "rightDelim");
      if (context === "range") this.rangeDepth++;
      let [list, next] = this.itemList();
      if (context === "range") this.rangeDepth--;
      let elseList: ListNode | undefined;
      if (next.type === "else") {
        if (context === "if" && this.peek().type === "if") {
          this.next();
          elseList = { type: "list", pos: next.pos, nodes: [this.branch("if")] };
        } else if (context === "with" && this.peek().type === "with") {
          this.next();
          elseList = { type: "list", pos: next.pos, nodes: [this.branch("with")] };
        } else {
          [elseList, next] = this.itemList();
          if (next.type !== "end") this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      list = list ?? { type: "list", pos: 0, nodes: [] };
      return { type: context, pos: pipe.pos, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private blockControl(): Node {
    const context = "block clause";
    const t = this.nextNonSpace();
    const name = this.templateName(t, context);
    const pipe = this.pipeline(context, "rightDelim");
    const saveVars = this.vars;
    const saveDepth = this.rangeDepth;
    this.vars = ["$"];
    this.rangeDepth = 0;
    const [list, end] = this.itemList();
    this.vars = saveVars;
    this.rangeDepth = saveDepth;
    if (end.type !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add(name, list);
    return { type: "template", pos: t.pos, name, pipe };
  }

  private templateControl(): Node {
    const context = "template clause";
    const t = this.nextNonSpace();
    const name = this.templateName(t, context);
    let pipe: PipeNode | undefined;
    if (this.nextNonSpace().type !== "rightDelim") {
      this.backup();
      pipe = this.pipeline(context, "rightDelim");
    }
    return { type: "template", pos: t.pos, name, pipe };
  }

  private templateName(t: Item, context: string): string {
    if (t.type === "string" || t.type === "rawString") return this.unquote(t.val);
    this.unexpected(t, context);
  }

  private pipeline(context: string, end: "rightDelim" | "rightParen"): PipeNode {
    const first = this.peekNonSpace();
    const pipe: PipeNode = {
      type: "pipe",
      pos: first.pos,
      line: first.line,
      isAssign: false,
      decl: [],
      cmds: [],
    };
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== "variable") break;
      this.next();
      const afterVar = this.peek();
      const save = this.i;
      const nx = this.nextNonSpace();
      this.i = save;
      if (nx.type === "assign" || nx.type === "declare") {
        pipe.isAssign = nx.type === "assign";
        this.nextNonSpace();
        pipe.decl.push({ pos: v.pos, name: v.val });
        this.vars.push(v.val);
      } else if (nx.type === "char" && nx.val === ",") {
        this.nextNonSpace();
        pipe.decl.push({ pos: v.pos, name: v.val });
        this.vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const p = this.peekNonSpace().type;
          if (p === "variable" || p === "rightDelim" || p === "rightParen") continue decls;
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (afterVar.type === "space") {
        this.i = save - 1;
      } else {
        this.backup();
      }
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.type === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (t.type) {
        case "bool":
        case "charConstant":
        case "complex":
        case "dot":
        case "field":
        case "identifier":
        case "number":
        case "nil":
        case "rawString":
        case "string":
        case "variable":
        case "leftParen":
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(t, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const t = c.args[0].type;
      if (t === "bool" || t === "dot" || t === "nil" || t === "number" || t === "string") {
        this.errorf(`non executable command in pipeline stage ${i + 2}`);
      }
    });
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.type === "space") continue;
      if (t.type === "rightDelim" || t.type === "rightParen") this.backup();
      else if (t.type !== "pipe") this.unexpected(t, "operand");
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  private operand(): ArgNode | undefined {
    const node = this.term();
    if (!node) return undefined;
    if (this.peek().type !== "field") return node;
    const pos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().type === "field") fields.push(this.next().val.slice(1));
    switch (node.type) {
      case "field":
        return { type: "field", pos, ident: [...node.ident, ...fields] };
      case "variable":
        return { type: "variable", pos, ident: [...node.ident, ...fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        this.errorf(`unexpected . after term ${goQuote(argString(node))}`);
    }
    return { type: "chain", pos, node, fields };
  }

  private term(): ArgNode | undefined {
    const t = this.nextNonSpace();
    switch (t.type) {
      case "identifier":
        if (!FUNCTION_NAMES.has(t.val)) this.errorf(`function ${goQuote(t.val)} not defined`);
        return { type: "identifier", pos: t.pos, name: t.val };
      case "dot":
        return { type: "dot", pos: t.pos };
      case "nil":
        return { type: "nil", pos: t.pos };
      case "variable": {
        const ident = t.val.split(".");
        if (!this.vars.includes(ident[0])) {
          this.errorf(`undefined variable ${goQuote(ident[0])}`);
        }
        return { type: "variable", pos: t.pos, ident };
      }
      case "field":
        return { type: "field", pos: t.pos, ident: t.val.slice(1).split(".") };
      case "bool":
        return { type: "bool", pos: t.pos, value: t.val === "true" };
      case "charConstant":
      case "complex":
      case "number":
        try {
          return newNumber(t.pos, t.val, t.type);
        } catch (e) {
          this.errorf((e as Error).message);
        }
        break;
      case "leftParen":
        return this.pipeline("parenthesized pipeline", "rightParen");
      case "string":
      case "rawString":
        return { type: "string", pos: t.pos, quoted: t.val, text: this.unquote(t.val) };
    }
    this.backup();
    return undefined;
  }
}

function isEmptyTree(n: Node): boolean {
  switch (n.type) {
    case "list":
      return n.nodes.every(isEmptyTree);
    case "text":
      return n.text.trim() === "";
    default:
      return false;
  }
}

/**
 * Parses a template as cli-runtime does (`template.New("output")`), or throws a
 * {@link GoTemplateError} with Go's message (`template: output:1: unclosed action`).
 */
export function parseGoTemplate(text: string, name = "output"): GoTemplate {
  const trees = new Map<string, ListNode>();
  new Parser(lex(text), name, trees).parse(name);
  return { name, text, trees };
}

// ---- Execution ----------------------------------------------------------------------------------

/** An `interface{}` holding a value (a map's or list's element); `null` inside: a nil one. */
class Iface {
  constructor(readonly v: GoValue) {}
}

/** A value during execution: invalid (`undefined`), an interface, or a concrete value. */
type Val = undefined | Iface | Exclude<GoValue, null>;

const MISSING = Symbol("missing");
type Final = Val | typeof MISSING;

const BREAK = Symbol("break");
const CONTINUE = Symbol("continue");

/** Parameter kinds of the builtin functions. */
type Param = "value" | "any" | "string";

interface Builtin {
  params: Param[];
  variadic?: Param;
}

const BUILTINS: Readonly<Record<string, Builtin>> = {
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

function typeOf(v: Val): string {
  if (v instanceof Iface) return "interface {}";
  return goTypeName(v as GoValue);
}

/** Unwraps an interface (`indirectInterface`): a nil one is invalid. */
function concrete(v: Val): Exclude<Val, Iface> {
  if (v instanceof Iface) return v.v === null ? undefined : v.v;
  return v;
}

/** A value as an `interface{}` argument (nil for invalid or nil). */
function asAny(v: Val): GoValue {
  if (v === undefined) return null;
  return v instanceof Iface ? v.v : v;
}

function elem(v: GoValue): Iface {
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

function truth(v: Val): boolean {
  return isTrue(concrete(v));
}

function utf8Length(s: string): number {
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

class FuncError extends Error {}

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

/** Options of {@link executeGoTemplate}. */
export interface GoTemplateOptions {
  /** `missingkey=error` (`--allow-missing-template-keys=false`): a missing map key fails. */
  missingKeyError?: boolean;
}

/** What an execution wrote, and the error that stopped it (Go's message), if any. */
export interface GoTemplateResult {
  output: string;
  error?: string;
}

class ExecError extends Error {}

const MAX_DEPTH = 10000;

class State {
  out = "";
  vars: { name: string; value: Val }[];
  node: Node | ArgNode | CommandNode | undefined;
  depth = 0;

  constructor(
    private readonly tmpl: GoTemplate,
    public name: string,
    private readonly opts: GoTemplateOptions,
    dot: Val,
  ) {
    this.vars = [{ name: "$", value: dot }];
  }

  at(n: Node | ArgNode | CommandNode): void {
    this.node = n;
  }

  errorf(msg: string): never {
    if (!this.node) throw new ExecError(`template: ${this.name}: ${msg}`);
    const pos = this.node.pos;
    const before = this.tmpl.text.slice(0, pos);
    const nl = before.lastIndexOf("\n");
    const col = utf8Length(nl < 0 ? before : before.slice(nl + 1));
    const line = 1 + (before.match(/\n/g)?.length ?? 0);
    throw new ExecError(
      `template: ${this.tmpl.name}:${line}:${col}: executing ${goQuote(this.name)} at <${
        nodeString(this.node)
      }>: ${msg}`,
    );
  }

  varValue(name: string): Val {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) return this.vars[i].value;
    }
    this.errorf(`undefined variable: ${name}`);
  }

  setVar(name: string, value: Val): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  walk(dot: Val, node: Node): void {
    this.at(node);
    switch (node.type) {
      case "action": {
        const v = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) {
          this.at(node);
          this.out += v === undefined ? "<no value>" : goSprintValue(asAny(v));
        }
        return;
      }
      case "break":
        throw BREAK;
      case "continue":
        throw CONTINUE;
      case "if":
      case "with": {
        const mark = this.vars.length;
        try {
          const v = this.evalPipeline(dot, node.pipe);
          if (truth(v)) this.walk(node.type === "with" ? v : dot, node.list);
          else if (node.elseList) this.walk(dot, node.elseList);
        } finally {
          this.vars.length = mark;
        }
        return;
      }
      case "list":
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case "range":
        return this.walkRange(dot, node);
      case "template":
        return this.walkTemplate(dot, node);
      case "text":
        this.out += node.text;
        return;
    }
  }

  walkRange(dot: Val, r: BranchNode): void {
    this.at(r);
    const mark0 = this.vars.length;
    try {
      const val = concrete(this.evalPipeline(dot, r.pipe));
      const mark = this.vars.length;
      const decl = r.pipe.decl;
      const one = (index: Val, e: Val) => {
        if (decl.length > 0) {
          if (r.pipe.isAssign) this.setVar(decl[0].name, decl.length > 1 ? index : e);
          else this.vars[this.vars.length - 1].value = e;
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar(decl[1].name, e);
          else this.vars[this.vars.length - 2].value = index;
        }
        try {
          this.walk(e, r.list);
        } catch (x) {
          if (x !== CONTINUE) throw x;
        } finally {
          this.vars.length = mark;
        }
      };
      let ran = false;
      try {
        const n = goIntValue(val);
        if (n !== undefined) {
          if (decl.length > 1) {
            this.errorf(
              `can't use ${goSprintValue(val as GoValue)} to iterate over more than one variable`,
            );
          }
          for (let i = 0n; i < n; i++) {
            ran = true;
            one(undefined, typeof val === "bigint" ? i : new GoInt(i));
          }
        } else if (Array.isArray(val)) {
          val.forEach((e, i) => {
            ran = true;
            one(new GoInt(BigInt(i)), elem(e));
          });
        } else if (isGoMap(val)) {
          for (const k of goSortedKeys(val)) {
            ran = true;
            one(k, elem(val[k]));
          }
        } else if (val !== undefined) {
          this.errorf(`range can't iterate over ${goSprintValue(val as GoValue)}`);
        }
      } catch (x) {
        if (x !== BREAK) throw x;
        return;
      }
      if (!ran && r.elseList) this.walk(dot, r.elseList);
    } finally {
      this.vars.length = mark0;
    }
  }

  walkTemplate(dot: Val, t: Extract<Node, { type: "template" }>): void {
    this.at(t);
    const tree = this.tmpl.trees.get(t.name);
    if (!tree) this.errorf(`template ${goQuote(t.name)} not defined`);
    if (this.depth >= MAX_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_DEPTH})`);
    const v = t.pipe ? this.evalPipeline(dot, t.pipe) : undefined;
    const saved = { vars: this.vars, name: this.name };
    this.vars = [{ name: "$", value: v }];
    this.name = t.name;
    this.depth++;
    try {
      this.walk(v, tree);
    } finally {
      this.depth--;
      this.vars = saved.vars;
      this.name = saved.name;
    }
  }

  evalPipeline(dot: Val, pipe: PipeNode): Val {
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      if (value instanceof Iface) value = concrete(value);
    }
    const v = value === MISSING ? undefined : value;
    for (const d of pipe.decl) {
      if (pipe.isAssign) this.setVar(d.name, v);
      else this.vars.push({ name: d.name, value: v });
    }
    return v;
  }

  notAFunction(args: ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING) {
      this.errorf(`can't give argument to non-function ${argString(args[0])}`);
    }
  }

  evalCommand(dot: Val, cmd: CommandNode, final: Final): Val {
    const first = cmd.args[0];
    switch (first.type) {
      case "field":
        this.at(first);
        return this.evalFieldChain(dot, first.ident, cmd.args, final);
      case "chain":
        return this.evalChain(dot, first, cmd.args, final);
      case "identifier":
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariable(first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case "bool":
        return first.value;
      case "dot":
        return dot;
      case "nil":
        this.errorf("nil is not a command");
        break;
      case "number":
        return this.idealConstant(first);
      case "string":
        return first.text;
    }
    this.errorf(`can't evaluate command ${goQuote(argString(first))}`);
  }

  idealConstant(n: NumberNode): Val {
    this.at(n);
    const hexInt = n.text.length > 2 && n.text[0] === "0" && /[xX]/.test(n.text[1]) &&
      !/[pP]/.test(n.text);
    if (n.isFloat && !hexInt && n.text[0] !== "'" && /[.eEpP]/.test(n.text)) {
      return n.float;
    }
    if (n.isInt) return new GoInt(n.int);
    if (n.isUint) this.errorf(`${n.text} overflows int`);
    return undefined;
  }

  evalChain(
    dot: Val,
    chain: Extract<ArgNode, { type: "chain" }>,
    args: ArgNode[],
    final: Final,
  ): Val {
    this.at(chain);
    if (chain.node.type === "nil") {
      this.errorf(`indirection through explicit nil in ${argString(chain)}`);
    }
    const pipe = this.evalArg(dot, undefined, chain.node);
    return this.evalFieldChain(pipe, chain.fields, args, final);
  }

  evalVariable(
    v: Extract<ArgNode, { type: "variable" }>,
    args: ArgNode[],
    final: Final,
  ): Val {
    this.at(v);
    const value = this.varValue(v.ident[0]);
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(value, v.ident.slice(1), args, final);
  }

  evalFieldChain(
    receiver: Val,
    ident: string[],
    args: ArgNode[] | undefined,
    final: Final,
  ): Val {
    let r = receiver;
    for (let i = 0; i < ident.length - 1; i++) r = this.evalField(ident[i], undefined, MISSING, r);
    return this.evalField(ident[ident.length - 1], args, final, r);
  }

  evalField(name: string, args: ArgNode[] | undefined, final: Final, receiver: Val): Val {
    if (receiver === undefined) {
      if (this.opts.missingKeyError) this.errorf(`nil data; no entry for key ${goQuote(name)}`);
      return undefined;
    }
    const typ = typeOf(receiver);
    const r = receiver instanceof Iface ? receiver.v : receiver;
    if (r === null) this.errorf(`nil pointer evaluating ${typ}.${name}`);
    const hasArgs = (args?.length ?? 0) > 1 || final !== MISSING;
    if (isGoMap(r)) {
      if (hasArgs) this.errorf(`${name} is not a method but has arguments`);
      if (Object.hasOwn(r, name)) return elem(r[name]);
      if (this.opts.missingKeyError) this.errorf(`map has no entry for key ${goQuote(name)}`);
      return undefined;
    }
    this.errorf(`can't evaluate field ${name} in type ${typ}`);
  }

  evalFunction(
    dot: Val,
    node: Extract<ArgNode, { type: "identifier" }>,
    cmd: ArgNode | CommandNode,
    args: ArgNode[] | undefined,
    final: Final,
  ): Val {
    this.at(node);
    const fn = BUILTINS[node.name];
    if (!fn) this.errorf(`${goQuote(node.name)} is not a defined function`);
    return this.evalCall(dot, node.name, fn, cmd, args, final);
  }

  evalCall(
    dot: Val,
    name: string,
    fn: Builtin,
    node: ArgNode | CommandNode,
    allArgs: ArgNode[] | undefined,
    final: Final,
  ): Val {
    const args = allArgs ? allArgs.slice(1) : [];
    const numIn = args.length + (final !== MISSING ? 1 : 0);
    const numParams = fn.params.length + (fn.variadic ? 1 : 0);
    if (fn.variadic) {
      if (numIn < fn.params.length) {
        this.errorf(
          `wrong number of args for ${name}: want at least ${fn.params.length} got ${args.length}`,
        );
      }
    } else if (numIn !== numParams) {
      this.errorf(`wrong number of args for ${name}: want ${numParams} got ${numIn}`);
    }
    if (name === "and" || name === "or") {
      let v: Val = undefined;
      for (const a of args) {
        v = this.evalArg(dot, "value", a);
        if (truth(v) === (name === "or")) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: Val[] = [];
    args.forEach((a, i) => {
      argv.push(this.evalArg(dot, i < fn.params.length ? fn.params[i] : fn.variadic, a));
    });
    if (final !== MISSING) {
      const t = argv.length < fn.params.length ? fn.params[argv.length] : fn.variadic;
      argv.push(this.validateType(final, t));
    }
    try {
      return this.callBuiltin(name, argv, args);
    } catch (e) {
      if (!(e instanceof FuncError)) throw e;
      this.at(node);
      this.errorf(`error calling ${name}: ${e.message}`);
    }
  }

  callBuiltin(name: string, argv: Val[], args: ArgNode[]): Val {
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
        const callee = args.length > 0 ? argString(args[0]) : sprintS(f);
        throw new FuncError(`non-function ${callee} of type ${typeOf(f)}`);
      }
    }
    throw new FuncError(`unknown function ${name}`);
  }

  validateType(value: Val, typ: Param | undefined): Val {
    if (value === undefined) {
      if (typ === undefined || typ === "value") return undefined;
      if (typ === "any") return new Iface(null);
      this.errorf(`invalid value; expected ${typ}`);
    }
    if (typ === "string") {
      const c = value instanceof Iface ? value.v : value;
      if (typeof c === "string") return c;
      this.errorf(
        `wrong type for value; expected string; got ${
          value instanceof Iface && value.v !== null ? typeOf(value.v) : typeOf(value)
        }`,
      );
    }
    return value;
  }

  evalArg(dot: Val, typ: Param | undefined, n: ArgNode): Val {
    this.at(n);
    switch (n.type) {
      case "dot":
        return this.validateType(dot, typ);
      case "nil":
        if (typ === "value") return undefined;
        if (typ === "any") return new Iface(null);
        this.errorf(`cannot assign nil to ${typ}`);
        break;
      case "field":
        return this.validateType(this.evalFieldChain(dot, n.ident, [n], MISSING), typ);
      case "variable":
        return this.validateType(this.evalVariable(n, [], MISSING), typ);
      case "pipe":
        return this.validateType(this.evalPipeline(dot, n), typ);
      case "identifier":
        return this.validateType(this.evalFunction(dot, n, n, undefined, MISSING), typ);
      case "chain":
        return this.validateType(this.evalChain(dot, n, [], MISSING), typ);
    }
    if (typ === "string") {
      if (n.type === "string") return n.text;
      this.errorf(`expected string; found ${argString(n)}`);
    }
    switch (n.type) {
      case "bool":
        return n.value;
      case "number":
        return this.idealConstant(n);
      case "string":
        return n.text;
    }
    this.errorf(`can't handle assignment of ${argString(n)} to empty interface argument`);
  }
}

/**
 * Executes a parsed template on `data` (a JSON-decoded value, see `toGoValue`). Like Go's
 * `Execute`, what was written before an error is kept.
 */
export function executeGoTemplate(
  tmpl: GoTemplate,
  data: GoValue,
  options: GoTemplateOptions = {},
): GoTemplateResult {
  const root = tmpl.trees.get(tmpl.name);
  const dot: Val = data === null ? undefined : data;
  const state = new State(tmpl, tmpl.name, options, dot);
  if (!root) {
    return {
      output: "",
      error: `template: ${tmpl.name}: ${goQuote(tmpl.name)} is an incomplete or empty template`,
    };
  }
  try {
    state.walk(dot, root);
    return { output: state.out };
  } catch (e) {
    if (e instanceof ExecError) return { output: state.out, error: e.message };
    if (e instanceof RangeError) {
      return { output: state.out, error: `caught panic: runtime: ${e.message}` };
    }
    throw e;
  }
}
