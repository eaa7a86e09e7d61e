// End to end on real nodes (a control plane built by our `init`, a worker joined by our
// `join`): `kubeadm certs rotate-ca` rotates the cluster CA. The control plane's run stops where
// the worker has to catch up (naming it), the worker's `rotate-ca phase node` takes the new
// trust and then a client certificate from the new CA, and the control plane's run resumes;
// throughout, a client reading the Nodes (with admin.conf as it is on disk at each request)
// sees every Node Ready, and a Pod's service-account files (a kube-proxy Pod's projected volume
// on the worker) keep reaching the API server. At the end the old CA is trusted nowhere
// (ca.crt, every kubeconfig, cluster-info, kube-root-ca.crt, the kubelets), the API server
// serves a certificate of the new CA, the workloads that ran before (kube-proxy, CoreDNS, a
// Deployment of the user's) run on in the same containers, a new worker's join with the old
// CA's pin is refused and with the new CA's pin succeeds, and no output of the rotation holds
// a private key or the bootstrap token's secret. Then, on the same cluster, `--ca
// front-proxy-ca` rotates the front-proxy CA in one run on the control plane (the worker's
// `phase node` has nothing to do): front-proxy-client verifies against the new CA alone,
// extension-apiserver-authentication publishes the new CA alone (as it publishes the new
// cluster CA alone), and the API server authenticates a proxied request (request headers) made
// with the new front-proxy-client and refuses one made with the old. Last `--ca etcd-ca`
// rotates the etcd CA (etcd restarted last): its four leaves verify against the new CA alone
// and the API server writes through etcd.
import assert from "node:assert/strict";
import {
  assertOk,
  type ClusterNode,
  containerdTasks,
  createClusterNode,
  initForJoin,
  kubectlJson,
  TEST_TOKEN,
  waitNodeReady,
  workerJoinArgs,
} from "../support/cluster.ts";
import { waitFor } from "../support/commands.ts";
import { kubeconfigCredentials } from "../support/api_poller.ts";
import { opensslSpkiSha256 } from "../support/openssl.ts";
import { parseCertificatesPEM } from "../../core/pki/cert.ts";
import { CONTROL_PLANE_KUBECONFIGS } from "../support/ca_rotation.ts";
import {
  assertPodAccess,
  fileTrust,
  fingerprints,
  nodeFile,
  proxiedRequest,
  publishedAuthentication,
  trustOf,
} from "../support/ca_trust.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

interface Watch {
  requests: number;
  failures: { at: string; error: string }[];
  notReady: { at: string; nodes: string[] }[];
}

/**
 * Reads the Nodes every second with admin.conf as it is on disk at that moment (its trust and
 * credentials change during the rotation), recording failed requests and Nodes not Ready.
 */
function watchNodes(cp: ClusterNode) {
  const watch: Watch = { requests: 0, failures: [], notReady: [] };
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const t0 = Date.now();
      const at = new Date().toISOString();
      watch.requests++;
      try {
        const creds = kubeconfigCredentials(
          await Deno.readTextFile(cp.path("/etc/kubernetes/admin.conf")),
        );
        const client = Deno.createHttpClient({
          caCerts: creds.caCerts,
          cert: creds.cert,
          key: creds.key,
          poolMaxIdlePerHost: 0,
        });
        try {
          const res = await fetch(
            `${creds.server}/api/v1/nodes`,
            {
              client,
              signal: AbortSignal.timeout(5_000),
            } as RequestInit & { client: Deno.HttpClient },
          );
          const text = await res.text();
          if (!res.ok) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
          const items = JSON.parse(text).items as {
            metadata: { name: string };
            status: { conditions?: { type: string; status: string }[] };
          }[];
          const bad = items.filter((n) =>
            !n.status.conditions?.some((c) => c.type === "Ready" && c.status === "True")
          ).map((n) => n.metadata.name);
          if (bad.length > 0) watch.notReady.push({ at, nodes: bad });
        } finally {
          client.close();
        }
      } catch (e) {
        watch.failures.push({ at, error: e instanceof Error ? e.message : String(e) });
      }
      const wait = 1_000 - (Date.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    watch,
    stop: async () => {
      stopping = true;
      await loop;
      return watch;
    },
  };
}

/** The base64 lines of every private key in a PEM text (what a leak of the key would show). */
function privateKeyLines(pem: string): string[] {
  const blocks = pem.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]+-----END/g) ?? [];
  return blocks.flatMap((b) => b.split("\n").slice(1, -1).filter((l) => l.length >= 16));
}

/** The parts of a Pod the workload checks read. */
interface PodJson {
  metadata: { name: string; uid: string };
  spec: { nodeName?: string };
  status: {
    conditions?: { type: string; status: string }[];
    containerStatuses?: { containerID?: string; restartCount: number }[];
  };
}

/** The user's Deployment the rotation must leave running (its Pods' label). */
const SLEEPER = "app=sleeper";

/**
 * The user's workload (the `sleeper` Deployment's Pods): by name, its node, UID, containers
 * (containerd IDs) with their restarts, and readiness. Equal before and after the rotation
 * means no Pod was recreated and no container restarted.
 */
async function sleeperPods(cp: ClusterNode): Promise<Map<string, string>> {
  const pods = await kubectlJson(cp, ["get", "pods", "-l", SLEEPER]) as { items: PodJson[] };
  return new Map(pods.items.map((p) => [
    p.metadata.name,
    `${p.spec.nodeName} ${p.metadata.uid} ${
      (p.status.containerStatuses ?? []).map((c) => `${c.containerID}#${c.restartCount}`).join()
    } ready=${p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True")}`,
  ]));
}

Deno.test({
  name:
    "certs rotate-ca on a control plane and a worker: Nodes Ready, Pods keep access, a new worker joins with the new pin",
  ...e2e,
  async fn(t) {
    const nodes: ClusterNode[] = [];
    try {
      const cp1 = await createClusterNode("cp1");
      nodes.push(cp1);
      const { endpoint, caPem: oldPem, pin: oldPin } = await initForJoin(cp1);
      const worker = await createClusterNode("worker1", { linkTo: [cp1], role: "worker" });
      nodes.push(worker);
      await assertOk(
        worker,
        "join",
        await worker.kubeadm(workerJoinArgs(endpoint, oldPin, "worker1")),
      );
      await waitNodeReady(cp1, "cp1", 180_000);
      await waitNodeReady(cp1, "worker1", 180_000);
      await assertPodAccess(cp1, worker, "before the rotation");
      const old = fingerprints(oldPem);
      const pki = (f: string) => Deno.readTextFile(cp1.path(`/etc/kubernetes/pki/${f}`));
      const oldFrontProxy = {
        ca: await pki("front-proxy-ca.crt"),
        crt: await pki("front-proxy-client.crt"),
        key: await pki("front-proxy-client.key"),
      };
      assert.equal(await proxiedRequest(cp1, oldFrontProxy), 200, "a proxied request before");
      // The private keys of before the rotation: the CA's and the worker's kubelet client's.
      const oldKeys = [
        await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca.key")),
        await nodeFile(worker, "/var/lib/kubelet/pki/kubelet-client-current.pem"),
      ];

      // A workload of the user's (on the worker: the control plane is tainted).
      await assertOk(
        cp1,
        "create deployment",
        await cp1.kubectl([
          "create",
          "deployment",
          "sleeper",
          "--image=registry.k8s.io/pause:3.10.2",
          "--replicas=2",
        ]),
      );
      await assertOk(
        cp1,
        "rollout of sleeper",
        await cp1.kubectl(["rollout", "status", "deployment/sleeper", "--timeout=180s"]),
      );
      const sleepersBefore = await sleeperPods(cp1);
      assert.equal(sleepersBefore.size, 2);
      assert.ok(
        [...sleepersBefore.values()].every((w) =>
          w.startsWith("worker1 ") && w.endsWith("ready=true")
        ),
        JSON.stringify([...sleepersBefore]),
      );

      // Every output of the rotation, checked for secrets at the end.
      const outputs: string[] = [];
      const rotate = async (node: ClusterNode, args: string[] = []) => {
        const r = await node.kubeadm(["certs", "rotate-ca", ...args]);
        outputs.push(r.stdout, r.stderr);
        return r;
      };

      const dry = await rotate(cp1, ["--dry-run"]);
      assert.equal(dry.code, 0, `${dry.stdout}\n${dry.stderr}`);
      assert.match(dry.stdout, /\[dryrun\] Rotation stage: none/);
      assert.equal(await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca.crt")), oldPem);

      const bad = await rotate(cp1, ["--ca", "front-proxy"]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /--ca: unknown certificate authority "front-proxy"/);

      const { watch, stop } = watchNodes(cp1);
      const started = Date.now();
      let newPem = "";
      try {
        await t.step(
          "trust: the control plane's run stops where the worker must catch up",
          async () => {
            const r = await rotate(cp1);
            assert.notEqual(r.code, 0, r.stdout);
            assert.match(r.stderr, /Node worker1 does not trust the new CA yet/, r.stderr);
            assert.match(r.stdout, /kube-root-ca.crt carries both CAs/);
            newPem = await Deno.readTextFile(
              cp1.path("/etc/kubernetes/pki/ca-rotation/new-ca.crt"),
            );
            const bundle = [...old, ...fingerprints(newPem)];
            assert.deepEqual(
              fingerprints(await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca.crt"))),
              bundle,
            );
            for (
              const f of ["admin.conf", "controller-manager.conf", "scheduler.conf", "kubelet.conf"]
            ) {
              assert.deepEqual(await fileTrust(cp1, f), bundle, f);
            }
          },
        );
        await t.step("node (worker): the kubelet trusts both", async () => {
          await assertOk(
            worker,
            "phase node",
            await rotate(worker, ["phase", "node"]),
          );
          assert.deepEqual(await fileTrust(worker, "kubelet.conf"), [
            ...old,
            ...fingerprints(newPem),
          ]);
          await assertPodAccess(cp1, worker, "after trust");
        });
        await t.step(
          "reissue: the new CA signs; the run stops for the worker's client certificate",
          async () => {
            const r = await rotate(cp1);
            assert.notEqual(r.code, 0, r.stdout);
            assert.match(
              r.stderr,
              /Node worker1 does not have a kubelet client certificate from the new CA yet/,
              `${r.stdout}\n${r.stderr}`,
            );
            await assertPodAccess(cp1, worker, "after reissue");
          },
        );
        await t.step("node (worker): a client certificate from the new CA", async () => {
          await assertOk(
            worker,
            "phase node",
            await rotate(worker, ["phase", "node"]),
          );
          const current = await nodeFile(worker, "/var/lib/kubelet/pki/kubelet-client-current.pem");
          const issuer = parseCertificatesPEM(current)[0].issuer.der;
          assert.deepEqual(issuer, parseCertificatesPEM(newPem)[0].subject.der);
          assert.ok(
            (await Deno.lstat(worker.path("/var/lib/kubelet/pki/kubelet-client-current.pem")))
              .isSymlink,
          );
        });
        await t.step("finish on the control plane, node on the worker", async () => {
          await assertOk(cp1, "finish", await rotate(cp1));
          await assertOk(
            worker,
            "phase node",
            await rotate(worker, ["phase", "node"]),
          );
          await waitNodeReady(cp1, "worker1", 120_000);
        });
      } finally {
        const w = await stop();
        const took = ((Date.now() - started) / 1000).toFixed(0);
        console.log(
          `rotation: ${took} s; Node reads ${w.requests}, failed ${w.failures.length} (single control plane: the API server restarts); observations of a Node not Ready: ${w.notReady.length}`,
        );
        for (const f of w.failures.slice(0, 5)) {
          console.log(`  failed ${f.at}: ${f.error.slice(0, 160)}`);
        }
        for (const n of w.notReady.slice(0, 5)) {
          console.log(`  not Ready ${n.at}: ${n.nodes.join(", ")}`);
        }
      }
      assert.deepEqual(watch.notReady, [], "every Node stayed Ready");

      await t.step("the old CA is trusted nowhere", async () => {
        const only = fingerprints(newPem);
        assert.notDeepEqual(only, old);
        assert.deepEqual(
          fingerprints(await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca.crt"))),
          only,
        );
        assert.deepEqual(
          fingerprints(await Deno.readTextFile(worker.path("/etc/kubernetes/pki/ca.crt"))),
          only,
        );
        for (const f of CONTROL_PLANE_KUBECONFIGS) {
          assert.deepEqual(await fileTrust(cp1, f), only, `cp1 ${f}`);
        }
        assert.deepEqual(
          await fileTrust(worker, "kubelet.conf"),
          only,
          "worker1 kubelet.conf",
        );
        const info = await kubectlJson(cp1, ["-n", "kube-public", "get", "cm", "cluster-info"]) as {
          data: Record<string, string>;
        };
        assert.deepEqual(
          trustOf(info.data.kubeconfig),
          only,
        );
        await waitFor("kube-root-ca.crt to hold the new CA alone", async () => {
          const cm = await kubectlJson(cp1, ["-n", "default", "get", "cm", "kube-root-ca.crt"]) as {
            data: Record<string, string>;
          };
          return fingerprints(cm.data["ca.crt"]).join() === only.join();
        }, 120_000);
        await assert.rejects(Deno.lstat(cp1.path("/etc/kubernetes/pki/ca-rotation")));
        // What aggregated API servers verify client certificates with (the API server only
        // ever adds to it: finish cut the old CA out).
        assert.deepEqual(await publishedAuthentication(cp1, "client-ca-file"), only);
        // OpenSSL prints the verification result once per session it reads (TLS 1.3 session
        // tickets make that one or two): every one must be 0.
        const served = await cp1.exec([
          "sh",
          "-c",
          `openssl s_client -connect ${cp1.ip}:6443 -CAfile /etc/kubernetes/pki/ca.crt -verify_return_error </dev/null 2>&1 | grep "Verify return code:"`,
        ]);
        const codes = served.stdout.trim().split("\n");
        assert.ok(codes.length >= 1, served.stdout);
        for (const line of codes) {
          assert.match(line, /^\s*Verify return code: 0 \(ok\)$/, served.stdout);
        }
        await assertPodAccess(cp1, worker, "after finish");
      });

      await t.step(
        "front-proxy-ca: one run on the control plane; nothing on the worker",
        async () => {
          const r = await rotate(cp1, ["--ca", "front-proxy-ca"]);
          assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
          assert.match(r.stdout, /requestheader-client-ca-file carries both CAs/);
          const node = await rotate(worker, ["phase", "node", "--ca", "front-proxy-ca"]);
          assert.equal(node.code, 0, node.stderr);
          assert.match(node.stdout, /nothing to do for front-proxy-ca on any node/);
          const fpCA = await pki("front-proxy-ca.crt");
          const only = fingerprints(fpCA);
          assert.equal(only.length, 1);
          assert.notDeepEqual(only, fingerprints(oldFrontProxy.ca));
          const verify = await cp1.exec([
            "openssl",
            "verify",
            "-CAfile",
            "/etc/kubernetes/pki/front-proxy-ca.crt",
            "/etc/kubernetes/pki/front-proxy-client.crt",
          ]);
          assert.equal(verify.code, 0, verify.stderr);
          assert.match(verify.stdout, /front-proxy-client\.crt: OK/);
          assert.deepEqual(
            await publishedAuthentication(cp1, "requestheader-client-ca-file"),
            only,
          );
          await assert.rejects(Deno.lstat(cp1.path("/etc/kubernetes/pki/front-proxy-ca-rotation")));
          // The API server authenticates the new proxy client's requests, no longer the old's.
          const current = {
            crt: await pki("front-proxy-client.crt"),
            key: await pki("front-proxy-client.key"),
          };
          assert.equal(await proxiedRequest(cp1, current), 200);
          const refused = await proxiedRequest(cp1, oldFrontProxy);
          assert.ok([401, 403].includes(refused), `the old front-proxy-client: HTTP ${refused}`);
        },
      );

      await t.step(
        "etcd-ca: one run on the control plane; etcd and the API server on it",
        async () => {
          const oldEtcd = fingerprints(await pki("etcd/ca.crt"));
          const r = await rotate(cp1, ["--ca", "etcd-ca"]);
          assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
          const only = fingerprints(await pki("etcd/ca.crt"));
          assert.equal(only.length, 1);
          assert.notDeepEqual(only, oldEtcd);
          const leaves = [
            "etcd/server",
            "etcd/peer",
            "etcd/healthcheck-client",
            "apiserver-etcd-client",
          ];
          const verify = await cp1.exec([
            "openssl",
            "verify",
            "-CAfile",
            "/etc/kubernetes/pki/etcd/ca.crt",
            ...leaves.map((l) => `/etc/kubernetes/pki/${l}.crt`),
          ]);
          assert.equal(verify.code, 0, `${verify.stdout}\n${verify.stderr}`);
          assert.equal(verify.stdout.trim().split("\n").filter((l) => / OK$/.test(l)).length, 4);
          await assert.rejects(Deno.lstat(cp1.path("/etc/kubernetes/pki/etcd-ca-rotation")));
          // The API server reads and writes through etcd with the new CA's certificates.
          await assertOk(
            cp1,
            "a write through etcd",
            await cp1.kubectl(["create", "configmap", "after-etcd-ca", "--from-literal=k=v"]),
          );
          await waitNodeReady(cp1, "worker1", 120_000);
        },
      );

      await t.step("the user's workload runs on in the same Pods and containers", async () => {
        // A kubelet restart may report a Pod not ready until its next probe: wait for that,
        // never for a new Pod or a restarted container.
        let now = new Map<string, string>();
        await waitFor("the sleeper Pods of before the rotation, Ready", async () => {
          now = await sleeperPods(cp1);
          return JSON.stringify([...now]) === JSON.stringify([...sleepersBefore]);
        }, 120_000).catch((e) => assert.deepEqual(now, sleepersBefore, String(e)));
        const tasks = await containerdTasks(worker);
        for (const w of sleepersBefore.values()) {
          for (const id of w.split(" ")[2].split(",")) {
            const task = id.replace(/^containerd:\/\//, "").replace(/#\d+$/, "");
            assert.equal(tasks.get(task), "RUNNING", `container ${task} on worker1`);
          }
        }
        // The addons were restarted onto the new trust (trust); they run, available.
        for (const kind of ["daemonset/kube-proxy", "deployment/coredns"]) {
          await assertOk(
            cp1,
            `rollout of ${kind}`,
            await cp1.kubectl(["-n", "kube-system", "rollout", "status", kind, "--timeout=180s"]),
          );
        }
      });

      await t.step("the rotation's output holds no private key and no token secret", async () => {
        const keys = [
          ...oldKeys,
          await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca.key")),
          await nodeFile(worker, "/var/lib/kubelet/pki/kubelet-client-current.pem"),
        ];
        const lines = keys.flatMap(privateKeyLines);
        assert.ok(lines.length >= 4, "the keys' lines were found");
        const secret = TEST_TOKEN.split(".")[1];
        for (const text of outputs) {
          assert.doesNotMatch(text, /PRIVATE KEY/);
          assert.ok(!text.includes(secret), "the bootstrap token's secret is not printed");
          for (const l of lines) {
            assert.ok(!text.includes(l), "no line of a private key is printed");
          }
        }
      });

      await t.step("a new worker joins with the new CA's pin, not the old one's", async () => {
        const newPin = `sha256:${await opensslSpkiSha256(newPem)}`;
        const worker2 = await createClusterNode("worker2", { linkTo: [cp1], role: "worker" });
        nodes.push(worker2);
        const refused = await worker2.kubeadm(workerJoinArgs(endpoint, oldPin, "worker2"));
        assert.notEqual(refused.code, 0, refused.stdout);
        assert.match(
          refused.stderr,
          /cluster CA found in cluster-info ConfigMap is invalid: none of the public keys/,
          refused.stderr,
        );
        await assertOk(
          worker2,
          "join",
          await worker2.kubeadm(workerJoinArgs(endpoint, newPin, "worker2")),
        );
        await waitNodeReady(cp1, "worker2", 180_000);
      });
    } finally {
      for (const n of nodes.reverse()) await n.stop().catch((e) => console.error(e));
    }
  },
});
