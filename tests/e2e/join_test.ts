// End to end: our `kubeadm join`, run inside real nodes (no --rootfs: each node its own
// namespaces, containerd v2.4.2 and real kubelet), against a real control plane built by our own
// `kubeadm init` on another node.
//
// - A worker (its network linked to the control plane's by a veth pair) joins with --token +
//   --discovery-token-ca-cert-hash: the JWS it checks was made by the real
//   kube-controller-manager's bootstrap signer; its real kubelet runs the TLS bootstrap, the real
//   csrapprover + csrsigner issue the certificate, the kubelet stores it and registers its Node.
// - A second control-plane node joins with --control-plane --certificate-key after
//   `init phase upload-certs`: its kubelet runs its own etcd (a second voting member) and
//   kube-apiserver as static Pods, which serve.
// - reset on the joined nodes stops their kubelet, removes their Pods from containerd and the
//   files kubeadm and the kubelet wrote (and cp2's etcd member).
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../support/platform.ts";
import assert from "node:assert/strict";
import {
  assertKubeletIdentity,
  assertOk,
  assertStaticPodsMirrored,
  certificateKey,
  type ClusterNode,
  containerdContainers,
  containerdTasks,
  controlPlaneJoinArgs,
  createClusterNode,
  etcdMembers,
  initForJoin,
  kubectlJson,
  kubeSystemPods,
  PREFLIGHT_IGNORED_WORKER,
  readyz,
  TEST_TOKEN,
  trackWrites,
  uploadCerts,
  waitNodeReady,
  workerJoinArgs,
} from "../support/cluster.ts";
import { waitFor } from "../support/commands.ts";
import { CriClient } from "../../adapters/deno/cri/client.ts";
import { webRandom } from "../../adapters/web/random.ts";
import { encodeCertificatePEM } from "../../core/pki/cert.ts";
import { newCertAndKey, newCertificateAuthority } from "../support/test_pki.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../core/pki/keys.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

// deno-lint-ignore no-explicit-any
const json = (node: ClusterNode, args: string[], kubeconfig?: string): Promise<any> =>
  kubectlJson(node, args, kubeconfig);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Runs `f` and asserts that it wrote nothing on the node. */
async function writesNothing<T>(node: ClusterNode, f: () => Promise<T>): Promise<T> {
  const { result, written } = await trackWrites(node, f);
  assert.deepEqual(written, [], `${node.name}: written`);
  return result;
}

/**
 * A directory for a dry run's files in the node's TMPDIR (the one place a dry run of the
 * launcher may write).
 */
function dryRunDir(node: ClusterNode): Promise<string> {
  return Deno.makeTempDir({ dir: `${node.machine.dir}/tmp`, prefix: "kts-join-dryrun-" });
}

/** The Pod sandboxes in the node's containerd. */
function sandboxes(node: ClusterNode) {
  return CriClient.with(`unix://${node.machine.criSocketOnHost}`, (c) => c.listPodSandbox());
}

/**
 * Asserts what a reset node must look like: kubelet stopped, no Pod sandbox left in its
 * containerd, nothing left of what kubeadm and the kubelet wrote under `/etc/kubernetes`,
 * `/var/lib/kubelet` and `/var/lib/etcd`.
 */
async function assertResetClean(node: ClusterNode): Promise<void> {
  assert.equal(node.machine.services.isActive("kubelet"), false);
  assert.deepEqual(await sandboxes(node), []);
  assert.deepEqual(await containerdContainers(node), []);
  assert.deepEqual(await containerdTasks(node), new Map());
  const left = [...(await node.machine.files()).keys()].filter((p) =>
    /^\/(etc\/kubernetes|var\/lib\/(kubelet|etcd))\//.test(p)
  );
  assert.deepEqual(left, []);
}

/** Serves `body` at any path over HTTPS with a throw-away CA (written to `caFile`). */
async function serveOverHttps(host: string, body: string) {
  const caKey = await generateKeyPair("ECDSA-P256", webKeys);
  const now = Date.now();
  const ca = await newCertificateAuthority(
    {
      commonName: "discovery-test-ca",
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + 86400_000),
    },
    caKey,
    webRandom,
    webCryptoPort,
  );
  const leaf = await newCertAndKey(
    ca.cert,
    caKey,
    {
      commonName: "discovery",
      ips: [host],
      usages: ["serverAuth"],
    },
    "ECDSA-P256",
    webRandom,
    webCryptoPort,
  );
  const caFile = await Deno.makeTempFile({ prefix: "kts-discovery-ca-", suffix: ".crt" });
  await Deno.writeTextFile(caFile, encodeCertificatePEM(ca.cert));
  const ac = new AbortController();
  const port = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: host,
    port: 0,
    cert: encodeCertificatePEM(leaf.cert),
    key: await encodePrivateKeyPEM(leaf.key),
    signal: ac.signal,
    onListen: (addr) => port.resolve(addr.port),
  }, () => new Response(body));
  return {
    endpoint: `${host}:${await port.promise}`,
    caFile,
    async close() {
      ac.abort();
      await server.finished;
      await Deno.remove(caFile).catch(() => {});
    },
  };
}

/** The node paths a worker's join wrote (what a worker's reset must remove). */
const WORKER_JOIN_FILES = [
  "/etc/kubernetes/kubelet.conf",
  "/etc/kubernetes/pki/ca.crt",
  "/var/lib/kubelet/config.yaml",
  "/var/lib/kubelet/instance-config.yaml",
  "/var/lib/kubelet/kubeadm-flags.env",
];

Deno.test({
  name: "join: a worker and a second control-plane node join a real cluster; reset cleans them",
  ...e2e,
  async fn(t) {
    const nodes: ClusterNode[] = [];
    try {
      const cp1 = await createClusterNode("cp1");
      nodes.push(cp1);
      const { endpoint, caPem, pin } = await initForJoin(cp1);

      const worker = await createClusterNode("worker1", { linkTo: [cp1], role: "worker" });
      nodes.push(worker);
      const joinArgs = workerJoinArgs(endpoint, pin, "worker1");

      await t.step(
        "discovery-check over https (host CA bundle) against the real API server",
        async () => {
          const url = `https://${endpoint}/api/v1/namespaces/kube-public/configmaps/cluster-info`;
          const env = { SSL_CERT_FILE: cp1.path("/etc/kubernetes/pki/ca.crt") };
          const ok = await worker.kubeadm([
            "discovery-check",
            "--cluster-info",
            url,
            "--token",
            TEST_TOKEN,
            "--discovery-token-ca-cert-hash",
            pin,
            "-o",
            "json",
          ], { env });
          assert.equal(ok.code, 0, `${ok.stdout}\n${ok.stderr}`);
          const verdict = JSON.parse(ok.stdout);
          assert.equal(verdict.verdict, "verified");
          assert.equal(verdict.server, `https://${endpoint}`);
          assert.equal(verdict.ca.pin, pin);
          const bad = await worker.kubeadm([
            "discovery-check",
            "--cluster-info",
            url,
            "--token",
            "abcdef.ffffffffffffffff",
            "--discovery-token-ca-cert-hash",
            pin,
          ], { env });
          assert.notEqual(bad.code, 0);
          assert.match(bad.stdout, /^REJECTED: failed to verify JWS signature/);
          // Without the cluster CA in the host's trust store the URL is not trusted.
          const untrusted = await worker.kubeadm([
            "discovery-check",
            "--cluster-info",
            url,
            "--token",
            TEST_TOKEN,
            "--discovery-token-ca-cert-hash",
            pin,
          ], { env: { SSL_CERT_FILE: "/dev/null" } });
          assert.notEqual(untrusted.code, 0);
          assert.match(untrusted.stderr, /unable to fetch .*certificate/);
        },
      );

      await t.step("--dry-run discovers for real and writes nothing on the node", async () => {
        const dir = await dryRunDir(worker);
        try {
          const r = await writesNothing(
            worker,
            () =>
              worker.kubeadm([...joinArgs, "--dry-run"], {
                env: { KUBEADM_JOIN_DRYRUN_DIR: dir },
              }),
          );
          assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
          assert.match(r.stdout, /\[kubelet-start\] Would start the kubelet/);
          assert.match(r.stdout, /Would write file "\/var\/lib\/kubelet\/config.yaml"/);
          assert.equal(worker.machine.services.isActive("kubelet"), false);
          assert.ok(await exists(`${dir}/etc/kubernetes/bootstrap-kubelet.conf`));
          assert.ok(await exists(`${dir}/var/lib/kubelet/kubeadm-flags.env`));
        } finally {
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        }
      });

      const join = await worker.kubeadm(joinArgs);
      await assertOk(worker, "join", join);
      if (Deno.env.get("KTS_E2E_VERBOSE")) console.log(join.stdout, join.stderr);

      await t.step("worker: output and files as upstream", async () => {
        const out = join.stdout;
        for (
          const marker of [
            "[preflight] Running pre-flight checks",
            '[preflight] Reading configuration from the "kubeadm-config" ConfigMap',
            '[kubelet-start] Writing kubelet configuration to file "/var/lib/kubelet/config.yaml"',
            '[kubelet-start] Writing kubelet environment file with flags to file "/var/lib/kubelet/kubeadm-flags.env"',
            "[kubelet-start] Starting the kubelet",
            "[kubelet-check] The kubelet is healthy after",
            "[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap",
            "This node has joined the cluster:",
          ]
        ) assert.ok(out.includes(marker), `"${marker}" missing in:\n${out}`);
        assert.doesNotMatch(out + join.stderr, /0123456789abcdef/, "the token secret leaked");
        // Only the check ignored for this machine (cgroup v1) and the node name, which is not
        // the machine's hostname nor resolvable (as upstream), warn.
        assert.deepEqual(join.stderr.match(/\[WARNING [A-Za-z]+\]/g), [
          "[WARNING SystemVerification]",
          "[WARNING Hostname]",
          "[WARNING Hostname]",
        ]);
        assert.match(join.stderr, /\[WARNING Hostname\]: hostname "worker1" could not be reached/);
        assert.equal(await exists(worker.path("/etc/kubernetes/bootstrap-kubelet.conf")), false);
        assert.equal(await Deno.readTextFile(worker.path("/etc/kubernetes/pki/ca.crt")), caPem);
        const flags = await Deno.readTextFile(worker.path("/var/lib/kubelet/kubeadm-flags.env"));
        assert.equal(flags, 'KUBELET_KUBEADM_ARGS="--hostname-override=worker1"\n');
        // The cluster's KubeletConfiguration (init's, through the kubelet-config ConfigMap).
        const config = await Deno.readTextFile(worker.path("/var/lib/kubelet/config.yaml"));
        assert.match(config, /^failCgroupV1: false$/m);
        assert.match(config, /^cgroupDriver: cgroupfs$/m);
        const kc = await Deno.readTextFile(worker.path("/etc/kubernetes/kubelet.conf"));
        assert.match(kc, /name: default-auth/);
        // The kubelet wrote its certificate store (mode 0600; the link names a node path).
        const pemInfo = await Deno.stat(
          worker.path(
            await Deno.readLink(worker.path("/var/lib/kubelet/pki/kubelet-client-current.pem")),
          ),
        );
        assert.equal((pemInfo.mode ?? 0) & 0o777, 0o600);
      });

      await t.step(
        "the kubelet's TLS bootstrap: the real csrapprover and csrsigner issued system:node:worker1",
        async () => {
          await assertKubeletIdentity(cp1, worker, "system:bootstrap:abcdef", true);
          const csrs = await json(cp1, ["get", "csr"]);
          const csr = csrs.items.find((c: { spec: { username: string } }) =>
            c.spec.username === "system:bootstrap:abcdef"
          );
          // The kubelet bootstraps through its certificate manager (kubeadm's configuration
          // rotates certificates), which names its CSRs csr-<random>.
          assert.match(csr.metadata.name, /^csr-[a-z0-9]{5}$/);
          const approved = csr.status.conditions.find((c: { type: string }) =>
            c.type === "Approved"
          );
          assert.equal(approved.reason, "AutoApproved");
        },
      );

      await t.step("the worker's Node is registered and Ready, as a worker", async () => {
        const node = await waitNodeReady(cp1, "worker1");
        assert.equal(node.metadata.labels?.["kubernetes.io/hostname"], "worker1");
        assert.equal(node.metadata.labels?.["node-role.kubernetes.io/control-plane"], undefined);
        assert.deepEqual(node.spec.taints ?? [], []);
        assert.equal(node.status?.nodeInfo?.kubeletVersion, "v1.37.2");
        assert.deepEqual(node.status?.addresses?.find((a) => a.type === "InternalIP"), {
          type: "InternalIP",
          address: worker.ip,
        });
        const names = await cp1.kubectl(["get", "nodes", "-o", "name"]);
        assert.equal(names.stdout, "node/cp1\nnode/worker1\n");
        // kube-proxy's DaemonSet put a Pod on it, which its kubelet runs from the local image;
        // its rules take the worker to the API server on cp1 through the `kubernetes` Service
        // (the address Pods are given), whose certificate names that address.
        await waitFor(
          "kube-proxy's Pod Running on worker1",
          async () =>
            (await kubeSystemPods(cp1, "k8s-app=kube-proxy")).some((p) =>
              p.spec?.nodeName === "worker1" && p.status?.phase === "Running" &&
              p.status.containerStatuses?.[0]?.ready
            ),
          120_000,
        );
        const readyz = await waitFor("the API server through 10.96.0.1 from worker1", async () => {
          const r = await worker.kubectlNode(
            ["--server=https://10.96.0.1:443", "get", "--raw", "/readyz"],
            "/etc/kubernetes/kubelet.conf",
          );
          return r.code === 0 && r;
        }, 60_000);
        assert.equal(readyz.stdout, "ok");
      });

      await t.step("a second join with the same name is refused (Ready Node)", async () => {
        const again = await createClusterNode("worker1b", { linkTo: [cp1], role: "worker" });
        nodes.push(again);
        const { result: r, written } = await trackWrites(again, () => again.kubeadm(joinArgs));
        assert.notEqual(r.code, 0);
        // Like upstream, kubelet-start writes the CA before it looks for the Node; the token's
        // bootstrap-kubelet.conf does not stay.
        assert.deepEqual(written, ["/etc/kubernetes/pki/ca.crt"]);
        assert.match(
          r.stderr,
          /a Node with name "worker1" and status "Ready" already exists in the cluster\. You must delete the existing Node or change the name of this new joining Node/,
        );
        assert.equal(again.machine.services.isActive("kubelet"), false);
        assert.equal(await exists(again.path("/etc/kubernetes/bootstrap-kubelet.conf")), false);
        await again.stop();
      });

      await t.step(
        "file and HTTPS discovery (--discovery-file + --tls-bootstrap-token)",
        async () => {
          const worker2 = await createClusterNode("worker2", { linkTo: [cp1], role: "worker" });
          nodes.push(worker2);
          const cm = await json(cp1, ["-n", "kube-public", "get", "cm", "cluster-info"]);
          const discoveryConf = cm.data.kubeconfig as string;
          const fileJoin = (file: string) => [
            "join",
            "--discovery-file",
            file,
            "--tls-bootstrap-token",
            TEST_TOKEN,
            "--node-name",
            "worker2",
            `--ignore-preflight-errors=${PREFLIGHT_IGNORED_WORKER}`,
          ];
          // A local file: dry run.
          const file = await Deno.makeTempFile({ prefix: "kts-discovery-", suffix: ".conf" });
          const dir = await dryRunDir(worker2);
          try {
            await Deno.writeTextFile(file, discoveryConf);
            const r = await writesNothing(
              worker2,
              () =>
                worker2.kubeadm([...fileJoin(file), "--dry-run"], {
                  env: { KUBEADM_JOIN_DRYRUN_DIR: dir },
                }),
            );
            assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
            assert.match(
              await Deno.readTextFile(`${dir}/etc/kubernetes/bootstrap-kubelet.conf`),
              /token: abcdef\.0123456789abcdef/,
            );
          } finally {
            await Deno.remove(file).catch(() => {});
            await Deno.remove(dir, { recursive: true }).catch(() => {});
          }
          // An https:// URL, verified against the host's CA bundle (SSL_CERT_FILE): real join.
          const server = await serveOverHttps(worker2.hostAddress, discoveryConf);
          try {
            const url = `https://${server.endpoint}/discovery.conf`;
            const untrusted = await writesNothing(worker2, () => worker2.kubeadm(fileJoin(url)));
            assert.notEqual(untrusted.code, 0, "the URL's CA is not in the default trust store");
            assert.match(
              untrusted.stderr,
              /couldn't validate the identity of the API Server: .*certificate/,
            );
            const r = await worker2.kubeadm(fileJoin(url), {
              env: { SSL_CERT_FILE: server.caFile },
            });
            await assertOk(worker2, "join with an https discovery file", r);
            await assertKubeletIdentity(cp1, worker2, "system:bootstrap:abcdef", true);
          } finally {
            await server.close();
          }
          await worker2.stop();
        },
      );

      // ---- second control-plane node -----------------------------------------------------
      const key = certificateKey();
      await uploadCerts(cp1, key, `controlPlaneEndpoint: ${endpoint}\n`);

      const cp2 = await createClusterNode("cp2", { linkTo: [cp1] });
      nodes.push(cp2);
      const cpJoinArgs = controlPlaneJoinArgs(endpoint, pin, cp2, key);
      await t.step("control plane --dry-run: the plan only, nothing on the node", async () => {
        const dir = await dryRunDir(cp2);
        try {
          const r = await writesNothing(
            cp2,
            () =>
              cp2.kubeadm([...cpJoinArgs, "--dry-run"], { env: { KUBEADM_JOIN_DRYRUN_DIR: dir } }),
          );
          assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
          for (
            const marker of [
              "[dryrun] Would check that the etcd cluster is healthy",
              `[etcd] Would add etcd member: https://${cp2.ip}:2380`,
              "[etcd] Would wait for the new etcd member to join the cluster",
              "[control-plane-join] Would mark node cp2 as a control-plane",
            ]
          ) assert.ok(r.stdout.includes(marker), `"${marker}" missing in:\n${r.stdout}`);
          for (
            const f of [
              "etc/kubernetes/pki/ca.key",
              "etc/kubernetes/pki/apiserver.crt",
              "etc/kubernetes/admin.conf",
              "etc/kubernetes/manifests/etcd.yaml",
              "etc/kubernetes/manifests/kube-apiserver.yaml",
            ]
          ) assert.ok(await exists(`${dir}/${f}`), f);
          assert.equal(cp2.machine.services.isActive("kubelet"), false);
          assert.equal((await etcdMembers(cp1)).length, 1, "the dry run must not touch etcd");
        } finally {
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        }
      });

      const cpJoin = await cp2.kubeadm(cpJoinArgs);
      await assertOk(cp2, "control-plane join", cpJoin);
      if (Deno.env.get("KTS_E2E_VERBOSE")) console.log(cpJoin.stdout, cpJoin.stderr);

      await t.step("control plane: phases in upstream's order", () => {
        const order = [
          "[preflight] Running pre-flight checks before initializing the new control plane instance",
          '[download-certs] Downloading the certificates in Secret "kubeadm-certs"',
          "[certs] Using certificateDir folder",
          "[certs] Valid certificates and keys now exist in",
          "[kubeconfig] Generating kubeconfig files",
          "[control-plane] Using manifest folder",
          "[check-etcd] Checking that the etcd cluster is healthy",
          "[kubelet-start] Starting the kubelet",
          "[etcd] Announced new etcd member joining to the existing etcd cluster",
          '[etcd] Creating static Pod manifest for "etcd"',
          "[etcd] Waiting for the new etcd member to join the cluster",
          "[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap",
          "[mark-control-plane] Marking the node cp2 as control-plane",
          "[control-plane-check] kube-apiserver is healthy after",
          "This node has joined the cluster and a new control plane instance was created:",
          "* A new etcd member was added to the local/stacked etcd cluster.",
        ];
        let at = -1;
        for (const marker of order) {
          const i = cpJoin.stdout.indexOf(marker);
          assert.ok(i > at, `"${marker}" missing or out of order in:\n${cpJoin.stdout}`);
          at = i;
        }
        assert.doesNotMatch(cpJoin.stdout + cpJoin.stderr, new RegExp(key), "key leaked");
      });

      await t.step("shared CA downloaded, own certificates generated", async () => {
        const pki = (n: ClusterNode, f: string) =>
          Deno.readTextFile(n.path(`/etc/kubernetes/pki/${f}`));
        for (const f of ["ca.crt", "ca.key", "sa.key", "front-proxy-ca.crt", "etcd/ca.crt"]) {
          assert.equal(await pki(cp2, f), await pki(cp1, f), f);
        }
        assert.notEqual(await pki(cp2, "apiserver.crt"), await pki(cp1, "apiserver.crt"));
        assert.equal(await exists(cp2.path("/etc/kubernetes/super-admin.conf")), false);
        const etcdYaml = await Deno.readTextFile(cp2.path("/etc/kubernetes/manifests/etcd.yaml"));
        assert.match(etcdYaml, /--initial-cluster-state=existing/);
        assert.match(etcdYaml, new RegExp(`--initial-cluster=.*cp1=https://${cp1.ip}:2380`));
        assert.match(etcdYaml, new RegExp(`cp2=https://${cp2.ip}:2380`));
      });

      await t.step("etcdctl member list shows two started voting members", async () => {
        const members = await etcdMembers(cp1);
        assert.deepEqual(
          members.map((m) => [m.name, m.isLearner ?? false, m.peerURLs[0]]).sort(),
          [
            ["cp1", false, `https://${cp1.ip}:2380`],
            ["cp2", false, `https://${cp2.ip}:2380`],
          ],
        );
      });

      await t.step(
        "cp2's kubelet runs its static Pods; its own kube-apiserver serves; Node labelled, tainted, its kubelet's own certificate",
        async () => {
          await assertStaticPodsMirrored(cp1, cp2);
          assert.equal(await readyz(cp2), "ok");
          const node = await waitNodeReady(cp1, "cp2");
          assert.equal(node.metadata.labels?.["node-role.kubernetes.io/control-plane"], "");
          assert.equal(
            node.metadata.labels?.["node.kubernetes.io/exclude-from-external-load-balancers"],
            "",
          );
          assert.deepEqual(
            node.spec.taints?.filter((x) => x.key === "node-role.kubernetes.io/control-plane"),
            [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
          );
          await assertKubeletIdentity(cp1, cp2, "system:bootstrap:abcdef", true);
        },
      );

      await t.step("a phase re-run alone (admin.conf instead of discovery) converges", async () => {
        const r = await cp2.kubeadm([
          "join",
          "phase",
          "control-plane-join",
          "mark-control-plane",
          "--control-plane",
          "--node-name",
          "cp2",
        ]);
        assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
        assert.match(r.stdout, /\[mark-control-plane\] Marking the node cp2 as control-plane/);
        const w = await worker.kubeadm(["join", "phase", "wait-control-plane"]);
        assert.notEqual(w.code, 0, "a worker has no admin.conf");
        assert.match(
          w.stderr,
          /File \/etc\/kubernetes\/admin.conf does not exists\. Please use 'kubeadm join phase control-plane-prepare' subcommands to generate it\./,
        );
      });

      await t.step(
        "reset --force on cp2 removes its etcd member, Pods and files; cp1 keeps serving",
        async () => {
          assert.ok((await sandboxes(cp2)).length >= 4);
          const r = await cp2.kubeadm(["reset", "--force"]);
          assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
          const members = await etcdMembers(cp1);
          assert.deepEqual(
            members.map((m) => [m.name, m.isLearner ?? false, m.peerURLs[0]]),
            [["cp1", false, `https://${cp1.ip}:2380`]],
          );
          assert.equal(await readyz(cp1), "ok");
          await assertResetClean(cp2);
        },
      );

      await t.step("reset --force on the worker removes its Pods and files", async () => {
        for (const f of WORKER_JOIN_FILES) assert.ok(await exists(worker.path(f)), f);
        assert.ok((await sandboxes(worker)).length >= 1, "kube-proxy's sandbox");
        const r = await worker.kubeadm(["reset", "--force"]);
        assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
        await assertResetClean(worker);
        assert.equal(await exists(worker.path("/etc/cni/net.d/10-containerd-net.conflist")), true);
      });
    } finally {
      for (const n of nodes.reverse()) await n.stop();
    }
  },
});
