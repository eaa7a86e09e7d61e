import assert from "node:assert/strict";
import { initWorkflow } from "../../../../core/phases/init/workflow.ts";
import { listPhases, runWorkflow } from "../../../../core/workflow/runner.ts";
import { FakeMachine } from "../../../support/fake_machine.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";

Deno.test("init workflow: upstream's phases and sub-phases, in order (facts §5.1)", () => {
  assert.deepEqual(listPhases(initWorkflow()).map((e) => e.path), [
    "preflight",
    "certs",
    "certs/all",
    "certs/ca",
    "certs/apiserver",
    "certs/apiserver-kubelet-client",
    "certs/front-proxy-ca",
    "certs/front-proxy-client",
    "certs/etcd-ca",
    "certs/etcd-server",
    "certs/etcd-peer",
    "certs/etcd-healthcheck-client",
    "certs/apiserver-etcd-client",
    "certs/sa",
    "kubeconfig",
    "kubeconfig/all",
    "kubeconfig/admin",
    "kubeconfig/super-admin",
    "kubeconfig/kubelet",
    "kubeconfig/controller-manager",
    "kubeconfig/scheduler",
    "etcd",
    "etcd/local",
    "control-plane",
    "control-plane/all",
    "control-plane/apiserver",
    "control-plane/controller-manager",
    "control-plane/scheduler",
    "kubelet-start",
    "wait-control-plane",
    "upload-config",
    "upload-config/all",
    "upload-config/kubeadm",
    "upload-config/kubelet",
    "upload-certs",
    "mark-control-plane",
    "bootstrap-token",
    "kubelet-finalize",
    "kubelet-finalize/all",
    "kubelet-finalize/enable-client-cert-rotation",
    "addon",
    "addon/all",
    "addon/coredns",
    "addon/kube-proxy",
    // Beyond upstream: skipped unless --certificate-auto-renewal is given.
    "certs-auto-renewal",
    "show-join-command",
  ]);
});

Deno.test("the preflight phase runs the checks on the InitData's preflight host", async () => {
  const { data } = initDataFixture();
  await assert.rejects(
    () => runWorkflow(initWorkflow(), data, { only: "preflight" }),
    /the preflight phase needs a host to inspect/,
    "no host: a clear error, never a silent pass",
  );

  const host = new FakeMachine();
  host.dns.set("cp-1", ["192.168.0.10"]);
  host.busyPorts.add(6443);
  const f = initDataFixture({ machine: host });
  await assert.rejects(
    () => runWorkflow(initWorkflow(), f.data, { only: "preflight" }),
    /error execution phase preflight/,
  );
  assert.ok(f.out.warnings.includes("\t[ERROR Port-6443]: Port 6443 is in use"));
});
