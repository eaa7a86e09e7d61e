// The version table: what upstream kubeadm v1.37.2 deploys per target minor (its constants.go:
// SupportedEtcdVersion {34,35,36: 3.7.0-0}, CoreDNSVersion v1.14.6, PauseVersion 3.10.2).
import assert from "node:assert/strict";
import {
  CURRENT_KUBERNETES_VERSION,
  KUBEADM_MINOR,
  KUBERNETES_VERSION,
  MINIMUM_CONTROL_PLANE_MINOR,
  MINIMUM_KUBELET_MINOR,
  TARGET_MINORS,
  targetRelease,
} from "../../core/versions.ts";

Deno.test("kubeadm-ts matches upstream kubeadm v1.37.2", () => {
  assert.equal(KUBERNETES_VERSION, "v1.37.2");
  assert.equal(KUBEADM_MINOR, 37);
  assert.equal(CURRENT_KUBERNETES_VERSION, "v1.37.0");
  assert.equal(MINIMUM_CONTROL_PLANE_MINOR, 36);
  assert.equal(MINIMUM_KUBELET_MINOR, 34);
});

Deno.test("v1.36 and v1.37 targets get the same etcd, CoreDNS and pause tags", () => {
  for (const v of ["v1.36.3", "v1.37.2"]) {
    const r = targetRelease(v);
    assert.equal(r.etcd, "3.7.0-0", v);
    assert.equal(r.coreDNS, "v1.14.6", v);
    assert.equal(r.pause, "3.10.2", v);
  }
  assert.equal(targetRelease("v1.36.3").minor, 36);
});

Deno.test("a minor without an etcd entry falls back to the nearest one, with upstream's warning", () => {
  assert.equal(TARGET_MINORS[37].etcd, undefined);
  assert.equal(targetRelease("v1.36.3").etcdWarning, undefined);
  assert.equal(
    targetRelease("v1.37.2").etcdWarning,
    "could not find officially supported version of etcd for Kubernetes v1.37.2, falling back to the nearest etcd version (3.7.0-0)",
  );
  const newer = targetRelease("v1.38.0");
  assert.equal(newer.etcd, "3.7.0-0");
  assert.match(newer.etcdWarning ?? "", /Kubernetes v1\.38\.0, falling back/);
  assert.equal(targetRelease("v1.20.0").etcd, "3.7.0-0", "below the table: its first entry");
});

Deno.test("a version that does not parse gets upstream's defaults", () => {
  const r = targetRelease("v1.37");
  assert.deepEqual(r, { minor: undefined, etcd: "3.7.0-0", coreDNS: "v1.14.6", pause: "3.10.2" });
});
