import assert from "node:assert/strict";
import { normalizeUpgradeTarget } from "../../../core/upgrade/target.ts";
import { KUBERNETES_VERSION } from "../../../core/versions.ts";
import { ConfigError } from "../../../core/errors.ts";

Deno.test("upgrade target: a version gets its v, a label resolves offline with init's warnings", () => {
  assert.deepEqual(normalizeUpgradeTarget("1.37.2"), { version: "v1.37.2", warnings: [] });
  const label = normalizeUpgradeTarget("stable");
  assert.equal(label.version, KUBERNETES_VERSION);
  assert.match(label.warnings.at(-1)!, /falling back to the local client version: v1\.37\.2/);
});

Deno.test("upgrade target: below the minimum control plane, upstream's message naming the version argument", () => {
  assert.throws(
    () => normalizeUpgradeTarget("v1.35.9"),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.equal(
        e.message,
        "this version of kubeadm only supports deploying clusters with the control plane version >= 1.36.0. Current version: v1.35.9",
      );
      assert.equal(e.field, "version");
      assert.equal(e.value, "v1.35.9");
      return true;
    },
  );
  assert.throws(
    () => normalizeUpgradeTarget("banana"),
    /version "banana" doesn't match patterns for neither semantic version nor labels/,
  );
});
