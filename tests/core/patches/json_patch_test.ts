import assert from "node:assert/strict";
import { applyJsonPatch, parseJsonPointer } from "../../../core/patches/json_patch.ts";

Deno.test("parseJsonPointer() unescapes ~1 and ~0", () => {
  assert.deepStrictEqual(parseJsonPointer("/a~1b/c~0d/0"), ["a/b", "c~d", "0"]);
  assert.deepStrictEqual(parseJsonPointer(""), []);
  assert.throws(() => parseJsonPointer("a"));
});

Deno.test("applyJsonPatch() add / remove / replace on objects and arrays", () => {
  const doc = { a: { b: [1, 2] }, c: "x" };
  assert.deepStrictEqual(
    applyJsonPatch(doc, [
      { op: "add", path: "/a/b/1", value: 9 },
      { op: "add", path: "/a/b/-", value: 3 },
      { op: "add", path: "/d", value: { e: true } },
      { op: "remove", path: "/c" },
      { op: "replace", path: "/a/b/0", value: 0 },
    ]),
    { a: { b: [0, 9, 2, 3] }, d: { e: true } },
  );
  assert.deepStrictEqual(doc, { a: { b: [1, 2] }, c: "x" }, "input unchanged");
});

Deno.test("applyJsonPatch() move, copy and test", () => {
  assert.deepStrictEqual(
    applyJsonPatch({ a: { x: 1 }, b: [] }, [
      { op: "test", path: "/a/x", value: 1 },
      { op: "copy", from: "/a/x", path: "/b/0" },
      { op: "move", from: "/a", path: "/m" },
    ]),
    { b: [1], m: { x: 1 } },
  );
  assert.throws(
    () => applyJsonPatch({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]),
    /testing value \/a failed/,
  );
});

Deno.test("applyJsonPatch() fails on missing paths, bad indices and unknown ops", () => {
  assert.throws(() => applyJsonPatch({}, [{ op: "remove", path: "/x" }]), /nonexistent key/);
  assert.throws(() => applyJsonPatch({}, [{ op: "replace", path: "/x", value: 1 }]), /missing key/);
  assert.throws(() => applyJsonPatch({}, [{ op: "add", path: "/a/b", value: 1 }]), /missing path/);
  assert.throws(
    () => applyJsonPatch({ a: [1] }, [{ op: "add", path: "/a/5", value: 1 }]),
    /out of bounds/,
  );
  assert.throws(() => applyJsonPatch({}, [{ op: "frob", path: "/a" }]), /unexpected kind: frob/);
  assert.throws(() => applyJsonPatch({}, { op: "add" }), /must be an array/);
});

Deno.test("applyJsonPatch() accepts negative indices counted from the end", () => {
  assert.deepStrictEqual(applyJsonPatch({ a: [1, 2, 3] }, [{ op: "remove", path: "/a/-1" }]), {
    a: [1, 2],
  });
});
