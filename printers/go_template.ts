/**
 * Go's `text/template` over a JSON-decoded value, as upstream's `-o go-template=…` printer runs
 * it (cli-runtime: the template named `output`, its `exists` and `base64decode` functions, the
 * `missingkey` option): the same parsing (`go_template_parse.ts`), evaluation and error texts,
 * so a script written against upstream kubeadm prints the same bytes here.
 *
 * Values follow Go's reflection where it shows: a map or list element is an `interface{}` (a
 * JSON `null` one is a nil interface, which prints `<nil>` through `print` but `<no value>` as an
 * action's result), a missing key is an invalid value (`<no value>`), integers of the data are
 * int64 and the template's own integer literals Go `int` ({@link GoInt}).
 *
 * @module
 */
import { GoInt, goIntValue, goSortedKeys, goSprintValue, type GoValue, isGoMap } from "./go_fmt.ts";
import { goQuote } from "../core/text/go_quote.ts";
import {
  type ArgNode,
  argString,
  type BranchNode,
  type CommandNode,
  type GoTemplate,
  GoTemplateError,
  type Node,
  nodeString,
  type NumberNode,
  parseGoTemplateTrees,
  type PipeNode,
} from "./go_template_parse.ts";
import {
  asAny,
  type Builtin,
  BUILTINS,
  callBuiltin,
  concrete,
  elem,
  FuncError,
  Iface,
  type Param,
  truth,
  typeOf,
  utf8Length,
  type Val,
} from "./go_template_funcs.ts";

export { type GoTemplate, GoTemplateError };

const FUNCTION_NAMES: ReadonlySet<string> = new Set(Object.keys(BUILTINS));

/**
 * Parses a template as cli-runtime does (`template.New("output")` with its functions), or
 * throws a {@link GoTemplateError} with Go's message (`template: output:1: unclosed action`).
 */
export function parseGoTemplate(text: string, name = "output"): GoTemplate {
  return parseGoTemplateTrees(text, name, FUNCTION_NAMES);
}

const MISSING = Symbol("missing");
type Final = Val | typeof MISSING;

const BREAK = Symbol("break");
const CONTINUE = Symbol("continue");

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

/**
 * How deep `{{template}}` calls may nest. Go allows 100000; a JavaScript stack holds about
 * 1000–2000 levels of this walker, so the limit sits below that and a runaway recursion ends
 * with Go's error, not a stack overflow.
 */
const MAX_DEPTH = 500;

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
      return callBuiltin(
        name,
        argv,
        name === "call" && args.length > 0 ? argString(args[0]) : undefined,
      );
    } catch (e) {
      if (!(e instanceof FuncError)) throw e;
      this.at(node);
      this.errorf(`error calling ${name}: ${e.message}`);
    }
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
    if (e instanceof RangeError && /call stack|string length|array length/i.test(e.message)) {
      return { output: state.out, error: `caught panic: runtime: ${e.message}` };
    }
    throw e;
  }
}
