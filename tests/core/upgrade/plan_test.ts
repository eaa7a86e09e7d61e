import assert from "node:assert/strict";
import {
  availableUpgrades,
  componentConfigVersionStates,
  upgradePlan,
  upgradePlanText,
} from "../../../core/upgrade/plan.ts";
import {
  kubeVersionGetter,
  offlineVersionGetter,
  tagFromImage,
  type VersionGetter,
} from "../../../core/upgrade/version_getter.ts";
import { fakeApiClient } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

/** A cluster of two control-plane nodes and a worker at v1.36.3, offline. */
function cluster(overrides: Partial<VersionGetter> = {}): VersionGetter {
  const cp = (v: string) => Promise.resolve({ [v]: ["cp1", "cp2"] });
  return {
    clusterVersion: () => Promise.resolve("v1.36.3"),
    kubeadmVersion: () => "v1.37.2",
    kubeletVersions: () => Promise.resolve({ "v1.36.3": ["cp1", "cp2", "w1"] }),
    versionFromLabel: (label) => Promise.reject(new Error(`offline: ${label}`)),
    componentVersions: (c) => cp(c === "etcd" ? "3.7.0-0" : "v1.36.3"),
    dnsAddonVersion: () => Promise.resolve("v1.14.6"),
    ...overrides,
  };
}

const options = (warnings: string[]) => ({
  allowExperimental: false,
  allowRC: false,
  warn: (l: string) => warnings.push(l),
});

Deno.test("tagFromImage: tags, ports and digests", () => {
  assert.equal(tagFromImage("registry.k8s.io/kube-apiserver:v1.36.3"), "v1.36.3");
  assert.equal(tagFromImage("reg:5000/etcd:3.7.0-0"), "3.7.0-0");
  assert.equal(tagFromImage("reg:5000/etcd"), "");
  assert.equal(tagFromImage(`reg/pause:3.10.2@sha256:${"a".repeat(64)}`), "3.10.2");
});

Deno.test("plan: a label that cannot be resolved falls back to kubeadm's version (upstream's warnings)", async () => {
  const warnings: string[] = [];
  const out = new RecordingPrinter();
  const ups = await availableUpgrades(cluster(), options(warnings), out);
  assert.deepEqual(out.lines, [
    "[upgrade] Fetching available versions to upgrade to",
    "[upgrade/versions] Cluster version: 1.36.3",
    "[upgrade/versions] kubeadm version: v1.37.2",
    "",
  ]);
  assert.match(warnings[0], /^\[upgrade\/versions\] WARNING: offline: stable$/);
  assert.equal(
    warnings[1],
    "[upgrade/versions] WARNING: Falling back to current kubeadm version as latest stable version",
  );
  assert.equal(ups.length, 1);
  assert.equal(ups[0].description, "stable version");
  assert.equal(ups[0].after.kubeVersion, "v1.37.2");
});

Deno.test("plan offline without [version]: labels resolve to kubeadm's own version, as upstream's air-gapped fallback", async () => {
  // Upstream kubeadm v1.37.2's `upgrade plan` on a node without internet access (observed on
  // a real v1.36.3 cluster): each release label falls back to the client version with two
  // warnings, so the target is v1.37.2 "in the v1.36 series", not a failed "stable version".
  const warnings: string[] = [];
  const { client } = fakeApiClient();
  const live = kubeVersionGetter(client, {
    kubeadmVersion: "v1.37.2",
    warn: (l) => warnings.push(l),
  });
  assert.equal(await live.versionFromLabel("stable", "stable version"), "v1.37.2");
  assert.deepEqual(warnings, [
    "could not fetch a Kubernetes version from the internet: kubeadm-ts resolves release labels offline (https://dl.k8s.io/release/stable.txt was not fetched)",
    "falling back to the local client version: v1.37.2",
  ]);
  warnings.length = 0;
  const out = new RecordingPrinter();
  const planWarnings: string[] = [];
  const ups = await availableUpgrades(
    cluster({ versionFromLabel: live.versionFromLabel }),
    options(planWarnings),
    out,
  );
  assert.deepEqual(out.lines.slice(3), [
    "[upgrade/versions] Target version: v1.37.2",
    "[upgrade/versions] Latest version in the v1.36 series: v1.37.2",
    "",
  ]);
  assert.deepEqual(planWarnings, []);
  assert.equal(warnings.length, 4, warnings.join("\n"));
  assert.match(
    warnings[2],
    /\(https:\/\/dl\.k8s\.io\/release\/stable-1\.36\.txt was not fetched\)$/,
  );
  assert.deepEqual(ups.map((u) => [u.description, u.after.kubeVersion]), [
    ["version in the v1.36 series", "v1.37.2"],
  ]);
  // A label this kubeadm cannot resolve at all is still an error (upstream's pattern message).
  await assert.rejects(
    live.versionFromLabel("nightly", "stable version"),
    /Couldn't fetch latest stable version from the internet: version "nightly" doesn't match patterns/,
  );
});

Deno.test("plan with [version]: every label answers it, as upstream's OfflineVersionGetter", async () => {
  const out = new RecordingPrinter();
  const ups = await availableUpgrades(offlineVersionGetter(cluster(), "v1.37.2"), options([]), out);
  assert.deepEqual(out.lines.slice(3), [
    "[upgrade/versions] Target version: v1.37.2",
    "[upgrade/versions] Latest version in the v1.36 series: v1.37.2",
    "",
  ]);
  assert.deepEqual(ups.map((u) => u.description), ["version in the v1.36 series"]);
});

Deno.test("plan text: upstream's tables, the apply command, the component configs", async () => {
  const ups = await availableUpgrades(cluster(), options([]), new RecordingPrinter());
  const plan = upgradePlan(
    ups,
    componentConfigVersionStates(new Set(["kubelet.config.k8s.io", "kubeproxy.config.k8s.io"])),
    true,
  );
  assert.equal(
    upgradePlanText(plan),
    `Components that must be upgraded manually after you have upgraded the control plane with 'kubeadm upgrade apply':
COMPONENT   NODE      CURRENT   TARGET
kubelet     cp1       v1.36.3   v1.37.2
kubelet     cp2       v1.36.3   v1.37.2
kubelet     w1        v1.36.3   v1.37.2

Upgrade to the latest stable version:

COMPONENT                 NODE      CURRENT   TARGET
kube-apiserver            cp1       v1.36.3   v1.37.2
kube-apiserver            cp2       v1.36.3   v1.37.2
kube-controller-manager   cp1       v1.36.3   v1.37.2
kube-controller-manager   cp2       v1.36.3   v1.37.2
kube-scheduler            cp1       v1.36.3   v1.37.2
kube-scheduler            cp2       v1.36.3   v1.37.2
kube-proxy                          1.36.3    v1.37.2
CoreDNS                             v1.14.6   v1.14.6
etcd                      cp1       3.7.0-0   3.7.0-0
etcd                      cp2       3.7.0-0   3.7.0-0

You can now apply the upgrade by executing the following command:

\tkubeadm upgrade apply v1.37.2

_____________________________________________________________________


The table below shows the current state of component configs as understood by this version of kubeadm.
Configs that have a "yes" mark in the "MANUAL UPGRADE REQUIRED" column require manual config upgrade or
resetting to kubeadm defaults before a successful upgrade can be performed. The version to manually
upgrade to is denoted in the "PREFERRED VERSION" column.

API GROUP                 CURRENT VERSION   PREFERRED VERSION   MANUAL UPGRADE REQUIRED
kubeproxy.config.k8s.io   v1alpha1          v1alpha1            no
kubelet.config.k8s.io     v1beta1           v1beta1             no
_____________________________________________________________________

`,
  );
  assert.deepEqual(plan.availableUpgrades?.[0].components.find((c) => c.name === "kubeadm"), {
    name: "kubeadm",
    currentVersion: "v1.37.2",
    newVersion: "v1.37.2",
  });
});

Deno.test("plan: an up-to-date cluster has no upgrade; --etcd-upgrade=false drops etcd rows", async () => {
  const upToDate = cluster({
    componentVersions: (c) => Promise.resolve({ [c === "etcd" ? "3.7.0-0" : "v1.37.2"]: ["cp1"] }),
  });
  assert.deepEqual(await availableUpgrades(upToDate, options([]), new RecordingPrinter()), []);
  const ups = await availableUpgrades(cluster(), options([]), new RecordingPrinter());
  const plan = upgradePlan(ups, [], false);
  assert.equal(plan.availableUpgrades![0].components.some((c) => c.name === "etcd"), false);
  assert.equal(plan.configVersions, undefined);
});
