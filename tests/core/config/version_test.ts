import assert from "node:assert/strict";
import { KUBERNETES_VERSION } from "../../../core/constants.ts";
import {
  compareSemVer,
  parseSemVer,
  resolveKubernetesVersion,
} from "../../../core/config/version.ts";

Deno.test("semantic versions parse and compare", () => {
  const v = parseSemVer("v1.34.4")!;
  assert.deepEqual(v, { major: 1, minor: 34, patch: 4, preRelease: "", build: "" });
  assert.ok(compareSemVer(parseSemVer("1.34.0-rc.1")!, parseSemVer("1.34.0")!) < 0);
  assert.ok(compareSemVer(parseSemVer("1.34.0-alpha.2")!, parseSemVer("1.34.0-alpha.10")!) < 0);
  assert.ok(compareSemVer(parseSemVer("1.35.0")!, parseSemVer("1.34.9")!) > 0);
  assert.equal(parseSemVer("1.34"), undefined);
});

Deno.test("labels resolve offline to the pinned version", () => {
  for (
    const label of ["stable", "stable-1", "latest", "latest-1", "stable-1.34", "release/stable"]
  ) {
    assert.equal(resolveKubernetesVersion(label).version, KUBERNETES_VERSION, label);
  }
  assert.equal(resolveKubernetesVersion("1.33.5").version, "v1.33.5");
  assert.equal(resolveKubernetesVersion("v1.34.0-rc.1").version, "v1.34.0-rc.1");
  assert.throws(() => resolveKubernetesVersion("stable-1.30"), /without network access/);
  assert.throws(
    () => resolveKubernetesVersion("v1.34"),
    /doesn't match patterns for neither semantic version nor labels/,
  );
  assert.throws(() => resolveKubernetesVersion("ci/latest"), /CI version/);
});
