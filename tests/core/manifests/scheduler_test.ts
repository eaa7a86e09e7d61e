import assert from "node:assert/strict";
import { manifestInputFromInit } from "../../../core/manifests/manifest_input.ts";
import { schedulerCommand, schedulerPod } from "../../../core/manifests/scheduler.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";

Deno.test("schedulerCommand() has upstream's full default flag set", () => {
  assert.deepStrictEqual(schedulerCommand(manifestInputFromInit(initConfigFixture())), [
    "kube-scheduler",
    "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
    "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf",
    "--bind-address=127.0.0.1",
    "--kubeconfig=/etc/kubernetes/scheduler.conf",
    "--leader-elect=true",
  ]);
});

Deno.test("schedulerPod() probes /livez and /readyz on 10259 and gets no proxy env", () => {
  const cfg = initConfigFixture();
  cfg.cluster.scheduler.extraArgs = [{ name: "bind-address", value: "10.0.0.7" }, {
    name: "v",
    value: "4",
  }];
  const pod = schedulerPod(manifestInputFromInit(cfg, { proxyEnv: { HTTP_PROXY: "http://p" } }));
  const c = pod.spec!.containers[0];
  assert.ok(c.command!.includes("--v=4"));
  assert.deepStrictEqual(c.ports, [{ containerPort: 10259, name: "probe-port", protocol: "TCP" }]);
  assert.equal(c.livenessProbe!.httpGet!.path, "/livez");
  assert.equal(c.livenessProbe!.httpGet!.host, "10.0.0.7");
  assert.equal(c.readinessProbe!.httpGet!.path, "/readyz");
  assert.equal(c.startupProbe!.httpGet!.path, "/livez");
  assert.deepStrictEqual(c.env, [{ name: "HTTP_PROXY", value: "http://p" }]);
  assert.deepStrictEqual(pod.spec!.volumes, [
    {
      hostPath: { path: "/etc/kubernetes/scheduler.conf", type: "FileOrCreate" },
      name: "kubeconfig",
    },
  ]);
});
