import assert from "node:assert/strict";
import {
  deprecatedFeatureWarnings,
  featureEnabled,
  knownFeatures,
  parseFeatureGates,
} from "../../../core/config/features.ts";

Deno.test("parses --feature-gates with upstream's messages", () => {
  assert.deepEqual(parseFeatureGates("RootlessControlPlane=true, NodeLocalCRISocket=F"), {
    RootlessControlPlane: true,
    NodeLocalCRISocket: false,
  });
  assert.deepEqual(parseFeatureGates(""), {});
  assert.throws(() => parseFeatureGates("Foo=true"), /^Error: unrecognized feature-gate key: Foo$/);
  assert.throws(
    () => parseFeatureGates("RootlessControlPlane"),
    /missing bool value for feature-gate key:RootlessControlPlane/,
  );
  assert.throws(
    () => parseFeatureGates("RootlessControlPlane=yes"),
    /invalid value yes for feature-gate key: RootlessControlPlane, use true\|false instead/,
  );
});

Deno.test("1.34 gate defaults", () => {
  assert.equal(featureEnabled({}, "NodeLocalCRISocket"), true);
  assert.equal(featureEnabled({}, "ControlPlaneKubeletLocalMode"), true);
  assert.equal(featureEnabled({}, "WaitForAllControlPlaneComponents"), true);
  assert.equal(featureEnabled({}, "RootlessControlPlane"), false);
  assert.equal(featureEnabled({ RootlessControlPlane: true }, "RootlessControlPlane"), true);
  assert.equal(featureEnabled(undefined, "EtcdLearnerMode"), false);
});

Deno.test("help text and deprecation warnings", () => {
  assert.deepEqual(knownFeatures(), [
    "ControlPlaneKubeletLocalMode=true|false (BETA - default=true)",
    "NodeLocalCRISocket=true|false (BETA - default=true)",
    "PublicKeysECDSA=true|false (DEPRECATED - default=false)",
    "RootlessControlPlane=true|false (ALPHA - default=false)",
    "WaitForAllControlPlaneComponents=true|false (default=true)",
  ]);
  assert.equal(deprecatedFeatureWarnings({ RootlessControlPlane: true }).length, 0);
  assert.match(deprecatedFeatureWarnings({ PublicKeysECDSA: false })[0], /deprecated/);
});
