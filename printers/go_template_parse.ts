/**
 * The syntax of Go's `text/template` (lexer, parse tree, parser), with Go's parse errors and the
 * node texts its execution errors quote. Execution is `go_template.ts`.
 *
 * Not supported: complex-number literals (refused as parse errors).
 *
 * @module
 */
import { goCharName, goUnquote, isWordChar } from "./go_fmt.ts";
import { goQuote } from "../core/text/go_quote.ts";
import { isPrintable } from "../core/text/unicode.ts";

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

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s[at] === "-" && isSpace(s[at + 1]);
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return isSpace(s[at]) && s[at + 1] === "-";
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
    if (isWordChar(peek())) {
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
      if (!isWordChar(c)) {
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
    } else if (isWordChar(c)) {
      backup();
      let d: string | undefined;
      for (;;) {
        d = next();
        if (!isWordChar(d)) break;
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

/** Part of the parsed template. */
export interface NumberNode {
  type: "number";
  pos: number;
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  int: bigint;
  float: number;
}

/** Part of the parsed template. */
export type ArgNode =
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

/** Part of the parsed template. */
export interface CommandNode {
  type: "command";
  pos: number;
  args: ArgNode[];
}

/** Part of the parsed template. */
export interface PipeNode {
  type: "pipe";
  pos: number;
  line: number;
  isAssign: boolean;
  decl: { pos: number; name: string }[];
  cmds: CommandNode[];
}

/** Part of the parsed template. */
export interface ListNode {
  type: "list";
  pos: number;
  nodes: Node[];
}

/** Part of the parsed template. */
export interface BranchNode {
  type: "if" | "range" | "with";
  pos: number;
  pipe: PipeNode;
  list: ListNode;
  elseList?: ListNode;
}

/** Part of the parsed template. */
export type Node =
  | { type: "text"; pos: number; text: string }
  | { type: "action"; pos: number; pipe: PipeNode }
  | BranchNode
  | { type: "break" | "continue"; pos: number }
  | { type: "template"; pos: number; name: string; pipe?: PipeNode }
  | ListNode
  | { type: "end" | "else"; pos: number; line: number };

export function argString(n: ArgNode): string {
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

export function nodeString(n: Node | ArgNode | CommandNode): string {
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
      s = goUnquote(text);
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
    private readonly functions: ReadonlySet<string>,
  ) {}

  private itemAt(index: number): Item {
    if (index > this.furthest) this.furthest = index;
    return this.items[Math.min(index, this.items.length - 1)];
  }

  next(): Item {
    return this.itemAt(this.i++);
  }

  backup(n = 1): void {
    this.i -= n;
  }

  peek(): Item {
    return this.itemAt(this.i);
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
      return goUnquote(text);
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
        if (!this.functions.has(t.val)) this.errorf(`function ${goQuote(t.val)} not defined`);
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
 * Parses a template named `name` knowing `functions`, or throws a {@link GoTemplateError} with
 * Go's message (`template: output:1: unclosed action`).
 */
export function parseGoTemplateTrees(
  text: string,
  name: string,
  functions: ReadonlySet<string>,
): GoTemplate {
  const trees = new Map<string, ListNode>();
  new Parser(lex(text), name, trees, functions).parse(name);
  return { name, text, trees };
}
