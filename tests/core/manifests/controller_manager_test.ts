import assert from "node:assert/strict";
import {
  controllerManagerCommand,
  controllerManagerPod,
} from "../../../core/manifests/controller_manager.ts";
import {
  type ManifestInput,
  manifestInputFromInit,
} from "../../../core/manifests/manifest_input.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";

function input(
  edit: (cfg: ReturnType<typeof initConfigFixture>) => void = () => {},
  extra: Partial<ManifestInput> = {},
): ManifestInput {
  const cfg = initConfigFixture();
  edit(cfg);
  return manifestInputFromInit(cfg, extra);
}

Deno.test("controllerManagerCommand() has upstream's full default flag set", () => {
  assert.deepStrictEqual(controllerManagerCommand(input()), [
    "kube-controller-manager",
    "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
    "--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
    "--bind-address=127.0.0.1",
    "--client-ca-file=/etc/kubernetes/pki/ca.crt",
    "--cluster-name=kubernetes",
    "--cluster-signing-cert-file=/etc/kubernetes/pki/ca.crt",
    "--cluster-signing-key-file=/etc/kubernetes/pki/ca.key",
    "--controllers=*,bootstrapsigner,tokencleaner",
    "--kubeconfig=/etc/kubernetes/controller-manager.conf",
    "--leader-elect=true",
    "--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt",
    "--root-ca-file=/etc/kubernetes/pki/ca.crt",
    "--service-account-private-key-file=/etc/kubernetes/pki/sa.key",
    "--use-service-account-credentials=true",
  ]);
});

Deno.test("controllerManagerCommand() allocates node CIDRs when podSubnet is set", () => {
  const cmd = controllerManagerCommand(input((c) => {
    c.cluster.networking.podSubnet = "10.244.0.0/16";
  }));
  assert.ok(cmd.includes("--allocate-node-cidrs=true"));
  assert.ok(cmd.includes("--cluster-cidr=10.244.0.0/16"));
  assert.ok(cmd.includes("--service-cluster-ip-range=10.96.0.0/12"));
  assert.ok(!cmd.some((f) => f.startsWith("--node-cidr-mask-size")));
});

Deno.test("controllerManagerCommand() passes empty signing files in external CA mode", () => {
  const cmd = controllerManagerCommand(input(() => {}, { externalCA: true }));
  assert.ok(cmd.includes("--cluster-signing-cert-file="));
  assert.ok(cmd.includes("--cluster-signing-key-file="));
});

Deno.test("controllerManagerCommand() uses clusterName and extraArgs overrides", () => {
  const cmd = controllerManagerCommand(input((c) => {
    c.cluster.clusterName = "prod";
    c.cluster.controllerManager.extraArgs = [{ name: "bind-address", value: "0.0.0.0" }];
  }));
  assert.ok(cmd.includes("--cluster-name=prod"));
  assert.deepStrictEqual(cmd.filter((f) => f.startsWith("--bind-address")), [
    "--bind-address=0.0.0.0",
  ]);
});

Deno.test("controllerManagerPod() probes /healthz on 10257 without a readiness probe", () => {
  const c = controllerManagerPod(input()).spec!.containers[0];
  assert.deepStrictEqual(c.ports, [{ containerPort: 10257, name: "probe-port", protocol: "TCP" }]);
  assert.deepStrictEqual(c.livenessProbe!.httpGet, {
    host: "127.0.0.1",
    path: "/healthz",
    port: "probe-port",
    scheme: "HTTPS",
  });
  assert.equal(c.startupProbe!.httpGet!.path, "/healthz");
  assert.equal(c.readinessProbe, undefined);
  assert.deepStrictEqual(c.resources, { requests: { cpu: "200m" } });
});

Deno.test("controllerManagerPod() probe host follows bind-address; unspecified omits it", () => {
  const pod = (addr: string) =>
    controllerManagerPod(input((c) => {
      c.cluster.controllerManager.extraArgs = [{ name: "bind-address", value: addr }];
    })).spec!.containers[0].livenessProbe!.httpGet!;
  assert.equal(pod("10.1.1.1").host, "10.1.1.1");
  assert.equal(pod("0.0.0.0").host, undefined);
  assert.equal(pod("::").host, undefined);
});

Deno.test("controllerManagerPod() volumes: certs and kubeconfig, no flexvolume dir (v1.37)", () => {
  const pod = controllerManagerPod(input((c) => {
    c.cluster.controllerManager.extraArgs = [{
      name: "flex-volume-plugin-dir",
      value: "/opt/flex",
    }];
  }));
  assert.deepStrictEqual(
    pod.spec!.volumes!.map((v) => [v.name, v.hostPath!.path, v.hostPath!.type]),
    [
      ["ca-certs", "/etc/ssl/certs", "DirectoryOrCreate"],
      ["k8s-certs", "/etc/kubernetes/pki", "DirectoryOrCreate"],
      ["kubeconfig", "/etc/kubernetes/controller-manager.conf", "FileOrCreate"],
    ],
  );
  assert.deepStrictEqual(pod.spec!.containers[0].volumeMounts!.map((m) => m.name), [
    "ca-certs",
    "k8s-certs",
    "kubeconfig",
  ]);
});
