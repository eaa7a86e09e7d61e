import assert from "node:assert/strict";
import { applyMergePatch, createMergePatch } from "../../../core/patches/merge_patch.ts";

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

Deno.test("applyMergePatch merges objects, replaces lists, deletes nulls", () => {
  const target = { a: { b: 1, c: 2 }, l: [1, 2], gone: true };
  const out = applyMergePatch(target, { a: { c: 3, d: 4 }, l: [9], gone: null });
  assert.deepEqual(out, { a: { b: 1, c: 3, d: 4 }, l: [9] });
  assert.deepEqual(target, { a: { b: 1, c: 2 }, l: [1, 2], gone: true }, "input untouched");
});

Deno.test("createMergePatch carries only changes and round-trips", () => {
  const from = {
    metadata: { name: "n", labels: { a: "1" }, resourceVersion: "5" },
    spec: { taints: [{ key: "x", effect: "NoSchedule" }] },
  };
  const to = structuredClone(from);
  to.metadata.labels = { a: "1", b: "" } as never;
  to.spec.taints.push({ key: "y", effect: "NoExecute" });
  const patch = createMergePatch(from, to);
  assert.deepEqual(patch, {
    metadata: { labels: { b: "" } },
    spec: { taints: [{ key: "x", effect: "NoSchedule" }, { key: "y", effect: "NoExecute" }] },
  });
  assert.deepEqual(applyMergePatch(from, patch), to);
  assert.deepEqual(createMergePatch(from, structuredClone(from)), {});
  assert.deepEqual(createMergePatch({ a: 1, b: 2 }, { a: 1 }), { b: null });
});
