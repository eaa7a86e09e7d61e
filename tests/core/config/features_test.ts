import assert from "node:assert/strict";
import { knownFeatures, parseFeatureGates } from "../../../core/config/features.ts";
import { validateFeatureGates } from "../../../core/config/validate.ts";
import { formatFieldError } from "../../../core/errors.ts";

Deno.test("parses --feature-gates with upstream's messages", () => {
  assert.deepEqual(parseFeatureGates("RootlessControlPlane=true"), { RootlessControlPlane: true });
  assert.deepEqual(parseFeatureGates(" RootlessControlPlane=F,"), { RootlessControlPlane: false });
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

Deno.test("the gates removed by v1.37 are refused on the command line as upstream does", () => {
  // upstream kubeadm v1.37.2: errors/flag-removed-gate*.txt
  for (
    const gate of [
      "ControlPlaneKubeletLocalMode",
      "NodeLocalCRISocket",
      "PublicKeysECDSA",
      "WaitForAllControlPlaneComponents",
    ]
  ) {
    assert.throws(
      () => parseFeatureGates(`${gate}=true`),
      new RegExp(`^Error: unrecognized feature-gate key: ${gate}$`),
    );
  }
});

Deno.test("the gates removed by v1.37 are refused in featureGates with upstream's message", () => {
  const errors = validateFeatureGates({ NodeLocalCRISocket: true });
  assert.deepEqual(errors.map(formatFieldError), [
    // upstream kubeadm v1.37.2: errors/validate-removed-gate.txt
    'featureGates: Invalid value: {"NodeLocalCRISocket":true}: NodeLocalCRISocket is not a valid feature name.',
  ]);
  const two = validateFeatureGates({
    RootlessControlPlane: false,
    PublicKeysECDSA: true,
    A: false,
  });
  assert.deepEqual(two.map(formatFieldError), [
    'featureGates: Invalid value: {"A":false,"PublicKeysECDSA":true,"RootlessControlPlane":false}: A is not a valid feature name.',
    'featureGates: Invalid value: {"A":false,"PublicKeysECDSA":true,"RootlessControlPlane":false}: PublicKeysECDSA is not a valid feature name.',
  ]);
  assert.deepEqual(validateFeatureGates({ RootlessControlPlane: true }), []);
});

Deno.test("v1.37 gate defaults and help text: RootlessControlPlane only", () => {
  assert.deepEqual(knownFeatures(), ["RootlessControlPlane=true|false (ALPHA - default=false)"]);
});
