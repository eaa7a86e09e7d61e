import assert from "node:assert/strict";
import {
  enforceVersionPolicies,
  policyVerdict,
  versionSkewErrors,
} from "../../../core/upgrade/policy.ts";
import { parseSemVer } from "../../../core/config/version.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const opts = {
  minimumControlPlane: parseSemVer("v1.36.0")!,
  allowExperimental: false,
  allowRC: false,
};
const facts = { cluster: "v1.36.3", kubeadm: "v1.37.2", kubelets: { "v1.36.3": ["cp1", "w1"] } };

Deno.test("policy: one minor up to kubeadm's own version is allowed", () => {
  assert.deepEqual(versionSkewErrors("v1.37.2", facts, opts), { mandatory: [], skippable: [] });
});

Deno.test("policy: two minors up is mandatory, a newer minor than kubeadm too", () => {
  const errs = versionSkewErrors("v1.38.0", facts, opts);
  assert.deepEqual(errs.mandatory, [
    'Specified version to upgrade to "v1.38.0" is too high; kubeadm can upgrade only 1 minor version at a time',
    'Specified version to upgrade to "v1.38.0" is at least one minor release higher than the kubeadm minor release (38 > 37). Such an upgrade is not supported',
  ]);
});

Deno.test("policy: a downgrade of two minors, below the minimum, is mandatory; an older minor than kubeadm skippable", () => {
  const errs = versionSkewErrors("v1.35.0", { ...facts, cluster: "v1.37.2" }, opts);
  assert.deepEqual(errs.mandatory, [
    'Specified version to upgrade to "v1.35.0" is equal to or lower than the minimum supported version "v1.37.2". Please specify a higher version to upgrade to',
    'Specified version to downgrade to "v1.35.0" is too low; kubeadm can downgrade only 1 minor version at a time',
  ]);
  assert.deepEqual(errs.skippable, [
    "Kubeadm version v1.37.2 can only be used to upgrade to Kubernetes version 1.37",
  ]);
});

Deno.test("policy: a newer patch than kubeadm, pre-releases and old kubelets are skippable", () => {
  assert.deepEqual(versionSkewErrors("v1.37.3", facts, opts).skippable, [
    'Specified version to upgrade to "v1.37.3" is higher than the kubeadm version "v1.37.2". Upgrade kubeadm first using the tool you used to install kubeadm',
  ]);
  const rc = versionSkewErrors("v1.37.2-rc.1", { ...facts, kubeadm: "v1.37.2" }, opts);
  assert.match(rc.skippable.join("\n"), /is an unstable version and such upgrades weren't allowed/);
  assert.deepEqual(
    versionSkewErrors("v1.37.2-rc.1", facts, { ...opts, allowRC: true }).skippable,
    [],
  );
  const old = versionSkewErrors("v1.37.2", { ...facts, kubelets: { "v1.33.1": ["w1"] } }, opts);
  assert.deepEqual(old.skippable, [
    "There are kubelets in this cluster that are too old that have these versions [v1.33.1]",
  ]);
});

Deno.test("policy verdict: mandatory fails, skippable fails without --force and is printed with it", () => {
  assert.deepEqual(policyVerdict(undefined, false), {});
  const mandatory = policyVerdict({ mandatory: ["a"], skippable: ["b"] }, true);
  assert.equal(
    mandatory.error,
    "the version argument is invalid due to these fatal errors:\n\n\t- a\n\nPlease fix the misalignments highlighted above and try upgrading again",
  );
  assert.equal(
    policyVerdict({ mandatory: [], skippable: ["b"] }, false).error,
    "the version argument is invalid due to these errors:\n\n\t- b\n\nCan be bypassed if you pass the --force flag",
  );
  const forced = policyVerdict({ mandatory: [], skippable: ["b", "c"] }, true);
  assert.equal(forced.error, undefined);
  assert.match(
    forced.forced!,
    /^\[upgrade\/preflight\] Found 2 potential version compatibility errors/,
  );
});

Deno.test("enforceVersionPolicies: prints the versions it read; an unreachable API server is mandatory", async () => {
  const out = new RecordingPrinter();
  const ok = await enforceVersionPolicies(
    {
      clusterVersion: () => Promise.resolve("v1.36.3"),
      kubeadmVersion: () => "v1.37.2",
      kubeletVersions: () => Promise.reject(new Error("couldn't list all nodes in cluster")),
    },
    "v1.37.2",
    opts,
    out,
  );
  assert.deepEqual(out.lines, [
    "[upgrade/versions] Cluster version: v1.36.3",
    "[upgrade/versions] kubeadm version: v1.37.2",
  ]);
  assert.deepEqual(ok?.skippable, [
    "Unable to fetch kubelet version: couldn't list all nodes in cluster",
  ]);
  const down = await enforceVersionPolicies(
    {
      clusterVersion: () => Promise.reject(new Error("connection refused")),
      kubeadmVersion: () => "v1.37.2",
      kubeletVersions: () => Promise.resolve({}),
    },
    "v1.37.2",
    opts,
    new RecordingPrinter(),
  );
  assert.deepEqual(down?.mandatory, ["Unable to fetch cluster version: connection refused"]);
});
