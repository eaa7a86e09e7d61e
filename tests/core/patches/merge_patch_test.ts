import assert from "node:assert/strict";
import { applyMergePatch } from "../../../core/patches/merge_patch.ts";

Deno.test("applyMergePatch() follows RFC 7386 examples", () => {
  assert.deepStrictEqual(applyMergePatch({ a: "b" }, { a: "c" }), { a: "c" });
  assert.deepStrictEqual(applyMergePatch({ a: "b" }, { b: "c" }), { a: "b", b: "c" });
  assert.deepStrictEqual(applyMergePatch({ a: "b" }, { a: null }), {});
  assert.deepStrictEqual(applyMergePatch({ a: "b", b: "c" }, { a: null }), { b: "c" });
  assert.deepStrictEqual(applyMergePatch({ a: ["b"] }, { a: "c" }), { a: "c" });
  assert.deepStrictEqual(applyMergePatch({ a: "c" }, { a: ["b"] }), { a: ["b"] });
  assert.deepStrictEqual(
    applyMergePatch({ a: { b: "c" } }, { a: { b: "d", c: null } }),
    { a: { b: "d" } },
  );
  assert.deepStrictEqual(applyMergePatch({ a: [{ b: "c" }] }, { a: [1] }), { a: [1] });
  assert.deepStrictEqual(applyMergePatch(["a", "b"], ["c", "d"]), ["c", "d"]);
  assert.deepStrictEqual(applyMergePatch({ a: "b" }, ["c"]), ["c"]);
  assert.deepStrictEqual(applyMergePatch({ e: null }, { a: 1 }), { e: null, a: 1 });
  assert.deepStrictEqual(applyMergePatch([1, 2], { a: "b", c: null }), { a: "b" });
  assert.deepStrictEqual(applyMergePatch({}, { a: { bb: { ccc: null } } }), { a: { bb: {} } });
});

Deno.test("applyMergePatch() leaves its inputs unchanged", () => {
  const doc = { a: { b: 1 } };
  applyMergePatch(doc, { a: { b: 2 } });
  assert.deepStrictEqual(doc, { a: { b: 1 } });
});
