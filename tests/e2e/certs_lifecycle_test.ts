// End to end on a real control plane built by our `init --certificate-auto-renewal` (kubelets
// with serverTLSBootstrap), which leaves the schedule's timer active: certificates made to
// expire soon (re-issued with a 10-day validity, kubelet.conf given an embedded 10-day
// certificate) are renewed by the installed schedule — its systemd units run as the timer
// would — which restarts every component, one at a time, then the kubelet, while a client polls
// the API (the downtime of a single control plane is measured and printed, per component); the
// kubelet's serving certificate request is approved and forged ones are left Pending; the peer,
// upstream kubeadm's `certs renew all` and the documented manual restart, is measured the same
// way on the same node; `reset` removes the schedule.
import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import {
  assertOk,
  type ClusterNode,
  CONTROL_PLANE_PODS,
  createClusterNode,
  initControlPlane,
  isDaemonState,
  kubectlJson,
  trackWrites,
} from "../support/cluster.ts";
import { waitFor } from "../support/commands.ts";
import { downtimeWithin, type Outage, startApiPoller } from "../support/api_poller.ts";
import { openssl } from "../support/openssl.ts";
import { RESTARTED, type RestartWindow, watchRestarts } from "../support/restart_windows.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const TIMER = "kubeadm-certs-renewal.timer";
const SERVICE = "kubeadm-certs-renewal";
/** The poller's request timeout: a request slower than this counts as failed. */
const POLL_TIMEOUT_MS = 5_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One line per component: how long its restart took and how long the API was unavailable. */
function restartFigures(windows: RestartWindow[], outages: Outage[]): string[] {
  return windows.map((w) =>
    `  ${w.component}: restart ${seconds(w.end - w.start)}, API unavailable ${
      seconds(downtimeWithin(outages, w.start, w.end))
    }`
  );
}

/**
 * Runs `f` while a client polls the API with admin.conf's credentials, and prints the figures
 * under `label`: the run's time, the API's downtime, and per component (`f`'s windows) its
 * restart's time and the downtime within it.
 */
async function measureDowntime<T extends { windows: RestartWindow[] }>(
  node: ClusterNode,
  label: string,
  f: () => Promise<T>,
): Promise<T> {
  const poller = startApiPoller(
    await Deno.readTextFile(node.path("/etc/kubernetes/admin.conf")),
    "/api/v1/namespaces/kube-system/configmaps/kubeadm-config",
    { timeoutMs: POLL_TIMEOUT_MS },
  );
  await new Promise((r) => setTimeout(r, 2_000));
  const started = Date.now();
  const result = await f();
  const tookMs = Date.now() - started;
  await new Promise((r) => setTimeout(r, 2_000));
  const report = await poller.stop();
  console.log(
    [
      `${label}: ${
        seconds(tookMs)
      }; ${report.requests} requests every 100 ms, ${report.failures.length} failed; API unavailable ${
        seconds(report.downtimeMs)
      } (longest outage ${seconds(report.longestOutageMs)}), slowest success ${
        seconds(report.slowestMs)
      }`,
      ...restartFigures(result.windows, report.outages),
    ].join("\n"),
  );
  return result;
}

/**
 * Embeds in kubelet.conf a 10-day client certificate for cp1 signed by the cluster CA (as
 * kubelet.conf holds it when no kubelet-finalize pointed it at the rotated file).
 */
const embedKubeletCert = (kubectl: string) =>
  [
    "set -e; cd /etc/kubernetes; d=$(mktemp -d)",
    "openssl ecparam -name prime256v1 -genkey -noout -out $d/k.key",
    'openssl req -new -key $d/k.key -subj "/O=system:nodes/CN=system:node:cp1" -out $d/k.csr',
    'printf "keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n" > $d/ext',
    "openssl x509 -req -in $d/k.csr -CA pki/ca.crt -CAkey pki/ca.key -CAcreateserial -CAserial $d/srl -days 10 -extfile $d/ext -out $d/k.crt",
    `user=$(${kubectl} --kubeconfig kubelet.conf config view -o jsonpath='{.contexts[0].context.user}')`,
    `${kubectl} --kubeconfig kubelet.conf config set-credentials "$user" --client-certificate=$d/k.crt --client-key=$d/k.key --embed-certs`,
    "rm -r $d",
  ].join("\n");

/** kubelet.conf's embedded client certificate: days left and subject. */
async function kubeletConfCert(node: ClusterNode): Promise<{ days: number; subject: string }> {
  const r = await node.exec([
    "sh",
    "-c",
    `sed -n "s/^ *client-certificate-data: //p" /etc/kubernetes/kubelet.conf | base64 -d | openssl x509 -noout -enddate -subject`,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const end = /notAfter=(.*)/.exec(r.stdout)![1];
  return {
    days: (Date.parse(end) - Date.now()) / 86_400_000,
    subject: /subject=(.*)/.exec(r.stdout)![1],
  };
}

/** The health endpoint a component's manifest probes (kubeadm's probes, as the node reaches them). */
function healthURL(node: ClusterNode, component: string): string {
  return {
    "kube-apiserver": `https://${node.ip}:6443/livez`,
    "kube-controller-manager": "https://127.0.0.1:10257/healthz",
    "kube-scheduler": "https://127.0.0.1:10259/livez",
    "etcd": "http://127.0.0.1:2381/livez",
  }[component]!;
}

/** Days left of the certificate in a PEM (or the first certificate of a kubeconfig's user). */
async function daysLeft(pem: string): Promise<number> {
  const end = (await openssl(["x509", "-noout", "-enddate"], pem)).trim().slice("notAfter=".length);
  return (Date.parse(end) - Date.now()) / 86_400_000;
}

async function clientCertOf(node: ClusterNode, file: string): Promise<string> {
  const text = await Deno.readTextFile(node.path(`/etc/kubernetes/${file}`));
  return atob(/client-certificate-data: (\S+)/.exec(text)![1]);
}

/** Days left of every control-plane certificate on the node, by file. */
async function certificateDays(node: ClusterNode): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const pki = node.path("/etc/kubernetes/pki");
  for (
    const f of [
      "apiserver",
      "apiserver-kubelet-client",
      "apiserver-etcd-client",
      "front-proxy-client",
      "etcd/server",
      "etcd/peer",
      "etcd/healthcheck-client",
    ]
  ) {
    out.set(f, await daysLeft(await Deno.readTextFile(`${pki}/${f}.crt`)));
  }
  for (const f of ["admin.conf", "super-admin.conf", "controller-manager.conf", "scheduler.conf"]) {
    out.set(f, await daysLeft(await clientCertOf(node, f)));
  }
  return out;
}

/** A certificate's serial number. */
async function serialOf(pem: string): Promise<string> {
  return (await openssl(["x509", "-noout", "-serial"], pem)).trim();
}

/** The serial number of the certificate a TLS server presents (the node's own openssl). */
async function servedSerial(node: ClusterNode, port: number, clientArgs = ""): Promise<string> {
  const r = await node.exec([
    "sh",
    "-c",
    `openssl s_client -connect ${node.ip}:${port} ${clientArgs} </dev/null 2>/dev/null | openssl x509 -noout -serial`,
  ]);
  return r.code === 0 ? r.stdout.trim() : "";
}

async function mirrorPod(node: ClusterNode, component: string): Promise<Pod> {
  return await kubectlJson(node, [
    "-n",
    "kube-system",
    "get",
    "pod",
    `${component}-${node.name}`,
  ]) as unknown as Pod;
}

Deno.test({
  name:
    "certificate lifecycle on a real control plane: scheduled renewal restarts everything, serving CSRs approved, reset removes the schedule",
  ...e2e,
  async fn(t) {
    const node = await createClusterNode("cp1");
    try {
      await initControlPlane(node, "", {
        kubeletExtra: "serverTLSBootstrap: true\n",
        args: ["--certificate-auto-renewal"],
      });
      const kubeadm = async (args: string[]) => {
        const r = await node.kubeadm(args);
        await assertOk(node, `kubeadm ${args.join(" ")}`, r);
        return r;
      };

      await t.step("init --certificate-auto-renewal left the timer active", async () => {
        const s = JSON.parse(
          (await kubeadm(["certs", "auto-renewal", "status", "-o", "json"])).stdout,
        );
        assert.deepEqual(
          [s.installed, s.enabled, s.active, s.schedule, s.window, s.approveKubeletServing],
          [true, true, true, "daily", "720h0m0s", false],
        );
        // init's kubelet-finalize pointed kubelet.conf at the kubelet's rotated certificate.
        assert.equal(s.kubeletClient.state, "rotated");
      });

      await t.step("certificates re-issued to expire in 10 days", async () => {
        const short = `${node.machine.dir}/short-validity.yaml`;
        await Deno.writeTextFile(
          short,
          "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\ncertificateValidityPeriod: 240h\n",
        );
        await kubeadm(["certs", "renew", "all", "--config", short]);
        for (const [f, days] of await certificateDays(node)) {
          assert.ok(days > 9 && days < 10.1, `${f}: ${days} days`);
        }
        const expiring = await node.kubeadm([
          "certs",
          "check-expiration",
          "--fail-if-expiring-within",
          "720h",
        ]);
        assert.equal(expiring.code, 4, expiring.stderr);
        // kubelet.conf as a node set up by hand has it: a 10-day certificate embedded.
        const made = await node.exec(["sh", "-c", embedKubeletCert(`${node.binDir}/kubectl`)]);
        assert.equal(made.code, 0, made.stderr);
        const s = JSON.parse(
          (await kubeadm(["certs", "auto-renewal", "status", "-o", "json"])).stdout,
        );
        assert.equal(s.kubeletClient.state, "embedded");
      });

      await t.step(
        "install: the timer is enabled and waiting; installing again changes nothing",
        async () => {
          const bad = await node.kubeadm(["certs", "auto-renewal", "install", "--within", "30d"]);
          assert.equal(bad.code, 3);
          assert.match(bad.stderr, /invalid argument "30d" for "--within" flag/);
          // Other settings than init's: the files are replaced.
          const other = await kubeadm([
            "certs",
            "auto-renewal",
            "install",
            "--approve-kubelet-serving",
          ]);
          assert.match(
            other.stdout,
            /Writing \/etc\/systemd\/system\/kubeadm-certs-renewal\.service/,
          );
          const status = await kubeadm(["certs", "auto-renewal", "status", "-o", "json"]);
          const s = JSON.parse(status.stdout);
          assert.equal(s.installed, true);
          assert.equal(s.enabled, true);
          assert.equal(s.active, true);
          assert.equal(s.window, "720h0m0s");
          assert.deepEqual(s.files.map((f: { state: string }) => f.state), ["present", "present"]);
          const { result, written } = await trackWrites(
            node,
            () => kubeadm(["certs", "auto-renewal", "install", "--approve-kubelet-serving"]),
          );
          // etcd and the kubelet write their own state all along; kubeadm wrote nothing.
          assert.deepEqual(
            written.filter((p) => !isDaemonState(p)),
            [],
            result.stdout,
          );
          assert.match(result.stdout, /kubeadm-certs-renewal\.timer is up to date/);
        },
      );

      const manifestsBefore = new Map<string, string>();
      for (const c of CONTROL_PLANE_PODS) {
        manifestsBefore.set(
          c,
          await Deno.readTextFile(node.path(`/etc/kubernetes/manifests/${c}.yaml`)),
        );
      }
      const before = new Map<string, { uid: string; container: string }>();
      for (const c of CONTROL_PLANE_PODS) {
        const pod = await mirrorPod(node, c);
        before.set(c, {
          uid: pod.metadata!.uid!,
          container: pod.status!.containerStatuses![0].containerID!,
        });
      }

      await t.step(
        "the timer fires: everything renewed, every component restarted, downtime measured",
        async () => {
          const { result, windows } = await measureDowntime(
            node,
            "kubeadm-ts, scheduled renewal with restarts on a single control plane",
            () => watchRestarts(node, SERVICE, () => node.machine.services.fireTimer(TIMER)),
          );
          const journal = await node.machine.log(SERVICE);
          // What each restart took (the stop, then healthy), as kubeadm logged it.
          console.log(journal.split("\n").filter((l) => l.includes("[restart]")).join("\n"));
          assert.equal(result.result, "success", journal);
          assert.match(journal, /Renewing what expires within 720h0m0s: admin\.conf, apiserver, /);
          for (const c of ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd"]) {
            assert.match(
              journal,
              new RegExp(`\\[restart\\] ${c} is back, on its renewed certificates`),
            );
          }
          assert.deepEqual(windows.map((w) => w.component), RESTARTED);
          assert.match(journal, /Renewing what expires within 720h0m0s: .*, kubelet\.conf$/m);
          assert.match(
            journal,
            /\[restart\] Restarting the kubelet \(its kubelet\.conf was renewed\)/,
          );
          const kubelet = await kubeletConfCert(node);
          assert.ok(kubelet.days > 364, `kubelet.conf renewed for a year: ${kubelet.days} days`);
          assert.match(kubelet.subject, /O\s*=\s*system:nodes, CN\s*=\s*system:node:cp1/);
          await waitFor("node cp1 Ready after the kubelet's restart", async () => {
            const n = await kubectlJson(node, ["get", "node", "cp1"]) as {
              status: { conditions: { type: string; status: string }[] };
            };
            return n.status.conditions.some((c) => c.type === "Ready" && c.status === "True");
          }, 120_000);
          for (const [f, days] of await certificateDays(node)) {
            assert.ok(days > 364, `${f} renewed for a year: ${days} days`);
          }
          for (const c of CONTROL_PLANE_PODS) {
            // Restarted in place (a new container in the same Pod, the manifest untouched), or,
            // for a component whose container the kubelet restarted less than 10 minutes ago
            // (one that crashed while the cluster came up), as a new Pod: its manifest changed
            // by the restartedAt annotation alone.
            const newPod = new RegExp(`Restarting ${c} \\(for [^)]*\\) as a new Pod`).test(journal);
            await waitFor(`${c}: a new container`, async () => {
              const pod = await mirrorPod(node, c);
              assert.equal(pod.metadata?.uid === before.get(c)!.uid, !newPod, `${c}: its Pod`);
              const id = pod.status?.containerStatuses?.[0].containerID;
              return id !== undefined && id !== before.get(c)!.container;
            }, 60_000);
            const after = await Deno.readTextFile(node.path(`/etc/kubernetes/manifests/${c}.yaml`));
            const added = after.split("\n").filter((l) =>
              !manifestsBefore.get(c)!.split("\n").includes(l)
            );
            assert.deepEqual(
              added.filter((l) =>
                !/kubeadm\.kubernetes\.io\/restartedAt|^\s*annotations:$/.test(l)
              ),
              [],
              `${c}'s manifest`,
            );
            assert.equal(added.length > 0, newPod, `${c}'s manifest changed only for a new Pod`);
          }
          const pki = node.path("/etc/kubernetes/pki");
          assert.equal(
            await servedSerial(node, 6443),
            await serialOf(await Deno.readTextFile(`${pki}/apiserver.crt`)),
            "the API server serves its renewed certificate",
          );
          const client =
            "-cert /etc/kubernetes/pki/etcd/healthcheck-client.crt -key /etc/kubernetes/pki/etcd/healthcheck-client.key";
          assert.equal(
            await servedSerial(node, 2379, client),
            await serialOf(await Deno.readTextFile(`${pki}/etcd/server.crt`)),
            "etcd serves its renewed certificate",
          );
          assert.ok(
            !(await Array.fromAsync(Deno.readDir(node.path("/etc/kubernetes/tmp")))).some((e) =>
              e.name.startsWith("kubeadm-backup-certs-")
            ),
            "no backup of old keys left",
          );
          const status = JSON.parse(
            (await kubeadm(["certs", "auto-renewal", "status", "-o", "json"])).stdout,
          );
          assert.equal(status.lastResult, "success");
        },
      );

      await t.step(
        "the kubelet's serving certificate request is approved, forged ones are left Pending",
        async () => {
          // The scheduled run approved cp1's own request (or approves it now if it came later).
          const csrs = async () =>
            ((await kubectlJson(node, ["get", "csr"])).items as {
              metadata: { name: string };
              spec: { signerName: string; username: string };
              status: { conditions?: { type: string; reason?: string }[]; certificate?: string };
            }[]).filter((c) => c.spec.signerName === "kubernetes.io/kubelet-serving");
          await waitFor(
            "cp1's serving certificate request",
            async () => (await csrs()).length > 0,
            120_000,
          );
          const forge = async (name: string, kubeconfig: string, san: string) => {
            const key = `${node.machine.dir}/${name}.key`;
            const csr = await node.exec([
              "sh",
              "-c",
              `openssl ecparam -name prime256v1 -genkey -noout -out ${key} && openssl req -new -key ${key} -subj "/O=system:nodes/CN=system:node:cp1" -addext "subjectAltName=${san}" | base64 -w0`,
            ]);
            assert.equal(csr.code, 0, csr.stderr);
            const manifest = JSON.stringify({
              apiVersion: "certificates.k8s.io/v1",
              kind: "CertificateSigningRequest",
              metadata: { name },
              spec: {
                request: csr.stdout.trim(),
                signerName: "kubernetes.io/kubelet-serving",
                usages: ["digital signature", "server auth"],
              },
            });
            const r = await node.exec([
              `${node.binDir}/kubectl`,
              "--kubeconfig",
              kubeconfig,
              "create",
              "-f",
              "-",
            ], {
              stdin: manifest,
            });
            assert.equal(r.code, 0, r.stderr);
          };
          await forge("forged-by-admin", "/etc/kubernetes/admin.conf", `IP:${node.ip}`);
          await forge("forged-san", "/etc/kubernetes/kubelet.conf", "DNS:cp1,IP:10.99.0.1");
          const run = await kubeadm(["certs", "approve-kubelet-serving"]);
          assert.match(
            run.stdout,
            /Left forged-by-admin of "kubernetes-admin" Pending: the requester "kubernetes-admin" is not a node/,
          );
          assert.match(
            run.stdout,
            /Left forged-san of "system:node:cp1" Pending: the IP address 10\.99\.0\.1 is not an address of Node cp1/,
          );
          const all = await csrs();
          const mine = all.filter((c) =>
            c.spec.username === "system:node:cp1" && c.metadata.name !== "forged-san"
          );
          assert.ok(mine.length > 0);
          for (const c of mine) {
            assert.ok(
              c.status.conditions?.some((x) =>
                x.type === "Approved" && x.reason === "KubeadmKubeletServingApprover"
              ),
              c.metadata.name,
            );
          }
          for (const name of ["forged-by-admin", "forged-san"]) {
            const c = all.find((x) => x.metadata.name === name)!;
            assert.deepEqual(c.status.conditions ?? [], [], `${name} left Pending`);
          }
          // The kubelet serves the certificate the cluster CA issued for it.
          const issued = await waitFor("the kubelet to serve its issued certificate", async () => {
            const r = await node.exec([
              "sh",
              "-c",
              `openssl s_client -connect ${node.ip}:10250 </dev/null 2>/dev/null | openssl x509 | openssl verify -CAfile /etc/kubernetes/pki/ca.crt`,
            ]);
            return r.stdout.includes("OK") && r.stdout;
          }, 120_000);
          assert.match(issued, /stdin: OK/);
        },
      );

      await t.step("a second run finds nothing to renew and restarts nothing", async () => {
        const manifests = await Deno.readTextFile(
          node.path("/etc/kubernetes/manifests/kube-apiserver.yaml"),
        );
        const result = await node.machine.services.fireTimer(TIMER);
        const journal = await node.machine.log(SERVICE);
        assert.equal(result.result, "success", journal);
        assert.match(journal, /Nothing to renew: no certificate expires within 720h0m0s/);
        assert.equal(
          await Deno.readTextFile(node.path("/etc/kubernetes/manifests/kube-apiserver.yaml")),
          manifests,
        );
      });

      await t.step(
        "the peer: upstream kubeadm's certs renew all, then the documented manual restart",
        async () => {
          // As kubeadm's documentation says: move each manifest out of the manifest directory,
          // wait 20 s (the kubelet's fileCheckFrequency) for its Pod to stop, move it back; an
          // administrator waits for the component to answer before the next one.
          const pki = node.path("/etc/kubernetes/pki");
          const before = await serialOf(await Deno.readTextFile(`${pki}/apiserver.crt`));
          await measureDowntime(
            node,
            "upstream kubeadm v1.37.2, certs renew all + manual restart on the same control plane",
            async () => {
              const renew = await node.exec([`${node.binDir}/kubeadm`, "certs", "renew", "all"]);
              assert.equal(renew.code, 0, renew.stderr);
              assert.match(renew.stdout, /You must restart the kube-apiserver/);
              const windows: RestartWindow[] = [];
              for (const c of RESTARTED) {
                const start = Date.now();
                const moved = await node.exec([
                  "sh",
                  "-c",
                  `mv /etc/kubernetes/manifests/${c}.yaml /etc/kubernetes/${c}.yaml && sleep 20 && mv /etc/kubernetes/${c}.yaml /etc/kubernetes/manifests/${c}.yaml`,
                ]);
                assert.equal(moved.code, 0, moved.stderr);
                await waitFor(`${c} to answer again`, async () => {
                  const r = await node.exec([
                    "curl",
                    "-ksf",
                    "--max-time",
                    "2",
                    healthURL(node, c),
                  ]);
                  return r.code === 0;
                }, 180_000);
                windows.push({ component: c, start, end: Date.now() });
              }
              return { windows };
            },
          );
          const renewed = await serialOf(await Deno.readTextFile(`${pki}/apiserver.crt`));
          assert.notEqual(renewed, before);
          assert.equal(await servedSerial(node, 6443), renewed, "upstream's restart took effect");
        },
      );

      await t.step("reset removes the schedule", async () => {
        await kubeadm(["reset", "--force"]);
        for (const f of [`${SERVICE}.service`, TIMER]) {
          assert.equal(
            await Deno.lstat(node.path(`/etc/systemd/system/${f}`)).then(() => true, () => false),
            false,
            f,
          );
        }
        const status = await kubeadm(["certs", "auto-renewal", "status"]);
        assert.equal(status.stdout.trim(), "Certificate auto-renewal: not installed");
      });
    } finally {
      await node.stop();
    }
  },
});
