// Go's fmt and encoding/json over decoded JSON values (printers/go_fmt.ts): float formatting
// (shortest and with precision, half-to-even on exact halves), the verbs and flags, the
// `%!verb(…)` notes, map order, and JSON as Go marshals it.
import assert from "node:assert/strict";
import {
  goFormatFloat,
  GoInt,
  goJson,
  goSprint,
  goSprintf,
  goSprintln,
  goSprintSharpV,
  goSprintValue,
  toGoValue,
} from "../../printers/go_fmt.ts";

Deno.test("goFormatFloat: strconv's shortest and fixed-precision forms", () => {
  const cases: [number, "e" | "f" | "g", number, string][] = [
    [1e6, "g", -1, "1e+06"],
    [123456, "g", -1, "123456"],
    [1e21, "g", -1, "1e+21"],
    [0.0001, "g", -1, "0.0001"],
    [0.00001, "g", -1, "1e-05"],
    [-0, "g", -1, "-0"],
    [31535998, "g", -1, "3.1535998e+07"],
    [0.1 + 0.2, "g", -1, "0.30000000000000004"],
    [2.5, "f", 0, "2"],
    [3.5, "f", 0, "4"],
    [0.125, "f", 2, "0.12"],
    [1.005, "f", 2, "1.00"],
    [1234.5678, "e", 2, "1.23e+03"],
    [1234.5678, "g", 3, "1.23e+03"],
    [100, "g", 3, "100"],
    [5e-324, "g", -1, "5e-324"],
    [Infinity, "g", -1, "+Inf"],
  ];
  for (const [x, verb, prec, want] of cases) {
    assert.equal(goFormatFloat(x, verb, prec), want, `${x} %${verb} ${prec}`);
  }
});

Deno.test("goSprintf: verbs, flags, widths and Go's mismatch notes", () => {
  const i = (n: number) => new GoInt(BigInt(n));
  const cases: [string, Parameters<typeof goSprintf>[1], string][] = [
    [
      "%d|%5d|%-5d|%05d|%+d|% d",
      [i(7), i(7), i(7), i(-7), i(7), i(7)],
      "7|    7|7    |-0007|+7| 7",
    ],
    ["%x %X %#x %o %#o %O %b %c %q %U", [
      i(255),
      i(255),
      i(255),
      i(8),
      i(8),
      i(8),
      i(5),
      i(0x263a),
      i(65),
      i(0x1f600),
    ], "ff FF 0xff 10 010 0o10 101 ☺ 'A' U+1F600"],
    [
      "%v %.3f %8.2f|%-8.2f|%08.2f %e %G",
      [1.5, 2 / 3, 3.14159, 3.14159, -3.14159, 1e6, 1e-7],
      "1.5 0.667     3.14|3.14    |-0003.14 1.000000e+06 1E-07",
    ],
    [
      "%s|%q|%x|%5.2s|%-4s|%#q",
      ["a", 'b"', "hi", "xyz", "é", "c`d"],
      'a|"b\\""|6869|   xy|é   |"c`d"',
    ],
    ["%t %v", [true, false], "true false"],
    ["%d %s", ["x", 1.5], "%!d(string=x) %!s(float64=1.5)"],
    ["%d", [], "%!d(MISSING)"],
    ["%d", [i(1), "x"], "1%!(EXTRA string=x)"],
    ["100%", [], "100%!(NOVERB)"],
    ["%v %d", [null, null], "<nil> %!d(<nil>)"],
    ["%*d|%-*d", [i(4), i(1), i(3), i(2)], "   1|2  "],
    ["%[2]d %[1]d", [i(1), i(2)], "2 1"],
  ];
  for (const [format, args, want] of cases) assert.equal(goSprintf(format, args), want, format);
});

Deno.test("goSprint: Go's %v of maps (sorted), lists, nil; Sprint's spacing", () => {
  const v = toGoValue({ b: [1, "x", null], a: { z: true }, c: 1.5 }, true);
  assert.equal(goSprintValue(v), "map[a:map[z:true] b:[1 x <nil>] c:1.5]");
  assert.equal(
    goSprintSharpV(toGoValue({ b: [1, null], a: "s" }, false)),
    'map[string]interface {}{"a":"s", "b":[]interface {}{1, interface {}(nil)}}',
  );
  assert.equal(goSprint([new GoInt(1n), new GoInt(2n), "a", "b", 3.5, null]), "1 2ab3.5 <nil>");
  assert.equal(goSprintln(["a", new GoInt(1n)]), "a 1\n");
});

Deno.test("goJson: json.Marshal's key order, escapes and numbers", () => {
  const v = toGoValue({ b: "<&>", a: [1e21, 1e-7, 0.5, 100] }, false);
  assert.equal(goJson(v), '{"a":[1e+21,1e-7,0.5,100],"b":"\\u003c\\u0026\\u003e"}');
  assert.equal(
    goJson(v, { keepOrder: true }),
    '{"b":"\\u003c\\u0026\\u003e","a":[1e+21,1e-7,0.5,100]}',
  );
  assert.equal(
    goJson(toGoValue({ a: [], b: {} }, false), { indent: true }),
    '{\n    "a": [],\n    "b": {}\n}',
  );
});

Deno.test("toGoValue: integers become int64 only for the go-template decoder", () => {
  assert.deepEqual(toGoValue({ n: 3, f: 1.5, u: undefined }, true), { n: 3n, f: 1.5 });
  assert.deepEqual(toGoValue({ n: 3 }, false), { n: 3 });
});

Deno.test("goSprintf: argument indexes and widths out of range, as Go's fmt prints them", () => {
  const i = (n: number) => new GoInt(BigInt(n));
  // Expected values printed by Go 1.26's fmt.Sprintf for the same arguments.
  const cases: [string, Parameters<typeof goSprintf>[1], string][] = [
    ["%[2]d|%[3]d", [i(1), i(2)], "2|%!d(BADINDEX)"],
    ["%[2]d", [i(7)], "%!d(BADINDEX)"],
    ["%[0]d", [i(1), i(2)], "%!d(BADINDEX)"],
    ["%[x]d", [i(7)], "%!d(BADINDEX)"],
    ["%[3]2d", [i(12345), i(5), 1.5], "%!d(BADINDEX)"],
    ["%[3].2d", [i(12345), i(5), 1.5], "%!d(BADINDEX)"],
    ["%[2]*[1]d", [i(1), i(2)], " 1"],
    ["%.3[2]d", [i(1), i(2)], "002"],
    ["%*d", [i(10000000), i(1)], "%!(BADWIDTH)1"],
    ["%999999999999d", [i(7)], "%!(NOVERB)%!(EXTRA int=7)"],
  ];
  for (const [format, args, want] of cases) assert.equal(goSprintf(format, args), want, format);
});
