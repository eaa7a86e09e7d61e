// Upstream's discovery vectors (tests/support/vectors.ts) against the TypeScript sources.
import assert from "node:assert/strict";
import * as core from "../../../web/core_entry.ts";
import { runVectors, vectors } from "../../support/vectors.ts";

for (const v of vectors) {
  Deno.test(`vector: ${v.name}`, () => v.run(core));
}

Deno.test("the vector suite is complete", () => {
  assert.ok(vectors.length >= 25, `only ${vectors.length} vectors`);
  assert.equal(new Set(vectors.map((v) => v.name)).size, vectors.length, "unique names");
});

Deno.test("the vectors catch broken implementations", async () => {
  const failing = async (api: typeof core) =>
    (await runVectors(api)).filter((r) => !r.ok).map((r) => r.name);
  // A signature with base64 padding left on.
  const padded = await failing({
    ...core,
    computeDetachedSignature: async (c, id, s) =>
      `${await core.computeDetachedSignature(c, id, s)}=`,
  });
  assert.ok(padded.includes("jws: upstream vector, normal"), padded.join("\n"));
  // Discovery that ignores the pins.
  const unpinned = await failing({
    ...core,
    discoverWithToken: (o) => core.discoverWithToken({ ...o, caCertHashes: [] }),
  });
  assert.ok(unpinned.includes("token discovery: CA not pinned"), unpinned.join("\n"));
  assert.ok(unpinned.includes("token discovery: unparsable pin"));
  // A verdict that says yes to everything.
  const yes = await failing({
    ...core,
    checkClusterInfo: async (i) => ({ ...(await core.checkClusterInfo(i)), verdict: "verified" }),
  });
  assert.ok(yes.includes("verdict: tampered kubeconfig, wrong hash, wrong token, no hash"));
});
