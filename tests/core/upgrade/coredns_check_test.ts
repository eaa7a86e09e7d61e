// The CoreDNS migration check of an upgrade: kubeadm's default Corefile (for whatever domain it
// serves) can be replaced, a customized one of another CoreDNS version cannot; the check needs
// the cluster only, and logs upstream's two -v=1 lines.
import { platformTime } from "../../support/platform.ts";
import assert from "node:assert/strict";
import type { Deployment } from "kubernetes-types/apps/v1.d.ts";
import { corefile } from "../../../core/addons/coredns.ts";
import type { Machine } from "../../../core/ports/machine.ts";
import { KubeClient } from "../../../core/kube/client.ts";
import { coreDNSMigrationChecks } from "../../../core/upgrade/coredns_check.ts";
import { putConfigMap } from "../../support/fake_cluster.ts";
import { FakeKubeApi } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

function clusterWith(text: string, tag: string): KubeClient {
  const api = new FakeKubeApi();
  putConfigMap(api, "coredns", { Corefile: text });
  api.put(
    <Deployment> {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "coredns", namespace: "kube-system", labels: { "k8s-app": "kube-dns" } },
      spec: {
        selector: {},
        template: {
          spec: {
            containers: [{ name: "coredns", image: `registry.k8s.io/coredns/coredns:${tag}` }],
          },
        },
      },
    },
  );
  return new KubeClient({ server: "https://h:6443", transport: api.transport, ...platformTime });
}

async function verdict(text: string, tag = "v1.12.1") {
  const out = new RecordingPrinter();
  const [check] = coreDNSMigrationChecks({
    client: clusterWith(text, tag),
    targetVersion: "v1.14.6",
  });
  const outcome = await check.run({} as Machine, out.log);
  return { errors: outcome.errors, logged: out.messages(1) };
}

Deno.test("kubeadm's default Corefile passes, for any domain it serves; the two lines are logged", async () => {
  for (const domain of ["cluster.local", "corp.example", ""]) {
    const r = await verdict(corefile(domain));
    assert.deepEqual(r.errors, [], domain);
    assert.deepEqual(r.logged, [
      "validating if there are any unsupported CoreDNS plugins in the Corefile",
      "validating if migration can be done for the current CoreDNS release.",
    ]);
  }
});

Deno.test("a customized Corefile of another CoreDNS version fails CoreDNSMigration; the same version passes", async () => {
  const custom = corefile("cluster.local").replace("    loop\n", "    loop\n    log\n");
  const r = await verdict(custom);
  assert.deepEqual(r.errors, [
    "CoreDNS will not be upgraded: kubeadm-ts cannot migrate a customized Corefile from CoreDNS v1.12.1 to v1.14.6",
  ]);
  assert.deepEqual((await verdict(custom, "v1.14.6")).errors, []);
});
