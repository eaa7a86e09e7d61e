// Kubernetes JSONPath as client-go runs it (printers/jsonpath.ts): selection, printing of
// results as Go prints them (float64 numbers, compact JSON for maps and lists), jsonpath-as-json,
// missing keys, and client-go's parse and execution errors.
import assert from "node:assert/strict";
import { JsonPath, JsonPathError } from "../../printers/jsonpath.ts";
import { toGoValue } from "../../printers/go_fmt.ts";

const DATA = toGoValue({
  kind: "List",
  items: [
    { name: "a", port: 80, ready: true, labels: { tier: "web" } },
    { name: "b", port: 1000000, ready: false, labels: { tier: "db" } },
    { name: "c", port: 0.5, ready: true, extra: null },
  ],
  meta: { "dotted.key": "yes", html: "<&>" },
}, false);

function jp(expr: string, options = { allowMissingKeys: true, outputJson: false }): string {
  return new JsonPath(expr, options).execute(DATA);
}

function failure(expr: string, strict = false): string {
  try {
    new JsonPath(expr, { allowMissingKeys: !strict }).execute(DATA);
  } catch (e) {
    assert.ok(e instanceof JsonPathError);
    return e.message;
  }
  assert.fail(`${expr} succeeded`);
}

const CASES: [string, string][] = [
  ["{.kind}", "List"],
  ["{.items[*].name}", "a b c"],
  // Numbers are float64: Go's %v.
  ["{.items[*].port}", "80 1e+06 0.5"],
  ["{.items[0].labels}", '{"tier":"web"}'],
  ["{.items[2].extra}", "null"],
  ["{.items[-1].name}{.items[0:2].name}{.items[::2].name}", "ca ba c"],
  ["{.items[0,2].name}", "a c"],
  ['{range .items[*]}{.name}={.ready}{"\\n"}{end}', "a=true\nb=false\nc=true\n"],
  ['{.items[?(@.labels.tier=="db")].name}', "b"],
  ["{.items[?(@.port>79.5)].name}", "a b"],
  ["{.items[?(@.labels)].name}", "a b"],
  ["{..tier}", "web db"],
  ["{.meta.dotted\\.key} {.meta['html']}", "yes <&>"],
  ["{.meta}", '{"dotted.key":"yes","html":"\\u003c\\u0026\\u003e"}'],
  ["x{.nope}y", "xy"],
  ['{"a\\tb"} {true} {7}', "a\tb true 7"],
];

Deno.test("jsonpath: results printed as client-go prints them", () => {
  for (const [expr, want] of CASES) assert.equal(jp(expr), want, expr);
});

Deno.test("jsonpath-as-json: each result set as one indented JSON list", () => {
  assert.equal(
    jp("{.items[0:2].port}", { allowMissingKeys: true, outputJson: true }),
    "[\n    80,\n    1000000\n]\n",
  );
  assert.equal(jp("{.nope}", { allowMissingKeys: true, outputJson: true }), "[]\n");
});

Deno.test("jsonpath: client-go's execution errors", () => {
  assert.equal(failure("{.nope}", true), "nope is not found");
  assert.equal(failure("{.items[5]}"), "array index out of bounds: index 5, length 3");
  assert.equal(failure("{.kind[0]}"), "string is not array or slice");
  // An int literal against float64 data: incompatible, as in Go.
  assert.equal(failure("{.items[?(@.port==80)]}"), "incompatible types for comparison");
  assert.equal(failure("{.items[::0]}"), "step must be > 0");
  assert.equal(failure("{end}"), "not in range, nothing to end");
  assert.equal(failure("{foo}"), "unrecognized identifier foo");
});

Deno.test("jsonpath: client-go's parse errors", () => {
  for (
    const [expr, want] of [
      ["{.a", "unclosed action"],
      ["{.a[x]}", "invalid array index x"],
      ["{.a[0}", "unterminated array"],
      ['{"abc}', "unterminated quoted string"],
      ["{.a[?(@.b==1}", "unterminated filter"],
      ["{....a}", "invalid multiple recursive descent"],
      ["{#}", "unrecognized character in action: U+0023 '#'"],
    ] as const
  ) {
    assert.throws(
      () => new JsonPath(expr),
      (e: Error) => e instanceof JsonPathError && e.message === want,
      expr,
    );
  }
});

Deno.test("jsonpath: a range's state carries over to the next execution, as client-go's", () => {
  const path = new JsonPath("{range .items[*]}{.name} {end}", { allowMissingKeys: true });
  assert.equal(path.execute(DATA), "a b c ");
  assert.throws(() => path.execute(DATA), /not in range, nothing to end/);
});
