import assert from "node:assert/strict";
import { resolveUpgradeConfig } from "../../../core/upgrade/upgrade_config.ts";
import { ValidationError } from "../../../core/errors.ts";

const doc = (body: string) =>
  `apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\n${body}`;

Deno.test("UpgradeConfiguration: no file gives upstream's defaults", () => {
  const cfg = resolveUpgradeConfig();
  assert.equal(cfg.apply.certificateRenewal, true);
  assert.equal(cfg.apply.etcdUpgrade, true);
  assert.equal(cfg.apply.imagePullPolicy, "IfNotPresent");
  assert.equal(cfg.apply.imagePullSerial, true);
  assert.equal(cfg.apply.dryRun, false);
  assert.equal(cfg.node.etcdUpgrade, true);
  assert.equal(cfg.plan.etcdUpgrade, true);
  assert.equal(cfg.timeouts.upgradeManifests, "5m0s");
  assert.equal(cfg.timeouts.kubernetesAPICall, "1m0s");
  assert.deepEqual(cfg.warnings, []);
});

Deno.test("UpgradeConfiguration: set values are kept, unset ones defaulted", () => {
  const cfg = resolveUpgradeConfig(doc(
    "apply:\n  kubernetesVersion: v1.37.2\n  etcdUpgrade: false\n  patches:\n    directory: /p\nnode:\n  imagePullPolicy: Never\ntimeouts:\n  upgradeManifests: 2m\n",
  ));
  assert.equal(cfg.apply.kubernetesVersion, "v1.37.2");
  assert.equal(cfg.apply.etcdUpgrade, false);
  assert.equal(cfg.apply.certificateRenewal, true);
  assert.equal(cfg.apply.patchesDirectory, "/p");
  assert.equal(cfg.node.imagePullPolicy, "Never");
  assert.equal(cfg.timeouts.upgradeManifests, "2m0s");
});

Deno.test("UpgradeConfiguration: an unknown field only warns, as upstream's lenient load; other kinds are ignored with a warning", () => {
  const cfg = resolveUpgradeConfig(
    `${
      doc("apply:\n  bogusField: 1\n")
    }---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n`,
  );
  assert.ok(
    cfg.warnings.some((w) => /strict decoding error: unknown field "apply\.bogusField"/.test(w)),
    cfg.warnings.join("\n"),
  );
  assert.ok(
    cfg.warnings.includes(
      "[config] WARNING: Ignored configuration document with GroupVersionKind kubeadm.k8s.io/v1beta4, Kind=ClusterConfiguration",
    ),
    cfg.warnings.join("\n"),
  );
});

Deno.test("UpgradeConfiguration: a relative patches directory and an unknown pull policy fail naming the fields", () => {
  assert.throws(
    () =>
      resolveUpgradeConfig(
        doc("apply:\n  patches:\n    directory: rel\nnode:\n  imagePullPolicy: Sometimes\n"),
      ),
    (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.deepEqual(e.errors.map((f) => f.field), [
        "apply.patches.directory",
        "node.imagePullPolicy",
      ]);
      assert.match(
        e.message,
        /apply\.patches\.directory: Invalid value: "rel": path is not absolute/,
      );
      return true;
    },
  );
});
