/**
 * Kubernetes JSONPath, as upstream's `-o jsonpath=…` / `-o jsonpath-as-json=…` printers run it:
 * `{.a.b}`, `[n]`, `[*]`, slices `[s:e:step]`, unions `[a,b]`, `..` recursive descent, filters
 * `[?(@.x=="y")]`, `{range …}` … `{end}`, quoted text `{"\n"}` and literal text between actions;
 * the same parse and execution errors, and results printed the way Go prints them (strings as
 * is, maps and lists as compact JSON, numbers as `fmt` prints a float64).
 *
 * Design: a template is a list of segments (literal text, or the steps of one `{…}` action).
 * An action is read by a small lexer that hands out one token at a time; each token becomes
 * one or more steps at once, so errors come in the order the text is read. Bracket contents and
 * filter operands are re-read as actions of their own (`[a,b]` is `{[a]}` and `{[b]}`,
 * `['k']` is `{.k}`), which is what gives quoted keys and union members their meaning.
 * Execution pipes a list of values through the steps; `range`/`end` words drive a small loop
 * state ({@link LoopState}) that outlives one execution, as upstream's does.
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
import { isNumber } from "../core/text/unicode.ts";

/** A JSONPath expression that failed to parse or execute; the message is client-go's. */
export class JsonPathError extends Error {
  override name = "JsonPathError";
}

/** One operation of an action, applied to the list of current values. */
type Step =
  | { op: "literal"; text: string }
  | { op: "key"; name: string }
  | { op: "every" }
  | { op: "descendants" }
  | { op: "slice"; from: number | null; to: number | null; single: boolean; stride: number | null }
  | { op: "either"; branches: Step[][] }
  | { op: "where"; left: Step[]; cmp: string | null; right: Step[] }
  | { op: "integer"; value: number }
  | { op: "constant"; value: number | boolean }
  | { op: "word"; word: string };

/** A template: each segment is a list of steps (literal text is one `literal` step). */
type Segment = Step[];

type Token =
  | { kind: "close" }
  | { kind: "filter"; body: string }
  | { kind: "descend"; field: string | null }
  | { kind: "bracket"; body: string }
  | { kind: "quoted"; raw: string }
  | { kind: "dot"; raw: string }
  | { kind: "number"; raw: string }
  | { kind: "word"; raw: string };

const fail = (message: string): never => {
  throw new JsonPathError(message);
};

/** The character (a whole code point) at `i`, or undefined past the end. */
function charAt(s: string, i: number): string | undefined {
  const cp = s.codePointAt(i);
  return cp === undefined ? undefined : String.fromCodePoint(cp);
}

const ENDS_NAME = new Set([..." \t\r\n.,[]$@{}"]);

function endsName(c: string | undefined): boolean {
  return c === undefined || ENDS_NAME.has(c);
}

function asciiDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** A decimal text as a 64-bit signed integer (Go's `strconv.Atoi`), or undefined. */
function toInt64(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const big = BigInt(text);
  const limit = 1n << 63n;
  return big >= -limit && big < limit ? Number(big) : undefined;
}

/** Reads the tokens of one action, from just after its `{`. */
class ActionLexer {
  constructor(private readonly src: string, public at: number) {}

  next(): Token {
    for (;;) {
      const s = this.src;
      if (s.startsWith("}", this.at)) {
        this.at += 1;
        return { kind: "close" };
      }
      if (s.startsWith("[?(", this.at)) return this.filter();
      if (s.startsWith("..", this.at)) {
        this.at += 2;
        return { kind: "descend", field: isWordChar(charAt(s, this.at)) ? this.name() : null };
      }
      const c = charAt(s, this.at);
      if (c === undefined || c === "\r" || c === "\n") return fail("unclosed action");
      if (c === " " || c === "@" || c === "$") {
        this.at += 1;
        continue;
      }
      if (c === "[") return this.bracket();
      if (c === '"' || c === "'") return this.quoted(c);
      if (c === ".") {
        this.at += 1;
        return { kind: "dot", raw: this.name() };
      }
      if (c === "+" || c === "-" || asciiDigit(c) || (c >= "\x80" && isNumber(c.codePointAt(0)!))) {
        return this.number();
      }
      if (isWordChar(c)) return { kind: "word", raw: this.runUntil(endsName) };
      return fail(`unrecognized character in action: ${goCharName(c)}`);
    }
  }

  /** Characters up to (not including) the first one `stop` accepts. */
  private runUntil(stop: (c: string | undefined) => boolean): string {
    const from = this.at;
    for (let c = charAt(this.src, this.at); !stop(c); c = charAt(this.src, this.at)) {
      this.at += c!.length;
    }
    return this.src.slice(from, this.at);
  }

  /** A field name; a backslash keeps the character after it in the name. */
  private name(): string {
    const from = this.at;
    for (;;) {
      const c = charAt(this.src, this.at);
      if (c === "\\") {
        this.at += 1 + (charAt(this.src, this.at + 1)?.length ?? 0);
      } else if (endsName(c)) {
        return this.src.slice(from, this.at);
      } else this.at += c!.length;
    }
  }

  private number(): Token {
    const from = this.at;
    if (this.src[this.at] === "+" || this.src[this.at] === "-") this.at += 1;
    while (asciiDigit(this.src[this.at]) || this.src[this.at] === ".") this.at += 1;
    return { kind: "number", raw: this.src.slice(from, this.at) };
  }

  private bracket(): Token {
    const open = this.at;
    this.at += 1;
    for (;;) {
      const c = charAt(this.src, this.at);
      if (c === undefined || c === "\n") return fail("unterminated array");
      this.at += c.length;
      if (c === "]") return { kind: "bracket", body: this.src.slice(open + 1, this.at - 1) };
    }
  }

  private quoted(quote: string): Token {
    const open = this.at;
    this.at += 1;
    for (;;) {
      const c = charAt(this.src, this.at);
      if (c === undefined || c === "\n") return fail("unterminated quoted string");
      this.at += c.length;
      if (c === quote && this.src[this.at - 2] !== "\\") {
        return { kind: "quoted", raw: this.src.slice(open, this.at) };
      }
    }
  }

  /** `[?(` … `)]`; a `)` inside the first quoted operand does not end it. */
  private filter(): Token {
    this.at += 3;
    const from = this.at;
    let quote: string | null = null;
    let quoteClosed = false;
    for (;;) {
      const c = charAt(this.src, this.at);
      if (c === undefined || c === "\n") return fail("unterminated filter");
      this.at += c.length;
      if (c === '"' || c === "'") {
        if (quote === null) quote = c;
        else if (c === quote && this.src[this.at - 2] !== "\\") quoteClosed = true;
      } else if (c === ")" && (quote === null || quoteClosed)) break;
    }
    const after = charAt(this.src, this.at);
    this.at += after?.length ?? 0;
    if (after !== "]") fail("unclosed array expect ]");
    return { kind: "filter", body: this.src.slice(from, this.at - 2) };
  }
}

/** Parses a whole template into its segments. */
function parseTemplate(src: string): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (;;) {
    const open = src.indexOf("{", at);
    const textEnd = open < 0 ? src.length : open;
    if (textEnd > at) segments.push([{ op: "literal", text: src.slice(at, textEnd) }]);
    if (open < 0) return segments;
    const steps: Step[] = [];
    segments.push(steps);
    at = parseAction(src, open + 1, steps);
  }
}

/** Reads one action's tokens into `steps`; the position after its closing `}`. */
function parseAction(src: string, from: number, steps: Step[]): number {
  const lexer = new ActionLexer(src, from);
  for (;;) {
    const token = lexer.next();
    switch (token.kind) {
      case "close":
        return lexer.at;
      case "filter":
        steps.push(filterStep(token.body));
        break;
      case "descend":
        if (steps.at(-1)?.op === "descendants") fail("invalid multiple recursive descent");
        steps.push({ op: "descendants" });
        if (token.field !== null) steps.push(fieldStep(token.field));
        break;
      case "bracket":
        steps.push(...bracketSteps(token.body));
        break;
      case "quoted":
        steps.push({ op: "literal", text: unquote(token.raw) });
        break;
      case "dot":
        steps.push(fieldStep(token.raw));
        break;
      case "number":
        steps.push(numberStep(token.raw));
        break;
      case "word":
        steps.push(
          token.raw === "true" || token.raw === "false"
            ? { op: "constant", value: token.raw === "true" }
            : { op: "word", word: token.raw },
        );
        break;
    }
  }
}

/** `text` read as the inside of an action of its own (the steps of `{text}`). */
function subAction(text: string): Step[] {
  return parseTemplate(`{${text}}`)[0];
}

function fieldStep(raw: string): Step {
  return raw === "*" ? { op: "every" } : { op: "key", name: raw.replaceAll("\\", "") };
}

function unquote(raw: string): string {
  try {
    return goUnquote(raw, true);
  } catch (e) {
    return fail(`unquote string ${raw} error ${(e as Error).message}`);
  }
}

function numberStep(raw: string): Step {
  const whole = toInt64(raw);
  if (whole !== undefined) return { op: "integer", value: whole };
  if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(raw)) return { op: "constant", value: Number(raw) };
  return fail(`cannot parse number ${raw}`);
}

const QUOTED_KEY = /^'([^']*)'$/;
const SLICE_PART = /^-?[0-9]*$/;

function bracketSteps(body: string): Step[] {
  const inner = body === "*" ? ":" : body;
  const members = inner.split(",");
  if (members.length > 1) {
    return [{ op: "either", branches: members.map((m) => subAction(`[${m.trim()}]`)) }];
  }
  const key = QUOTED_KEY.exec(inner);
  if (key) return subAction(`.${key[1]}`);
  const parts = inner.split(":");
  if (parts.length > 3 || !parts.every((p) => SLICE_PART.test(p))) {
    return fail(`invalid array index ${inner}`);
  }
  const bound = (p: string | undefined): number | null => {
    if (p === undefined || p === "") return null;
    return toInt64(p) ?? fail(`array index ${p} is not a number`);
  };
  const from = bound(parts[0]);
  if (parts.length === 1) {
    return [{ op: "slice", from, to: (from ?? 0) + 1, single: true, stride: null }];
  }
  return [{ op: "slice", from, to: bound(parts[1]), single: false, stride: bound(parts[2]) }];
}

/** `operand op operand`: the first run of comparison characters splits the two sides. */
const COMPARISON = /^([^!<>=]+)([!<>=]+)(.+?)$/;

function filterStep(body: string): Step {
  const m = COMPARISON.exec(body);
  if (!m) return { op: "where", left: subAction(body), cmp: null, right: [] };
  const left = subAction(m[1]);
  return { op: "where", left, cmp: m[2], right: subAction(m[3]) };
}

/** A value during execution: a JSON value, or nothing (Go's invalid `reflect.Value`). */
type Val = GoValue;

type Scalar = "bool" | "int" | "float" | "string";

function scalarKind(v: Val): Scalar {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float";
  if (goIntValue(v) !== undefined) return "int";
  return fail("invalid type for comparison");
}

/** Whether `a op b` holds, with client-go's errors for values it cannot compare. */
function holds(op: string, a: Val, b: Val): boolean {
  const kind = (): Scalar => {
    const k = scalarKind(a);
    return k === scalarKind(b) ? k : fail("incompatible types for comparison");
  };
  const same = (): boolean => kind() === "int" ? goIntValue(a) === goIntValue(b) : a === b;
  const before = (): boolean => {
    const k = kind();
    if (k === "bool") fail("invalid type for comparison");
    return k === "int"
      ? goIntValue(a)! < goIntValue(b)!
      : (a as string | number) < (b as string | number);
  };
  if (op === "==") return same();
  if (op === "!=") return !same();
  if (op === "<") return before();
  if (op === ">") return !before() && !same();
  if (op === "<=") return before() || same();
  if (op === ">=") return !before();
  return fail(`unrecognized filter operator ${op}`);
}

/** The members of a map (sorted keys), the elements of a list or the bytes of a string. */
function members(v: Val): Val[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") {
    return Array.from(new TextEncoder().encode(v), (b) => new GoInt(BigInt(b)));
  }
  if (isGoMap(v)) return goSortedKeys(v).map((k) => v[k]);
  return [];
}

/** Every value that has members, itself first and then its members' (depth first). */
function descendants(values: Val[]): Val[] {
  const out: Val[] = [];
  const pending = values.slice().reverse();
  while (pending.length > 0) {
    const v = pending.pop()!;
    if (v === null) continue;
    const inner = members(v);
    if (inner.length === 0) continue;
    out.push(v);
    for (let i = inner.length - 1; i >= 0; i--) pending.push(inner[i]);
  }
  return out;
}

/** Options of a {@link JsonPath}. */
interface JsonPathOptions {
  /** Missing keys print nothing instead of failing (`--allow-missing-template-keys`, default). */
  allowMissingKeys?: boolean;
  /** `jsonpath-as-json`: every result set printed as one indented JSON list. */
  outputJson?: boolean;
}

/**
 * The loop bookkeeping of `{range}` … `{end}`. It lives as long as the {@link JsonPath}: a
 * later execution starts at `resumeAt` (the segment after the last `{range}` entered), as
 * upstream's printer does when it reuses one object for every token of `token list`.
 */
interface LoopState {
  /** `range` words seen whose body has not started yet. */
  opening: number;
  /** Loop bodies being executed. */
  depth: number;
  /** `end` words seen that have not closed a body yet. */
  closing: number;
  /** Index of the segment whose `end` closed a body last, or -1. */
  lastClosedAt: number;
  /** Segment an execution starts at. */
  resumeAt: number;
}

/** A parsed JSONPath template. */
export class JsonPath {
  private readonly segments: Segment[];
  private readonly loops: LoopState = {
    opening: 0,
    depth: 0,
    closing: 0,
    lastClosedAt: -1,
    resumeAt: 0,
  };

  /** Parses `text`, or throws a {@link JsonPathError} with client-go's message. */
  constructor(text: string, private readonly options: JsonPathOptions = {}) {
    this.segments = parseTemplate(text);
  }

  /** Executes on `data`; the printed text, or a {@link JsonPathError}. */
  execute(data: GoValue): string {
    return this.runFrom(data, this.loops.resumeAt).map((set) => this.format(set)).join("");
  }

  /** The result sets of the segments from `first` on, until an `end` closes the body. */
  private runFrom(data: Val, first: number): Val[][] {
    const loops = this.loops;
    const sets: Val[][] = [];
    for (let at = first; at < this.segments.length; at++) {
      const values = this.apply([data], this.segments[at]);
      if (loops.closing > 0 && loops.closing <= loops.depth) {
        loops.closing--;
        loops.lastClosedAt = at;
        return sets;
      }
      if (loops.opening === 0) {
        sets.push(values);
        continue;
      }
      loops.opening--;
      loops.depth++;
      const body = at + 1;
      if (values.length === 0) {
        loops.resumeAt = body;
        this.runFrom(null, body);
      }
      for (const item of values) {
        loops.resumeAt = body;
        sets.push(...this.runFrom(item, body));
      }
      loops.depth--;
      if (loops.lastClosedAt > at) at = loops.lastClosedAt;
    }
    return sets;
  }

  private format(set: Val[]): string {
    if (this.options.outputJson) return `${goJson(set, { indent: true })}\n`;
    return set.map((v) => {
      if (v === null) return "null";
      return Array.isArray(v) || isGoMap(v) ? goJson(v) : goSprintValue(v);
    }).join(" ");
  }

  private apply(values: Val[], steps: Step[]): Val[] {
    return steps.reduce((current, step) => this.applyStep(current, step), values);
  }

  private applyStep(values: Val[], step: Step): Val[] {
    switch (step.op) {
      case "literal":
        return [step.text];
      case "key":
        return this.lookUp(values, step.name);
      case "every":
        return values.flatMap((v) => (v === null ? [] : members(v)));
      case "descendants":
        return descendants(values);
      case "slice":
        return sliceAll(values, step);
      case "either":
        return step.branches.flatMap((branch) => this.apply(values, branch));
      case "where":
        return this.select(values, step);
      case "integer":
        return values.map(() => new GoInt(BigInt(step.value)));
      case "constant":
        return values.map(() => step.value);
      case "word":
        return this.keyword(values, step.word);
    }
  }

  private keyword(values: Val[], word: string): Val[] {
    if (word === "range") {
      this.loops.opening++;
      return values;
    }
    if (word !== "end") return fail(`unrecognized identifier ${word}`);
    if (this.loops.depth === 0) return fail("not in range, nothing to end");
    this.loops.closing++;
    return [];
  }

  private lookUp(values: Val[], name: string): Val[] {
    if (values.length === 0) return [];
    const found = values.filter((v) => isGoMap(v) && Object.hasOwn(v, name))
      .map((v) => (v as Record<string, Val>)[name]);
    if (found.length === 0 && !this.options.allowMissingKeys) fail(`${name} is not found`);
    return found;
  }

  private select(values: Val[], step: Extract<Step, { op: "where" }>): Val[] {
    const kept: Val[] = [];
    for (const list of values) {
      if (!Array.isArray(list)) {
        const shown = list === null ? "<nil>" : goSprintValue(list);
        fail(`${shown} is not array or slice and cannot be filtered`);
      }
      for (const item of list as Val[]) {
        if (this.matches(item, step)) kept.push(item);
      }
    }
    return kept;
  }

  private matches(item: Val, step: Extract<Step, { op: "where" }>): boolean {
    if (step.cmp === null) {
      try {
        return this.apply([item], step.left).length > 0;
      } catch {
        return false;
      }
    }
    const left = this.apply([item], step.left);
    if (left.length === 0) return false;
    if (left.length > 1) fail("can only compare one element at a time");
    const right = this.apply([item], step.right);
    if (right.length === 0) return false;
    if (right.length > 1) fail("can only compare one element at a time");
    return holds(step.cmp, left[0], right[0]);
  }
}

/** A slice or index step over every list among `values`. */
function sliceAll(values: Val[], step: Extract<Step, { op: "slice" }>): Val[] {
  const out: Val[] = [];
  for (const list of values) {
    if (list === null) continue;
    if (!Array.isArray(list)) fail(`${goTypeName(list)} is not array or slice`);
    const len = (list as Val[]).length;
    let from = step.from ?? 0;
    if (from < 0) from += len;
    let to = step.to ?? len;
    if (to < 0 || (to === 0 && step.single)) to += len;
    // An empty range ends the whole step, with what the earlier lists gave.
    if (to === from) return out;
    if (from < 0 || from >= len) {
      fail(`array index out of bounds: index ${from}, length ${len}`);
    }
    if (to < 0 || to > len) fail(`array index out of bounds: index ${to - 1}, length ${len}`);
    if (from > to) fail(`starting index ${from} is greater than ending index ${to}`);
    if (step.stride !== null && step.stride <= 0) fail("step must be > 0");
    const stride = step.stride ?? 1;
    for (let i = from; i < to; i += stride) out.push((list as Val[])[i]);
  }
  return out;
}
