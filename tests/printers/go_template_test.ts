// Go's text/template over JSON-decoded values (printers/go_template.ts): output and error
// texts as Go's, including the interface and nil rules that reach the output. The differential
// test (tests/golden/upstream_template_output_test.ts) checks many more against upstream.
import assert from "node:assert/strict";
import { executeGoTemplate, GoTemplateError, parseGoTemplate } from "../../printers/go_template.ts";
import { toGoValue } from "../../printers/go_fmt.ts";

const DATA = toGoValue({
  name: "node-1",
  n: 3,
  f: 1.5,
  t: true,
  fl: false,
  nul: null,
  m: { b: 2, a: 1 },
  empty: [],
  list: [1, "two", null, { k: "v" }],
  enc: "a3ViZWFkbQ==",
}, true);

function render(text: string, strict = false): string {
  const r = executeGoTemplate(parseGoTemplate(text), DATA, { missingKeyError: strict });
  if (r.error !== undefined) throw new Error(`${r.output}|${r.error}`);
  return r.output;
}

function execError(text: string, strict = false): string {
  const r = executeGoTemplate(parseGoTemplate(text), DATA, { missingKeyError: strict });
  assert.ok(r.error !== undefined, `${text} executed`);
  return `${r.output}|${r.error}`;
}

function parseError(text: string): string {
  try {
    parseGoTemplate(text);
  } catch (e) {
    assert.ok(e instanceof GoTemplateError);
    return e.message;
  }
  assert.fail(`${text} parsed`);
}

const OUTPUTS: [string, string][] = [
  ["{{.name}}", "node-1"],
  ['{{.n}} {{.f}} {{printf "%T %T %T" .n .f 1}}', "3 1.5 int64 float64 int"],
  ["{{.m}} {{.list}} {{.empty}}", "map[a:1 b:2] [1 two <nil> map[k:v]] []"],
  // A JSON null: an interface holding nil; an action prints <no value>, print <nil>.
  ["{{.nul}} {{print .nul}} {{.missing}} {{print .missing}}", "<no value> <nil> <no value> <nil>"],
  ['{{index .list 2}} {{index .m "zz"}} {{index .m "a"}}', "<no value> <no value> 1"],
  ["{{range $k, $v := .m}}{{$k}}={{$v}} {{end}}", "a=1 b=2 "],
  ["{{range .empty}}x{{else}}none{{end}}", "none"],
  ["{{range $i, $e := .list}}{{$i}}{{end}}", "0123"],
  ["{{if .t}}T{{end}}{{if .fl}}F{{else if .n}}N{{end}}", "TN"],
  ["{{with .missing}}x{{else}}y{{end}}{{with .m}}{{.a}}{{end}}", "y1"],
  ['{{len "héllo"}} {{slice "hello" 1 3}} {{len .m}}', "6 el 2"],
  ["a  {{- 1 -}}  b {{/* note */}}c", "a1b c"],
  ["{{and 1 0 .missing}} {{or 0 .fl .name}} {{not .empty}}", "0 node-1 true"],
  [
    '{{eq .n 3}} {{lt .f 2.0}} {{eq .name "node-1" "x"}} {{ne .nul .missing}}',
    "true true true false",
  ],
  ['{{exists . "list" 3 "k"}} {{exists . "nul"}} {{exists . "list" 9}}', "true false false"],
  [
    '{{base64decode .enc}} {{html "<\'&\'>"}} {{urlquery "a b"}} {{js "a=b"}}',
    "kubeadm &lt;&#39;&amp;&#39;&gt; a+b a\\u003Db",
  ],
  ["{{$x := 1}}{{range .list}}{{$x = .}}{{end}}{{$x}}", "map[k:v]"],
  ["{{range .list}}{{if not .}}{{break}}{{end}}{{.}};{{end}}", "1;two;"],
  ['{{define "t"}}<{{.}}>{{end}}{{template "t" .name}}{{template "t"}}', "<node-1><<no value>>"],
  ["{{range 3}}{{.}}{{end}}", "012"],
  ["{{1e6}} {{0x10}} {{'a'}} {{1_000}} {{.5}}", "1e+06 16 97 1000 0.5"],
];

Deno.test("go-template: outputs as Go's text/template prints them", () => {
  for (const [text, want] of OUTPUTS) assert.equal(render(text), want, text);
});

Deno.test("go-template: execution errors keep what was written and carry Go's location", () => {
  assert.equal(
    execError("ab{{.missing}}", true),
    'ab|template: output:1:4: executing "output" at <.missing>: map has no entry for key "missing"',
  );
  assert.equal(
    execError("{{.nul.x}}"),
    '|template: output:1:6: executing "output" at <.nul.x>: nil pointer evaluating interface {}.x',
  );
  assert.equal(
    execError("x\n  {{index .list 9}}"),
    'x\n  |template: output:2:4: executing "output" at <index .list 9>: error calling index: index out of range: 9',
  );
  assert.equal(
    execError('{{eq .n "3"}}'),
    '|template: output:1:2: executing "output" at <eq .n "3">: error calling eq: incompatible types for comparison: int64 and string',
  );
  assert.equal(
    execError("{{range .name}}{{end}}"),
    '|template: output:1:8: executing "output" at <.name>: range can\'t iterate over node-1',
  );
  assert.equal(
    execError('{{base64decode "!"}}'),
    '|template: output:1:2: executing "output" at <base64decode "!">: error calling base64decode: base64 decode failed: illegal base64 data at input byte 0',
  );
  assert.equal(
    execError('{{define "t"}}{{.x}}{{end}}{{template "t" .name}}'),
    '|template: output:1:16: executing "t" at <.x>: can\'t evaluate field x in type string',
  );
  // A runaway recursion ends with Go's depth error (our limit, 500), not a stack overflow.
  assert.equal(
    execError('{{define "a"}}{{template "a" .}}{{end}}{{template "a" .}}'),
    '|template: output:1:25: executing "a" at <{{template "a" .}}>: exceeded maximum template depth (500)',
  );
});

Deno.test("go-template: parse errors are Go's, with the line", () => {
  assert.equal(parseError("{{.x"), "template: output:1: unclosed action");
  assert.equal(parseError("a\n{{.x\n"), "template: output:3: unclosed action started at output:2");
  assert.equal(parseError("{{if .x}}"), "template: output:1: unexpected EOF");
  assert.equal(parseError("{{break}}"), "template: output:1: {{break}} outside {{range}}");
  assert.equal(parseError("{{$u}}"), 'template: output:1: undefined variable "$u"');
  assert.equal(parseError("{{nope 1}}"), 'template: output:1: function "nope" not defined');
  assert.equal(parseError("{{end}}"), "template: output:1: unexpected {{end}}");
  assert.equal(
    parseError('{{"a" | "b"}}'),
    "template: output:1: non executable command in pipeline stage 2",
  );
  assert.equal(parseError("{{1_}}"), 'template: output:1: illegal number syntax: "1_"');
  assert.equal(parseError("{{3x}}"), 'template: output:1: bad number syntax: "3x"');
  assert.equal(parseError("{{/* x"), "template: output:1: unclosed comment");
  assert.equal(
    parseError('{{define "a"}}x{{end}}{{define "a"}}y{{end}}'),
    'template: output:1: template: multiple definition of template "a"',
  );
});
