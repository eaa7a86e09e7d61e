import assert from "node:assert/strict";
import {
  checkDocument,
  closestName,
  describeTypeMismatch,
  describeUnknownField,
  V1BETA4_SCHEMAS,
} from "../../../core/config/schema.ts";

Deno.test("strict check finds unknown fields with suggestions and type mismatches", () => {
  const result = checkDocument(
    {
      apiVersion: "kubeadm.k8s.io/v1beta4",
      kind: "InitConfiguration",
      localAPIEndpoint: { bindPort: "x", advertiseAdress: "1.2.3.4" },
      nodeRegistration: { taints: null, kubeletExtraArgs: [{ name: "v", value: 2 }] },
    },
    V1BETA4_SCHEMAS.InitConfiguration,
  );
  assert.deepEqual(result.unknown, [
    { path: "localAPIEndpoint.advertiseAdress", suggestion: "advertiseAddress" },
  ]);
  assert.equal(
    describeUnknownField(result.unknown[0]),
    'unknown field "localAPIEndpoint.advertiseAdress" (did you mean "localAPIEndpoint.advertiseAddress"?)',
  );
  assert.deepEqual(result.mismatches.map((m) => m.path), [
    "localAPIEndpoint.bindPort",
    "nodeRegistration.kubeletExtraArgs[0].value",
  ]);
  assert.equal(
    describeTypeMismatch(result.mismatches[1]),
    'cannot unmarshal number into field "nodeRegistration.kubeletExtraArgs[0].value" of type string (value: 2)',
  );
});

Deno.test("closest-name suggestions stay conservative", () => {
  assert.equal(closestName("podSubnett", ["podSubnet", "serviceSubnet", "dnsDomain"]), "podSubnet");
  assert.equal(closestName("network", ["networking", "etcd"]), "networking");
  assert.equal(closestName("zzzzzz", ["networking", "etcd"]), undefined);
});

Deno.test("feature gate maps only accept booleans", () => {
  const r = checkDocument({ featureGates: { A: "yes" } }, V1BETA4_SCHEMAS.ClusterConfiguration);
  assert.deepEqual(r.mismatches.map((m) => [m.path, m.expected]), [["featureGates.A", "bool"]]);
});
