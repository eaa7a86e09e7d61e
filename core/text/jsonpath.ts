/**
 * Kubernetes JSONPath, as client-go's `util/jsonpath` implements it and upstream's
 * `-o jsonpath=…` / `-o jsonpath-as-json=…` printers run it: `{.a.b}`, `[n]`, `[*]`, slices
 * `[s:e:step]`, unions `[a,b]`, `..` recursive descent, filters `[?(@.x=="y")]`, `{range …}` …
 * `{end}`, quoted text `{"\n"}` and literal text between actions; the same parse and execution
 * errors, and results printed the way Go prints them (strings as is, maps and lists as compact
 * JSON, numbers as `fmt` prints a float64).
 *
 * Go walks a map's members in random order for `*` and `..`; here they come in sorted key
 * order.
 *
 * @module
 */
import {
  goCharName,
  GoInt,
  goIntValue,
  goJson,
  goSortedKeys,
  goSprintValue,
  goTypeName,
  goUnquote,
  type GoValue,
  isGoMap,
  isWordChar,
} from "./go_fmt.ts";
import { isNumber } from "./unicode.ts";

/** A JSONPath expression that failed to parse or execute; the message is client-go's. */
export class JsonPathError extends Error {
  override name = "JsonPathError";
}

interface Param {
  value: number;
  known: boolean;
  derived: boolean;
}

type PathNode =
  | { type: "list"; nodes: PathNode[] }
  | { type: "text"; text: string }
  | { type: "field"; name: string }
  | { type: "array"; params: [Param, Param, Param] }
  | {
    type: "filter";
    left: PathNode & { type: "list" };
    right: PathNode & { type: "list" };
    op: string;
  }
  | { type: "int"; value: number }
  | { type: "float"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "wildcard" }
  | { type: "recursive" }
  | { type: "union"; nodes: (PathNode & { type: "list" })[] }
  | { type: "identifier"; name: string };

type ListNode = PathNode & { type: "list" };

function isTerminator(c: string | undefined): boolean {
  return c === undefined || " \t\r\n.,[]$@{}".includes(c);
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** Go's `strconv.Atoi` for the parser's number texts. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  if (n < -(2n ** 63n) || n >= 2n ** 63n) return undefined;
  return Number(n);
}

const SLICE_RE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const DICT_KEY_RE = /^'([^']*)'$/;
const FILTER_RE = /^([^!<>=]+)([!<>=]+)(.+?)$/;

class Parser {
  input = "";
  pos = 0;
  start = 0;
  width = 0;
  root: ListNode = { type: "list", nodes: [] };

  parse(text: string): ListNode {
    this.input = text;
    this.root = { type: "list", nodes: [] };
    this.pos = 0;
    this.parseText(this.root);
    return this.root;
  }

  consumeText(): string {
    const v = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return v;
  }

  next(): string | undefined {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return undefined;
    }
    const c = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = c.length;
    this.pos += c.length;
    return c;
  }

  peek(): string | undefined {
    const c = this.next();
    this.backup();
    return c;
  }

  backup(): void {
    this.pos -= this.width;
  }

  parseText(cur: ListNode): void {
    for (;;) {
      if (this.input.startsWith("{", this.pos)) {
        if (this.pos > this.start) cur.nodes.push({ type: "text", text: this.consumeText() });
        this.pos += 1;
        this.consumeText();
        const list: ListNode = { type: "list", nodes: [] };
        cur.nodes.push(list);
        this.parseInsideAction(list);
        return;
      }
      if (this.next() === undefined) break;
    }
    if (this.pos > this.start) cur.nodes.push({ type: "text", text: this.consumeText() });
  }

  parseInsideAction(cur: ListNode): void {
    for (;;) {
      if (this.input.startsWith("}", this.pos)) {
        this.pos += 1;
        this.consumeText();
        this.parseText(this.root);
        return;
      }
      if (this.input.startsWith("[?(", this.pos)) {
        this.parseFilter(cur);
        continue;
      }
      if (this.input.startsWith("..", this.pos)) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === undefined || r === "\r" || r === "\n") throw new JsonPathError("unclosed action");
      if (r === " " || r === "@" || r === "$") this.consumeText();
      else if (r === "[") this.parseArray(cur);
      else if (r === '"' || r === "'") this.parseQuote(cur, r);
      else if (r === ".") this.parseField(cur);
      else if (
        r === "+" || r === "-" || isDigit(r) || (isNumber(r.codePointAt(0)!) && r >= "\x80")
      ) {
        this.backup();
        this.parseNumber(cur);
      } else if (isWordChar(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else throw new JsonPathError(`unrecognized character in action: ${goCharName(r)}`);
    }
  }

  parseIdentifier(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === "true" || value === "false") {
      cur.nodes.push({ type: "bool", value: value === "true" });
    } else cur.nodes.push({ type: "identifier", name: value });
  }

  parseRecursive(cur: ListNode): void {
    if (cur.nodes.length > 0 && cur.nodes[cur.nodes.length - 1].type === "recursive") {
      throw new JsonPathError("invalid multiple recursive descent");
    }
    this.pos += 2;
    this.consumeText();
    cur.nodes.push({ type: "recursive" });
    if (isWordChar(this.peek())) this.parseField(cur);
  }

  parseNumber(cur: ListNode): void {
    let r = this.peek();
    if (r === "+" || r === "-") this.next();
    for (;;) {
      r = this.next();
      if (r !== "." && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    const i = atoi(value);
    if (i !== undefined) {
      cur.nodes.push({ type: "int", value: i });
      return;
    }
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value)) {
      cur.nodes.push({ type: "float", value: Number(value) });
      return;
    }
    throw new JsonPathError(`cannot parse number ${value}`);
  }

  parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (r === undefined || r === "\n") throw new JsonPathError("unterminated array");
      if (r === "]") break;
    }
    let text = this.consumeText();
    text = text.slice(1, -1);
    if (text === "*") text = ":";
    const parts = text.split(",");
    if (parts.length > 1) {
      const union = parts.map((p) => parseAction(`[${p.trim()}]`));
      cur.nodes.push({ type: "union", nodes: union });
      return;
    }
    const dict = DICT_KEY_RE.exec(text);
    if (dict) {
      cur.nodes.push(...parseAction(`.${dict[1]}`).nodes);
      return;
    }
    const m = SLICE_RE.exec(text);
    if (!m) throw new JsonPathError(`invalid array index ${text}`);
    const params: [Param, Param, Param] = [
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let v = m[i + 1] ?? "";
      if (v !== "") {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === "") params[i].known = false;
        else {
          const n = atoi(v);
          if (n === undefined) throw new JsonPathError(`array index ${v} is not a number`);
          params[i].known = true;
          params[i].value = n;
        }
      } else if (i === 1) {
        params[1] = { value: params[0].value + 1, known: true, derived: true };
      }
    }
    cur.nodes.push({ type: "array", params });
  }

  parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = "";
    for (;;) {
      const r = this.next();
      if (r === undefined || r === "\n") throw new JsonPathError("unterminated filter");
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== "\\" && r === pair) end = true;
      } else if (r === ")" && begin === end) break;
    }
    if (this.next() !== "]") throw new JsonPathError("unclosed array expect ]");
    let text = this.consumeText();
    text = text.slice(0, -2);
    const m = FILTER_RE.exec(text);
    if (!m) {
      cur.nodes.push({
        type: "filter",
        left: parseAction(text),
        right: { type: "list", nodes: [] },
        op: "exists",
      });
      return;
    }
    cur.nodes.push({ type: "filter", left: parseAction(m[1]), right: parseAction(m[3]), op: m[2] });
  }

  parseQuote(cur: ListNode, end: string): void {
    for (;;) {
      const r = this.next();
      if (r === undefined || r === "\n") throw new JsonPathError("unterminated quoted string");
      if (r === end && this.input[this.pos - 2] !== "\\") break;
    }
    const value = this.consumeText();
    let s: string;
    try {
      s = goUnquote(value, true);
    } catch (e) {
      throw new JsonPathError(`unquote string ${value} error ${(e as Error).message}`);
    }
    cur.nodes.push({ type: "text", text: s });
  }

  parseField(cur: ListNode): void {
    this.consumeText();
    for (;;) {
      const r = this.next();
      if (r === "\\") {
        this.next();
        continue;
      }
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === "*") cur.nodes.push({ type: "wildcard" });
    else cur.nodes.push({ type: "field", name: value.replaceAll("\\", "") });
  }
}

/** An action's text parsed alone (`{text}`), its list of nodes. */
function parseAction(text: string): ListNode {
  const root = new Parser().parse(`{${text}}`);
  return root.nodes[0] as ListNode;
}

/** A value during execution: a JSON value, or nothing (Go's invalid `reflect.Value`). */
type Val = GoValue;

function typeName(v: Val): string {
  return v === null ? "interface {}" : goTypeName(v);
}

type Kind = "bool" | "int" | "float" | "string";

function basicKind(v: Val): Kind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float";
  if (goIntValue(v) !== undefined) return "int";
  throw new JsonPathError("invalid type for comparison");
}

function equal(a: Val, b: Val): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) throw new JsonPathError("incompatible types for comparison");
  if (k1 === "int") return goIntValue(a) === goIntValue(b);
  return a === b;
}

function less(a: Val, b: Val): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) throw new JsonPathError("incompatible types for comparison");
  if (k1 === "bool") throw new JsonPathError("invalid type for comparison");
  if (k1 === "int") return goIntValue(a)! < goIntValue(b)!;
  return (a as string | number) < (b as string | number);
}

function compare(op: string, a: Val, b: Val): boolean {
  switch (op) {
    case "<":
      return less(a, b);
    case ">":
      return !(less(a, b) || equal(a, b));
    case "==":
      return equal(a, b);
    case "!=":
      return !equal(a, b);
    case "<=":
      return less(a, b) || equal(a, b);
    case ">=":
      return !less(a, b);
  }
  throw new JsonPathError(`unrecognized filter operator ${op}`);
}

/** The members of a map (sorted keys) or the elements of a list or string. */
function children(v: Val): Val[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") {
    return [...new TextEncoder().encode(v)].map((b) => new GoInt(BigInt(b)));
  }
  if (isGoMap(v)) return goSortedKeys(v).map((k) => v[k]);
  return [];
}

/** Options of a {@link JsonPath}. */
export interface JsonPathOptions {
  /** Missing keys print nothing instead of failing (`--allow-missing-template-keys`, default). */
  allowMissingKeys?: boolean;
  /** `jsonpath-as-json`: every result set printed as one indented JSON list. */
  outputJson?: boolean;
}

/**
 * A parsed JSONPath template. Like client-go's, it keeps the state a `{range}` leaves behind
 * between executions (upstream's printer reuses one object for every token of `token list`).
 */
export class JsonPath {
  private nodes: PathNode[];
  private readonly all: PathNode[];
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  private lastEndNode = -1;

  /** Parses `text`, or throws a {@link JsonPathError} with client-go's message. */
  constructor(text: string, private readonly options: JsonPathOptions = {}) {
    this.all = new Parser().parse(text).nodes;
    this.nodes = this.all;
  }

  /** Executes on `data`; the printed text, or a {@link JsonPathError}. */
  execute(data: GoValue): string {
    const results = this.findResults(data, this.nodes, this.all.length - this.nodes.length);
    return results.map((r) => this.printResults(r)).join("");
  }

  private findResults(data: Val, nodes: PathNode[], offset: number): Val[][] {
    const full: Val[][] = [];
    for (let i = 0; i < nodes.length; i++) {
      const results = this.walk([data], nodes[i]);
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--;
        this.lastEndNode = offset + i;
        break;
      }
      if (this.beginRange > 0) {
        this.beginRange--;
        this.inRange++;
        const rest = nodes.slice(i + 1);
        if (results.length > 0) {
          for (const value of results) {
            this.nodes = rest;
            full.push(...this.findResults(value, rest, offset + i + 1));
          }
        } else {
          this.nodes = rest;
          this.findResults(null, rest, offset + i + 1);
        }
        this.inRange--;
        for (let k = i + 1; k < nodes.length; k++) {
          if (offset + k === this.lastEndNode) {
            i = k;
            break;
          }
        }
        continue;
      }
      full.push(results);
    }
    return full;
  }

  private printResults(results: Val[]): string {
    if (this.options.outputJson) return `${goJson(results, { indent: true })}\n`;
    return results.map((r) => {
      if (Array.isArray(r) || isGoMap(r)) return goJson(r);
      if (r === null) return "null";
      return goSprintValue(r);
    }).join(" ");
  }

  private walk(values: Val[], node: PathNode): Val[] {
    switch (node.type) {
      case "list": {
        let cur = values;
        for (const n of node.nodes) cur = this.walk(cur, n);
        return cur;
      }
      case "text":
        return [node.text];
      case "field":
        return this.evalField(values, node.name);
      case "array":
        return this.evalArray(values, node.params);
      case "filter":
        return this.evalFilter(values, node);
      case "int":
        return values.map(() => new GoInt(BigInt(node.value)));
      case "float":
      case "bool":
        return values.map(() => node.value);
      case "wildcard":
        return values.flatMap((v) => (v === null ? [] : children(v)));
      case "recursive":
        return this.evalRecursive(values);
      case "union":
        return node.nodes.flatMap((l) => this.walk(values, l));
      case "identifier":
        if (node.name === "range") {
          this.beginRange++;
          return values;
        }
        if (node.name === "end") {
          if (this.inRange > 0) {
            this.endRange++;
            return [];
          }
          throw new JsonPathError("not in range, nothing to end");
        }
        throw new JsonPathError(`unrecognized identifier ${node.name}`);
    }
  }

  private evalField(values: Val[], name: string): Val[] {
    if (values.length === 0) return [];
    const out: Val[] = [];
    for (const v of values) {
      if (isGoMap(v) && Object.hasOwn(v, name)) out.push(v[name]);
    }
    if (out.length === 0 && !this.options.allowMissingKeys) {
      throw new JsonPathError(`${name} is not found`);
    }
    return out;
  }

  private evalArray(values: Val[], node: [Param, Param, Param]): Val[] {
    const out: Val[] = [];
    for (const v of values) {
      if (v === null) continue;
      if (!Array.isArray(v)) throw new JsonPathError(`${typeName(v)} is not array or slice`);
      const p = node.map((x) => ({ ...x }));
      const len = v.length;
      if (!p[0].known) p[0].value = 0;
      if (p[0].value < 0) p[0].value += len;
      if (!p[1].known) p[1].value = len;
      if (p[1].value < 0 || (p[1].value === 0 && p[1].derived)) p[1].value += len;
      if (p[1].value === p[0].value) return out;
      if (p[0].value >= len || p[0].value < 0) {
        throw new JsonPathError(`array index out of bounds: index ${p[0].value}, length ${len}`);
      }
      if (p[1].value > len || p[1].value < 0) {
        throw new JsonPathError(
          `array index out of bounds: index ${p[1].value - 1}, length ${len}`,
        );
      }
      if (p[0].value > p[1].value) {
        throw new JsonPathError(
          `starting index ${p[0].value} is greater than ending index ${p[1].value}`,
        );
      }
      const slice = v.slice(p[0].value, p[1].value);
      let step = 1;
      if (p[2].known) {
        if (p[2].value <= 0) throw new JsonPathError("step must be > 0");
        step = p[2].value;
      }
      for (let i = 0; i < slice.length; i += step) out.push(slice[i]);
    }
    return out;
  }

  private evalRecursive(values: Val[]): Val[] {
    const out: Val[] = [];
    for (const v of values) {
      if (v === null) continue;
      const kids = children(v);
      if (kids.length > 0) {
        out.push(v);
        out.push(...this.evalRecursive(kids));
      }
    }
    return out;
  }

  private evalFilter(values: Val[], node: Extract<PathNode, { type: "filter" }>): Val[] {
    const out: Val[] = [];
    for (const v of values) {
      if (!Array.isArray(v)) {
        throw new JsonPathError(
          `${v === null ? "<nil>" : goSprintValue(v)} is not array or slice and cannot be filtered`,
        );
      }
      for (const item of v) {
        let lefts: Val[];
        let leftError: unknown;
        try {
          lefts = this.walk([item], node.left);
        } catch (e) {
          lefts = [];
          leftError = e;
        }
        if (node.op === "exists") {
          if (lefts.length > 0) out.push(item);
          continue;
        }
        if (leftError) throw leftError;
        if (lefts.length === 0) continue;
        if (lefts.length > 1) throw new JsonPathError("can only compare one element at a time");
        const rights = this.walk([item], node.right);
        if (rights.length === 0) continue;
        if (rights.length > 1) throw new JsonPathError("can only compare one element at a time");
        if (compare(node.op, lefts[0], rights[0])) out.push(item);
      }
    }
    return out;
  }
}
