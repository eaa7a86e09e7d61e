import assert from "node:assert/strict";
import { KUBERNETES_VERSION } from "../../../core/versions.ts";
import {
  compareSemVer,
  normalizeKubernetesVersion,
  parseSemVer,
  resolveKubernetesVersion,
} from "../../../core/config/version.ts";
import { ConfigError } from "../../../core/errors.ts";

Deno.test("semantic versions parse and compare", () => {
  const v = parseSemVer("v1.37.2")!;
  assert.deepEqual(v, { major: 1, minor: 37, patch: 2, preRelease: "", build: "" });
  assert.ok(compareSemVer(parseSemVer("1.37.0-rc.1")!, parseSemVer("1.37.0")!) < 0);
  assert.ok(compareSemVer(parseSemVer("1.37.0-alpha.2")!, parseSemVer("1.37.0-alpha.10")!) < 0);
  assert.ok(compareSemVer(parseSemVer("1.38.0")!, parseSemVer("1.37.9")!) > 0);
  assert.equal(parseSemVer("1.37"), undefined);
});

Deno.test("labels fall back offline to kubeadm's own version and say so, as upstream offline", () => {
  for (
    const label of [
      "stable",
      "stable-1",
      "latest",
      "latest-1",
      "stable-1.37",
      "stable-1.30",
      "release/stable",
    ]
  ) {
    const r = resolveKubernetesVersion(label);
    assert.equal(r.version, KUBERNETES_VERSION, label);
    assert.equal(r.warnings.length, 2, label);
    assert.match(r.warnings[0], /^could not fetch a Kubernetes version from the internet: /);
    assert.equal(r.warnings[1], "falling back to the local client version: v1.37.2");
  }
  assert.match(
    resolveKubernetesVersion("stable-1").warnings[0],
    /dl\.k8s\.io\/release\/stable-1\.txt/,
  );
  assert.deepEqual(resolveKubernetesVersion("1.36.5"), { version: "v1.36.5", warnings: [] });
  assert.equal(resolveKubernetesVersion("v1.37.0-rc.1").version, "v1.37.0-rc.1");
  assert.throws(
    () => resolveKubernetesVersion("v1.37"),
    /doesn't match patterns for neither semantic version nor labels/,
  );
  assert.throws(() => resolveKubernetesVersion("ci/latest"), /CI version/);
});

Deno.test("control planes older than v1.36.0 are refused with upstream's message", () => {
  for (
    const [v, shown] of [["v1.35.9", "v1.35.9"], ["1.33.0", "v1.33.0"], [
      "v1.36.0-rc.1",
      "v1.36.0-rc.1",
    ]]
  ) {
    assert.throws(
      () => normalizeKubernetesVersion(v),
      (e: unknown) =>
        e instanceof ConfigError && e.field === "kubernetesVersion" &&
        e.message ===
          `this version of kubeadm only supports deploying clusters with the control plane version >= 1.36.0. Current version: ${shown}`,
      v,
    );
  }
  assert.equal(normalizeKubernetesVersion("v1.36.0").version, "v1.36.0");
  assert.deepEqual(normalizeKubernetesVersion("v1.38.0"), { version: "v1.38.0", warnings: [] });
  assert.throws(() => normalizeKubernetesVersion("v1.37"), ConfigError);
});
