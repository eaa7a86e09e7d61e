import assert from "node:assert/strict";
import { KeyPool, keyPoolFor } from "../../../core/pki/key_pool.ts";

Deno.test("KeyPool hands out prefetched keys once, and fresh keys otherwise", async () => {
  const pool = new KeyPool();
  pool.prefetchAll(["a", "b"], "ECDSA-P256");
  pool.prefetch("a", "ECDSA-P384"); // already pending: kept as is
  assert.deepEqual(pool.pendingIds, ["a", "b"]);
  const a = await pool.take("a", "ECDSA-P256");
  assert.deepEqual(a.spec, { type: "ECDSA", namedCurve: "P-256" });
  assert.deepEqual(pool.pendingIds, ["b"]);
  const b = await pool.take("b", "ECDSA-P384"); // algorithm changed: not the prefetched key
  assert.deepEqual(b.spec, { type: "ECDSA", namedCurve: "P-384" });
  const c = await pool.take("c", "ECDSA-P256");
  assert.notEqual(c, a);
  assert.deepEqual(pool.pendingIds, []);
});

Deno.test("keyPoolFor() gives one pool per owner object", () => {
  const o1 = {};
  const o2 = {};
  assert.equal(keyPoolFor(o1), keyPoolFor(o1));
  assert.notEqual(keyPoolFor(o1), keyPoolFor(o2));
});
