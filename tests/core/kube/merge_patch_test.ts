import assert from "node:assert/strict";
import { applyMergePatch, createMergePatch } from "../../../core/kube/merge_patch.ts";

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
