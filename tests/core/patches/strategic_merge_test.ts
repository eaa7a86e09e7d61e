import assert from "node:assert/strict";
import { podSchema } from "../../../core/patches/patch_schemas.ts";
import { applyStrategicMergePatch } from "../../../core/patches/strategic_merge.ts";
import type { JsonValue } from "../../../core/patches/json_value.ts";

function pod(containers: JsonValue[]): JsonValue {
  return { metadata: { name: "p", labels: { a: "1" } }, spec: { containers } };
}

function containersOf(v: JsonValue): JsonValue[] {
  return ((v as { spec: { containers: JsonValue[] } }).spec.containers);
}

Deno.test("applyStrategicMergePatch() merges maps recursively and deletes null keys", () => {
  const out = applyStrategicMergePatch(
    { metadata: { name: "p", labels: { a: "1", b: "2" } }, spec: { hostNetwork: true } },
    { metadata: { labels: { b: null, c: "3" } }, spec: { priority: 5 } },
    podSchema,
  );
  assert.deepStrictEqual(out, {
    metadata: { name: "p", labels: { a: "1", c: "3" } },
    spec: { hostNetwork: true, priority: 5 },
  });
});

Deno.test("applyStrategicMergePatch() merges containers by name, keeping original order", () => {
  const out = applyStrategicMergePatch(
    pod([{ name: "a", image: "a:1" }, { name: "b", image: "b:1", args: ["x"] }]),
    { spec: { containers: [{ name: "b", image: "b:2" }] } },
    podSchema,
  );
  assert.deepStrictEqual(containersOf(out), [
    { name: "a", image: "a:1" },
    { name: "b", image: "b:2", args: ["x"] },
  ]);
});

Deno.test("applyStrategicMergePatch() puts new merge-list items before the original ones", () => {
  const out = applyStrategicMergePatch(
    pod([{ name: "a" }, { name: "b" }]),
    { spec: { containers: [{ name: "c" }] } },
    podSchema,
  );
  assert.deepStrictEqual(containersOf(out).map((c) => (c as { name: string }).name), [
    "c",
    "a",
    "b",
  ]);
});

Deno.test("applyStrategicMergePatch() merges env by name, mounts by mountPath, ports by containerPort", () => {
  const out = applyStrategicMergePatch(
    pod([{
      name: "c",
      env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
      volumeMounts: [{ name: "certs", mountPath: "/certs", readOnly: true }],
      ports: [{ containerPort: 6443, name: "probe-port", protocol: "TCP" }],
      command: ["x", "--a"],
    }]),
    {
      spec: {
        containers: [{
          name: "c",
          env: [{ name: "B", value: "two" }],
          volumeMounts: [{ name: "renamed", mountPath: "/certs" }],
          ports: [{ containerPort: 6443, name: "https" }],
          command: ["y"],
        }],
      },
    },
    podSchema,
  );
  assert.deepStrictEqual(containersOf(out), [{
    name: "c",
    env: [{ name: "A", value: "1" }, { name: "B", value: "two" }],
    volumeMounts: [{ name: "renamed", mountPath: "/certs", readOnly: true }],
    ports: [{ containerPort: 6443, name: "https", protocol: "TCP" }],
    command: ["y"],
  }]);
});

Deno.test("applyStrategicMergePatch() honours $patch: delete and $patch: replace in lists", () => {
  const deleted = applyStrategicMergePatch(
    pod([{ name: "a" }, { name: "b" }]),
    { spec: { containers: [{ name: "a", $patch: "delete" }] } },
    podSchema,
  );
  assert.deepStrictEqual(containersOf(deleted), [{ name: "b" }]);
  const replaced = applyStrategicMergePatch(
    pod([{ name: "a" }, { name: "b" }]),
    { spec: { containers: [{ name: "z", image: "z" }, { $patch: "replace" }] } },
    podSchema,
  );
  assert.deepStrictEqual(containersOf(replaced), [{ name: "z", image: "z" }]);
});

Deno.test("applyStrategicMergePatch() honours $patch on maps", () => {
  assert.deepStrictEqual(
    applyStrategicMergePatch(
      { metadata: { labels: { a: "1", b: "2" } } },
      { metadata: { labels: { $patch: "replace", c: "3" } } },
      podSchema,
    ),
    { metadata: { labels: { c: "3" } } },
  );
  assert.deepStrictEqual(
    applyStrategicMergePatch({ metadata: { labels: { a: "1" } } }, {
      metadata: { labels: { $patch: "delete" } },
    }, podSchema),
    { metadata: { labels: {} } },
  );
  assert.throws(
    () => applyStrategicMergePatch({ a: {} }, { a: { $patch: "bogus" } }, podSchema),
    /unknown patch type: bogus/,
  );
});

Deno.test("applyStrategicMergePatch() replaces lists without merge strategy and unions merge scalars", () => {
  const out = applyStrategicMergePatch(
    { metadata: { finalizers: ["a", "b"] }, spec: { tolerations: [{ key: "x" }] } },
    { metadata: { finalizers: ["c", "a"] }, spec: { tolerations: [{ key: "y" }] } },
    podSchema,
  );
  assert.deepStrictEqual(out, {
    metadata: { finalizers: ["c", "a", "b"] },
    spec: { tolerations: [{ key: "y" }] },
  });
});

Deno.test("applyStrategicMergePatch() supports $deleteFromPrimitiveList and $setElementOrder", () => {
  assert.deepStrictEqual(
    applyStrategicMergePatch(
      { metadata: { finalizers: ["a", "b", "c"] } },
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["b"] } },
      podSchema,
    ),
    { metadata: { finalizers: ["a", "c"] } },
  );
  const ordered = applyStrategicMergePatch(
    pod([{ name: "a" }, { name: "b" }]),
    {
      spec: {
        "$setElementOrder/containers": [{ name: "b" }, { name: "c" }, { name: "a" }],
        containers: [{ name: "c" }],
      },
    },
    podSchema,
  );
  assert.deepStrictEqual(containersOf(ordered).map((c) => (c as { name: string }).name), [
    "b",
    "c",
    "a",
  ]);
});

Deno.test("applyStrategicMergePatch() applies $retainKeys", () => {
  assert.deepStrictEqual(
    applyStrategicMergePatch(
      { spec: { volumes: [{ name: "v", hostPath: { path: "/x" } }] } },
      { spec: { volumes: [{ name: "v", emptyDir: {}, $retainKeys: ["name", "emptyDir"] }] } },
      podSchema,
    ),
    { spec: { volumes: [{ name: "v", emptyDir: {} }] } },
  );
});

Deno.test("applyStrategicMergePatch() requires the merge key in merge-list items", () => {
  assert.throws(
    () =>
      applyStrategicMergePatch(
        pod([{ name: "a" }]),
        { spec: { containers: [{ image: "x" }] } },
        podSchema,
      ),
    /does not contain declared merge key: name/,
  );
  assert.throws(
    () => applyStrategicMergePatch({}, [] as unknown as JsonValue, podSchema),
    /invalid JSON document/,
  );
});

Deno.test("applyStrategicMergePatch() replaces values of a different type and leaves inputs alone", () => {
  const original = { spec: { containers: [{ name: "a" }] } };
  const out = applyStrategicMergePatch(original, { spec: { containers: "x" } }, podSchema);
  assert.deepStrictEqual(out, { spec: { containers: "x" } });
  assert.deepStrictEqual(original, { spec: { containers: [{ name: "a" }] } });
});
