import assert from "node:assert/strict";
import {
  KUBECONFIG_SPECS,
  kubeconfigSpec,
  resolveKubeconfigSpec,
} from "../../../core/kubeconfig/specs.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";

Deno.test("KUBECONFIG_SPECS lists upstream's files, identities and endpoints in order", () => {
  assert.deepEqual(
    KUBECONFIG_SPECS.map((
      s,
    ) => [s.name, s.fileName, s.clientName, s.organizations.join(","), s.endpoint]),
    [
      ["admin", "admin.conf", "kubernetes-admin", "kubeadm:cluster-admins", "control-plane"],
      [
        "super-admin",
        "super-admin.conf",
        "kubernetes-super-admin",
        "system:masters",
        "control-plane",
      ],
      ["kubelet", "kubelet.conf", "system:node:", "system:nodes", "control-plane"],
      [
        "controller-manager",
        "controller-manager.conf",
        "system:kube-controller-manager",
        "",
        "local",
      ],
      ["scheduler", "scheduler.conf", "system:kube-scheduler", "", "local"],
    ],
  );
  assert.throws(
    () => kubeconfigSpec("bootstrap"),
    /couldn't retrieve KubeConfigSpec for bootstrap/,
  );
});

Deno.test("resolveKubeconfigSpec() uses the control-plane endpoint or the local endpoint", () => {
  const cfg = initConfigFixture();
  cfg.cluster.controlPlaneEndpoint = "lb.example.com:443";
  const warnings: string[] = [];
  const admin = resolveKubeconfigSpec(kubeconfigSpec("admin"), cfg, (l) => warnings.push(l));
  assert.equal(admin.serverURL, "https://lb.example.com:443");
  // kubeadm v1.37: a control-plane node's kubelet always uses the local endpoint.
  const kubelet = resolveKubeconfigSpec(kubeconfigSpec("kubelet"), cfg);
  assert.equal(kubelet.clientName, "system:node:cp-1");
  assert.equal(kubelet.serverURL, "https://192.168.0.10:6443");
  assert.deepEqual(warnings, [
    "[endpoint] WARNING: port specified in controlPlaneEndpoint overrides bindPort in the controlplane address",
  ]);
  assert.equal(
    resolveKubeconfigSpec(kubeconfigSpec("scheduler"), cfg).serverURL,
    "https://192.168.0.10:6443",
  );
});
