import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import { KeyPool, keyPoolFor } from "../../../core/pki/key_pool.ts";
import { generateKeyPair } from "../../../core/pki/keys.ts";
import { deterministicCryptoPort } from "../../../adapters/crypto/noble.ts";
import { seededRandom } from "../../../adapters/offline/random.ts";

Deno.test("KeyPool hands out prefetched keys once, and fresh keys otherwise", async () => {
  const pool = new KeyPool(webKeys);
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
  const o1 = { ...webKeys };
  const o2 = { ...webKeys };
  assert.equal(keyPoolFor(o1), keyPoolFor(o1));
  assert.notEqual(keyPoolFor(o1), keyPoolFor(o2));
});

Deno.test("KeyPool hands out a provided key whatever algorithm the run asks for", async () => {
  const pool = new KeyPool(webKeys);
  const mine = await generateKeyPair("ECDSA-P384", webKeys);
  pool.provide("cert:ca", mine);
  pool.prefetch("cert:ca", "RSA-2048"); // provided: nothing is generated
  assert.equal(await pool.take("cert:ca", "RSA-2048"), mine);
});

Deno.test("KeyPool with the deterministic port draws keys from the run's random source in request order", async () => {
  const spkis = async () => {
    const pool = new KeyPool({ crypto: deterministicCryptoPort, random: seededRandom("pool") });
    pool.prefetchAll(["a", "b"], "ECDSA-P256");
    const c = await pool.take("c", "ECDSA-P256");
    return [await pool.take("a", "ECDSA-P256"), await pool.take("b", "ECDSA-P256"), c]
      .map((k) => Array.from(k.spki).join(","));
  };
  const first = await spkis();
  assert.deepEqual(await spkis(), first);
  assert.equal(new Set(first).size, 3, "three different keys");
});
