// End to end: on a real control plane built by our `init` (a real node: its kubelet runs the
// static Pods in containerd), `kubeadm certs renew all` renews every certificate, the static
// Pods it names are restarted (by moving their manifests out and back, as kubeadm's
// documentation says), and then: the API server and etcd serve the renewed certificates,
// kubectl works with the renewed admin.conf, the controller-manager and scheduler are back
// (their leader leases renewed with the renewed kubeconfigs), and upstream kubeadm v1.37.2's
// `check-expiration` agrees with ours on the renewed files.
import assert from "node:assert/strict";
import { createClusterNode, initControlPlane, restartStaticPod } from "../support/cluster.ts";
import { waitFor } from "../support/commands.ts";
import { openssl } from "../support/openssl.ts";
import { servedCert } from "../support/faults.ts";
import { assertPairedAndSigned } from "../support/pki_views.ts";
import { certSpec, KUBEADM_CERTS } from "../../core/certs/certlist.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

const fingerprint = (pem: string) => openssl(["x509", "-noout", "-fingerprint", "-sha256"], pem);

/** The check-expiration tables (from the CERTIFICATE header) with RESIDUAL TIME blanked. */
function tables(text: string): string {
  return text.slice(text.indexOf("CERTIFICATE "))
    .replace(/(UTC\s+)(\S+)(\s+)/g, (_m, a, r, b) => `${a}${"~".repeat(r.length)}${b}`);
}

Deno.test({
  name:
    "certs renew all on a real control plane: restart as printed, kubectl works, upstream agrees",
  ...e2e,
  async fn(t) {
    const node = await createClusterNode("cp-renew");
    try {
      await initControlPlane(node);
      const pki = node.path("/etc/kubernetes/pki");
      const before = {
        apiserver: await fingerprint(await Deno.readTextFile(`${pki}/apiserver.crt`)),
        etcd: await fingerprint(await Deno.readTextFile(`${pki}/etcd/server.crt`)),
        admin: await Deno.readTextFile(node.path("/etc/kubernetes/admin.conf")),
      };
      assert.equal(await fingerprint(await servedCert(node, 6443)), before.apiserver);

      let restartLine = "";
      await t.step(
        "renew all reads the cluster's configuration and renews everything",
        async () => {
          const r = await node.kubeadm(["certs", "renew", "all"]);
          assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
          assert.match(
            r.stdout,
            /^\[renew\] Reading configuration from the "kubeadm-config" ConfigMap in namespace "kube-system"\.\.\.\n\[renew\] Use 'kubeadm init phase upload-config kubeadm --config your-config-file' to re-upload it\.\n\n/,
            "the configuration came from the cluster",
          );
          assert.equal((r.stdout.match(/ renewed\n/g) ?? []).length, 11, r.stdout);
          restartLine = r.stdout.trim().split("\n").pop()!;
          assert.equal(
            restartLine,
            "Done renewing certificates. You must restart the kube-apiserver, kube-controller-manager, kube-scheduler and etcd, so that they can use the new certificates.",
          );
          for (const s of KUBEADM_CERTS.filter((s) => s.caName)) {
            await assertPairedAndSigned(
              `${pki}/${s.baseName}.crt`,
              `${pki}/${s.baseName}.key`,
              `${pki}/${certSpec(s.caName!).baseName}.crt`,
            );
          }
          assert.notEqual(
            await fingerprint(await Deno.readTextFile(`${pki}/apiserver.crt`)),
            before.apiserver,
          );
          assert.notEqual(
            await Deno.readTextFile(node.path("/etc/kubernetes/admin.conf")),
            before.admin,
          );
        },
      );

      const holder = async (lease: string) => {
        const r = await node.kubectl(["-n", "kube-system", "get", "lease", lease, "-o", "json"]);
        return r.code === 0 ? JSON.parse(r.stdout).spec.holderIdentity as string : undefined;
      };
      const holdersBefore = new Map<string, string>();
      for (const lease of ["kube-controller-manager", "kube-scheduler"]) {
        holdersBefore.set(lease, await waitFor(`${lease} to hold its lease`, () => holder(lease)));
      }
      await t.step("restart the static Pods the command named", async () => {
        const named = restartLine.match(/restart the (.*), so that/)![1].split(/, | and /);
        assert.deepEqual(named, [
          "kube-apiserver",
          "kube-controller-manager",
          "kube-scheduler",
          "etcd",
        ]);
        for (const pod of named) await restartStaticPod(node, pod);
      });

      await t.step("the API server and etcd serve the renewed certificates", async () => {
        const renewedApi = await fingerprint(await Deno.readTextFile(`${pki}/apiserver.crt`));
        await waitFor(
          "the API server to serve its renewed certificate",
          async () =>
            await fingerprint(await servedCert(node, 6443)).catch(() => "") === renewedApi,
          120_000,
        );
        const renewedEtcd = await fingerprint(await Deno.readTextFile(`${pki}/etcd/server.crt`));
        assert.notEqual(renewedEtcd, before.etcd);
        const clientCert = [
          "-cert /etc/kubernetes/pki/etcd/healthcheck-client.crt",
          "-key /etc/kubernetes/pki/etcd/healthcheck-client.key",
        ];
        let served = "";
        // etcd may still be starting after its restart: wait for it to serve anything.
        await waitFor("etcd to serve again", async () => {
          served = await fingerprint(await servedCert(node, 2379, clientCert)).catch(() => "");
          return served !== "";
        }, 120_000);
        assert.equal(served, renewedEtcd);
      });

      await t.step(
        "kubectl works with the renewed admin.conf; the control plane is healthy",
        async () => {
          const ready = await waitFor("readyz", async () => {
            const r = await node.kubectl(["get", "--raw", "/readyz?verbose"]);
            return r.code === 0 && r.stdout;
          }, 120_000);
          assert.match(ready, /readyz check passed/);
          assert.match(ready, /\[\+\]etcd ok/);
          const nodes = await node.kubectl(["get", "nodes", "-o", "name"]);
          assert.equal(nodes.code, 0, nodes.stderr);
          assert.equal(nodes.stdout.trim(), "node/cp-renew");
          // A restarted controller-manager or scheduler takes its lease under a new identity,
          // authenticating with its renewed kubeconfig.
          for (const [lease, old] of holdersBefore) {
            await waitFor(`a restarted ${lease} to take its lease`, async () => {
              const now = await holder(lease);
              return now !== undefined && now !== old;
            }, 120_000);
          }
        },
      );

      await t.step("upstream kubeadm v1.37.2's check-expiration agrees with ours", async () => {
        const upstream = await node.exec([`${node.binDir}/kubeadm`, "certs", "check-expiration"]);
        const ours = await node.kubeadm(["certs", "check-expiration"]);
        assert.equal(upstream.code, 0, upstream.stderr);
        assert.equal(ours.code, 0, ours.stderr);
        assert.equal(tables(ours.stdout), tables(upstream.stdout));
        assert.match(ours.stdout, /apiserver {2,}\S+ \d\d, \d{4} [\d:]+ UTC {3}36[45]d /);
      });
    } finally {
      await node.stop();
    }
  },
});
