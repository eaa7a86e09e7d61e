import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { seededRandom } from "../../../adapters/offline/random.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("seededRandom() is the SHAKE256 stream of its seed, read in order", () => {
  const r = seededRandom("seed");
  const drawn = [...r.bytes(5), ...r.bytes(27)];
  const want = createHash("shake256", { outputLength: 32 })
    .update("kubeadm-ts seeded random v1\0seed").digest();
  assert.equal(hex(new Uint8Array(drawn)), want.toString("hex"));
  assert.notEqual(hex(seededRandom("seed2").bytes(32)), want.toString("hex"));
  assert.throws(() => seededRandom(""), /the random seed is empty/);
});
