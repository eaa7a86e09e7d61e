// End to end: `kubeadm join` against a real control plane built by our own `kubeadm init`.
//
// - A worker in its own network namespace (linked to the control plane's by a veth pair) joins
//   with --token + --discovery-token-ca-cert-hash: the JWS it checks was made by the real
//   kube-controller-manager's bootstrap signer; its kubelet stand-in runs the TLS bootstrap and
//   the real csrapprover + csrsigner issue the certificate; kubelet.conf authenticates as
//   system:node:<name>; the Node registers.
// - A second control-plane node (own namespace) joins with --control-plane --certificate-key
//   after `init phase upload-certs`: etcd has two voting members, and its own etcd and
//   kube-apiserver serve.
import assert from "node:assert/strict";
import {
  createTestNode,
  initControlPlane,
  run,
  type TestNode,
  uploadCerts,
  waitFor,
} from "../support/control_plane.ts";
import { opensslSpkiSha256 } from "../support/openssl.ts";
import { webRandom } from "../../core/host/ports.ts";
import {
  encodeCertificatePEM,
  newCertAndKey,
  newCertificateAuthority,
} from "../../core/pki/cert.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../core/pki/keys.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const TOKEN = "abcdef.0123456789abcdef";

async function json(node: TestNode, args: string[], kubeconfig?: string) {
  const r = await node.kubectl([...args, "-o", "json"], kubeconfig);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else out.push(p.slice(dir.length));
    }
  };
  await walk(dir);
  return out.sort();
}

/** Serves `body` at any path over HTTPS with a throw-away CA (written to `caFile`). */
async function serveOverHttps(host: string, body: string) {
  const caKey = await generateKeyPair("ECDSA-P256");
  const now = Date.now();
  const ca = await newCertificateAuthority(
    {
      commonName: "discovery-test-ca",
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + 86400_000),
    },
    caKey,
    webRandom,
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

function hexKey(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** `kubeadm join` of a worker named `name` with token discovery pinned to `pin`. */
function workerJoinArgs(endpoint: string, pin: string, name: string): string[] {
  return [
    "join",
    endpoint,
    "--token",
    TOKEN,
    "--discovery-token-ca-cert-hash",
    pin,
    "--node-name",
    name,
    "--ignore-preflight-errors=all",
  ];
}

/**
 * Inits `cp1` with `extra` ClusterConfiguration lines and waits for the bootstrap signer to sign
 * cluster-info; returns the join endpoint, the CA and its pin.
 */
async function initForJoin(
  cp1: TestNode,
  extra = "",
): Promise<{ endpoint: string; config: string; caPem: string; pin: string }> {
  const endpoint = `${cp1.ns.address}:6443`;
  const { config } = await initControlPlane(cp1, `${extra}controlPlaneEndpoint: ${endpoint}\n`);
  const caPem = await Deno.readTextFile(`${cp1.rootfs}/etc/kubernetes/pki/ca.crt`);
  const pin = `sha256:${await opensslSpkiSha256(caPem)}`;
  await waitFor("the bootstrap signer to sign cluster-info", async () => {
    const cm = await json(cp1, ["-n", "kube-public", "get", "cm", "cluster-info"]);
    return Boolean(cm.data?.["jws-kubeconfig-abcdef"]);
  }, 90_000);
  return { endpoint, config, caPem, pin };
}

Deno.test({
  name: "join: a worker and a second control-plane node join a real cluster",
  ...e2e,
  async fn(t) {
    const nodes: TestNode[] = [];
    try {
      const cp1 = await createTestNode("cp1");
      nodes.push(cp1);
      const { endpoint, config, caPem, pin } = await initForJoin(cp1);

      const worker = await createTestNode("worker1", { linkTo: [cp1] });
      nodes.push(worker);
      const joinArgs = workerJoinArgs(endpoint, pin, "worker1");

      await t.step(
        "discovery-check over https (host CA bundle) against the real API server",
        async () => {
          const url = `https://${endpoint}/api/v1/namespaces/kube-public/configmaps/cluster-info`;
          const env = { SSL_CERT_FILE: `${cp1.rootfs}/etc/kubernetes/pki/ca.crt` };
          const ok = await worker.kubeadm([
            "discovery-check",
            "--cluster-info",
            url,
            "--token",
            TOKEN,
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
            TOKEN,
            "--discovery-token-ca-cert-hash",
            pin,
          ], { env: { SSL_CERT_FILE: "/dev/null" } });
          assert.notEqual(untrusted.code, 0);
          assert.match(untrusted.stderr, /unable to fetch .*certificate/);
        },
      );

      await t.step("--dry-run discovers for real and writes nothing under the root", async () => {
        const dir = await Deno.makeTempDir({ prefix: "kts-join-dryrun-" });
        try {
          const r = await worker.kubeadm([...joinArgs, "--dry-run"], {
            env: { KUBEADM_JOIN_DRYRUN_DIR: dir },
          });
          assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
          assert.match(r.stdout, /\[kubelet-start\] Would start the kubelet/);
          assert.match(r.stdout, /Would write file "\/var\/lib\/kubelet\/config.yaml"/);
          assert.deepEqual(await listFiles(worker.rootfs), []);
          assert.ok(await exists(`${dir}/etc/kubernetes/bootstrap-kubelet.conf`));
          assert.ok(await exists(`${dir}/var/lib/kubelet/kubeadm-flags.env`));
        } finally {
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        }
      });

      await worker.startStandin();
      const join = await worker.kubeadm(joinArgs);
      assert.equal(join.code, 0, `join failed:\n${join.stdout}\n${join.stderr}`);
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
        const etc = `${worker.rootfs}/etc/kubernetes`;
        assert.equal(await exists(`${etc}/bootstrap-kubelet.conf`), false);
        assert.equal(await Deno.readTextFile(`${etc}/pki/ca.crt`), caPem);
        const flags = await Deno.readTextFile(`${worker.rootfs}/var/lib/kubelet/kubeadm-flags.env`);
        assert.match(flags, /^KUBELET_KUBEADM_ARGS="/);
        assert.match(flags, /--hostname-override=worker1/);
        const kc = await Deno.readTextFile(`${etc}/kubelet.conf`);
        assert.match(
          kc,
          /client-certificate: \/var\/lib\/kubelet\/pki\/kubelet-client-current.pem/,
        );
        assert.match(kc, /client-key: \/var\/lib\/kubelet\/pki\/kubelet-client-current.pem/);
        assert.match(kc, /name: default-auth/);
        const pemInfo = await Deno.stat(
          `${worker.rootfs}/var/lib/kubelet/pki/kubelet-client-current.pem`,
        );
        assert.equal((pemInfo.mode ?? 0) & 0o777, 0o600);
      });

      await t.step("the real csrapprover and csrsigner issued system:node:worker1", async () => {
        const csrs = await json(cp1, ["get", "csr"]);
        const csr = csrs.items.find((c: { spec: { username: string } }) =>
          c.spec.username === "system:bootstrap:abcdef"
        );
        assert.ok(csr, JSON.stringify(csrs.items.map((c: { metadata: unknown }) => c.metadata)));
        assert.match(csr.metadata.name, /^node-csr-[A-Za-z0-9_-]{43}$/);
        assert.equal(csr.spec.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
        const approved = csr.status.conditions.find((c: { type: string }) => c.type === "Approved");
        assert.equal(approved.reason, "AutoApproved");
        assert.ok(csr.status.certificate);
        const who = await worker.kubectlNode(
          ["auth", "whoami", "-o", "json"],
          "/etc/kubernetes/kubelet.conf",
        );
        assert.equal(who.code, 0, who.stderr);
        const info = JSON.parse(who.stdout).status.userInfo;
        assert.equal(info.username, "system:node:worker1");
        assert.ok(info.groups.includes("system:nodes"));
      });

      await t.step("the worker's Node is registered", async () => {
        const node = await waitFor("Node worker1", async () => {
          const r = await cp1.kubectl(["get", "node", "worker1", "-o", "json"]);
          return r.code === 0 ? JSON.parse(r.stdout) : undefined;
        }, 60_000);
        assert.equal(node.metadata.labels["kubernetes.io/hostname"], "worker1");
      });

      await t.step("a second join with the same name is refused (Ready Node)", async () => {
        const again = await createTestNode("worker1b", { linkTo: [cp1] });
        nodes.push(again);
        const r = await again.kubeadm(joinArgs);
        assert.notEqual(r.code, 0);
        assert.match(
          r.stderr,
          /a Node with name "worker1" and status "Ready" already exists in the cluster\. You must delete the existing Node or change the name of this new joining Node/,
        );
        assert.equal(await exists(`${again.rootfs}/etc/kubernetes/bootstrap-kubelet.conf`), false);
      });

      await t.step(
        "file and HTTPS discovery (--discovery-file + --tls-bootstrap-token)",
        async () => {
          const worker2 = await createTestNode("worker2", { linkTo: [cp1] });
          nodes.push(worker2);
          const cm = await json(cp1, ["-n", "kube-public", "get", "cm", "cluster-info"]);
          const discoveryConf = cm.data.kubeconfig as string;
          // A local file: dry run.
          const file = await Deno.makeTempFile({ prefix: "kts-discovery-", suffix: ".conf" });
          const dir = await Deno.makeTempDir({ prefix: "kts-join-dryrun-" });
          try {
            await Deno.writeTextFile(file, discoveryConf);
            const r = await worker2.kubeadm([
              "join",
              "--discovery-file",
              file,
              "--tls-bootstrap-token",
              TOKEN,
              "--node-name",
              "worker2",
              "--ignore-preflight-errors=all",
              "--dry-run",
            ], { env: { KUBEADM_JOIN_DRYRUN_DIR: dir } });
            assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
            assert.deepEqual(await listFiles(worker2.rootfs), []);
            assert.match(
              await Deno.readTextFile(`${dir}/etc/kubernetes/bootstrap-kubelet.conf`),
              /token: abcdef\.0123456789abcdef/,
            );
          } finally {
            await Deno.remove(file).catch(() => {});
            await Deno.remove(dir, { recursive: true }).catch(() => {});
          }
          // An https:// URL, verified against the host's CA bundle (SSL_CERT_FILE): real join.
          const server = await serveOverHttps(worker2.ns.hostAddress, discoveryConf);
          try {
            await worker2.startStandin();
            const url = `https://${server.endpoint}/discovery.conf`;
            const untrusted = await worker2.kubeadm([
              "join",
              "--discovery-file",
              url,
              "--tls-bootstrap-token",
              TOKEN,
              "--node-name",
              "worker2",
              "--ignore-preflight-errors=all",
            ]);
            assert.notEqual(untrusted.code, 0, "the URL's CA is not in the default trust store");
            assert.match(
              untrusted.stderr,
              /couldn't validate the identity of the API Server: .*certificate/,
            );
            assert.deepEqual(await listFiles(worker2.rootfs), []);
            const r = await worker2.kubeadm([
              "join",
              "--discovery-file",
              url,
              "--tls-bootstrap-token",
              TOKEN,
              "--node-name",
              "worker2",
              "--ignore-preflight-errors=all",
            ], { env: { SSL_CERT_FILE: server.caFile } });
            assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
            const who = await worker2.kubectlNode(
              ["auth", "whoami", "-o", "json"],
              "/etc/kubernetes/kubelet.conf",
            );
            assert.equal(who.code, 0, who.stderr);
            assert.equal(JSON.parse(who.stdout).status.userInfo.username, "system:node:worker2");
          } finally {
            await server.close();
          }
        },
      );

      // ---- second control-plane node -----------------------------------------------------
      const key = hexKey();
      await uploadCerts(cp1, config, key);

      const cp2 = await createTestNode("cp2", { linkTo: [cp1] });
      nodes.push(cp2);
      await cp2.startStandin();
      const cpJoinArgs = [
        "join",
        endpoint,
        "--token",
        TOKEN,
        "--discovery-token-ca-cert-hash",
        pin,
        "--control-plane",
        "--certificate-key",
        key,
        "--apiserver-advertise-address",
        cp2.ns.address,
        "--node-name",
        "cp2",
        "--ignore-preflight-errors=all",
      ];
      await t.step("control plane --dry-run: the plan only, nothing under the root", async () => {
        const dir = await Deno.makeTempDir({ prefix: "kts-cpjoin-dryrun-" });
        try {
          const r = await cp2.kubeadm([...cpJoinArgs, "--dry-run"], {
            env: { KUBEADM_JOIN_DRYRUN_DIR: dir },
          });
          assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
          for (
            const marker of [
              "[dryrun] Would check that the etcd cluster is healthy",
              `[etcd] Would add etcd member: https://${cp2.ns.address}:2380`,
              "[etcd] Would wait for the new etcd member to join the cluster",
              "[control-plane-join] Would mark node cp2 as a control-plane",
            ]
          ) assert.ok(r.stdout.includes(marker), `"${marker}" missing in:\n${r.stdout}`);
          assert.deepEqual(await listFiles(cp2.rootfs), []);
          for (
            const f of [
              "etc/kubernetes/pki/ca.key",
              "etc/kubernetes/pki/apiserver.crt",
              "etc/kubernetes/admin.conf",
              "etc/kubernetes/manifests/etcd.yaml",
              "etc/kubernetes/manifests/kube-apiserver.yaml",
            ]
          ) assert.ok(await exists(`${dir}/${f}`), f);
          const members = await json(cp1, [
            "-n",
            "kube-system",
            "get",
            "pods",
            "-l",
            "component=etcd",
          ]);
          assert.equal(members.items.length, 1, "the dry run must not touch etcd");
        } finally {
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        }
      });

      const cpJoin = await cp2.kubeadm(cpJoinArgs);
      assert.equal(
        cpJoin.code,
        0,
        `control-plane join failed:\n${cpJoin.stdout}\n${cpJoin.stderr}`,
      );
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
        const pki = (n: TestNode, f: string) =>
          Deno.readTextFile(`${n.rootfs}/etc/kubernetes/pki/${f}`);
        for (const f of ["ca.crt", "ca.key", "sa.key", "front-proxy-ca.crt", "etcd/ca.crt"]) {
          assert.equal(await pki(cp2, f), await pki(cp1, f), f);
        }
        assert.notEqual(await pki(cp2, "apiserver.crt"), await pki(cp1, "apiserver.crt"));
        assert.equal(await exists(`${cp2.rootfs}/etc/kubernetes/super-admin.conf`), false);
        const etcdYaml = await Deno.readTextFile(
          `${cp2.rootfs}/etc/kubernetes/manifests/etcd.yaml`,
        );
        assert.match(etcdYaml, /--initial-cluster-state=existing/);
        assert.match(
          etcdYaml,
          new RegExp(`--initial-cluster=.*cp1=https://${cp1.ns.address}:2380`),
        );
        assert.match(etcdYaml, new RegExp(`cp2=https://${cp2.ns.address}:2380`));
      });

      await t.step("etcdctl member list shows two started voting members", async () => {
        const members = await etcdMembers(cp1);
        assert.deepEqual(
          members.map((m) => [m.name, m.isLearner ?? false, m.peerURLs[0]]).sort(),
          [
            ["cp1", false, `https://${cp1.ns.address}:2380`],
            ["cp2", false, `https://${cp2.ns.address}:2380`],
          ],
        );
      });

      await t.step("cp2's own kube-apiserver serves (through its own etcd)", async () => {
        const r = await run([
          `${cp2.binDir}/kubectl`,
          "--kubeconfig",
          `${cp2.rootfs}/etc/kubernetes/admin.conf`,
          "--server",
          `https://${cp2.ns.address}:6443`,
          "get",
          "--raw",
          "/readyz",
        ], { ns: cp2.ns });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout.trim(), "ok");
        const node = await json(cp1, ["get", "node", "cp2"]);
        assert.equal(node.metadata.labels["node-role.kubernetes.io/control-plane"], "");
        assert.deepEqual(
          node.spec.taints.filter((x: { key: string }) =>
            x.key === "node-role.kubernetes.io/control-plane"
          ),
          [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
        );
        const who = await cp2.kubectlNode(
          ["auth", "whoami", "-o", "json"],
          "/etc/kubernetes/kubelet.conf",
        );
        assert.equal(who.code, 0, who.stderr);
        assert.equal(JSON.parse(who.stdout).status.userInfo.username, "system:node:cp2");
      });

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

      await t.step("reset --force on cp2 removes its etcd member; cp1 keeps serving", async () => {
        const r = await cp2.kubeadm(["reset", "--force"]);
        assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
        const members = await etcdMembers(cp1);
        assert.deepEqual(
          members.map((m) => [m.name, m.isLearner ?? false, m.peerURLs[0]]),
          [["cp1", false, `https://${cp1.ns.address}:2380`]],
        );
        const ready = await run([
          `${cp1.binDir}/kubectl`,
          "--kubeconfig",
          `${cp1.rootfs}/etc/kubernetes/admin.conf`,
          "--server",
          `https://${cp1.ns.address}:6443`,
          "get",
          "--raw",
          "/readyz",
        ], { ns: cp1.ns });
        assert.equal(ready.code, 0, ready.stderr);
        assert.equal(ready.stdout.trim(), "ok");
        const manifests: string[] = [];
        try {
          for (const e of Deno.readDirSync(`${cp2.rootfs}/etc/kubernetes/manifests`)) {
            if (e.name.endsWith(".yaml")) manifests.push(e.name);
          }
        } catch (e) {
          if (!(e instanceof Deno.errors.NotFound)) throw e;
        }
        assert.deepEqual(manifests, []);
        const etcdData: string[] = [];
        try {
          for (const e of Deno.readDirSync(`${cp2.rootfs}/var/lib/etcd`)) etcdData.push(e.name);
        } catch (e) {
          if (!(e instanceof Deno.errors.NotFound)) throw e;
        }
        assert.deepEqual(etcdData, []);
      });
    } finally {
      for (const n of nodes.reverse()) await n.stop();
    }
  },
});

Deno.test({
  name: "join: a worker joins a real v1.36.3 control plane (kubeadm v1.37 deploys v1.36)",
  ...e2e,
  async fn(t) {
    const nodes: TestNode[] = [];
    try {
      const cp1 = await createTestNode("cp1", { componentSet: "v1.36.3" });
      nodes.push(cp1);
      const { endpoint, pin } = await initForJoin(cp1, "kubernetesVersion: v1.36.3\n");
      const version = JSON.parse((await cp1.kubectl(["version", "-o", "json"])).stdout);
      assert.equal(version.serverVersion.gitVersion, "v1.36.3");

      const worker = await createTestNode("worker1", {
        linkTo: [cp1],
        componentSet: "v1.36.3",
      });
      nodes.push(worker);
      await worker.startStandin();
      const join = await worker.kubeadm(workerJoinArgs(endpoint, pin, "worker1"));
      assert.equal(join.code, 0, `join failed:\n${join.stdout}\n${join.stderr}`);

      await t.step(
        "v1.37 kubelet files: no CRI or pause flags, the CRI socket in instance-config",
        async () => {
          const kubelet = `${worker.rootfs}/var/lib/kubelet`;
          assert.equal(
            await Deno.readTextFile(`${kubelet}/kubeadm-flags.env`),
            'KUBELET_KUBEADM_ARGS="--hostname-override=worker1"\n',
          );
          assert.equal(
            await Deno.readTextFile(`${kubelet}/instance-config.yaml`),
            'containerRuntimeEndpoint: "unix:///var/run/containerd/containerd.sock"\n',
          );
          assert.match(
            await Deno.readTextFile(`${kubelet}/config.yaml`),
            /^containerRuntimeEndpoint: unix:\/\/\/var\/run\/containerd\/containerd\.sock$/m,
          );
        },
      );

      await t.step("the worker bootstrapped as system:node:worker1 and registered", async () => {
        const who = await worker.kubectlNode(
          ["auth", "whoami", "-o", "json"],
          "/etc/kubernetes/kubelet.conf",
        );
        assert.equal(who.code, 0, who.stderr);
        assert.equal(JSON.parse(who.stdout).status.userInfo.username, "system:node:worker1");
        const node = await waitFor("Node worker1", async () => {
          const r = await cp1.kubectl(["get", "node", "worker1", "-o", "json"]);
          return r.code === 0 ? JSON.parse(r.stdout) : undefined;
        }, 60_000);
        assert.equal(
          node.metadata.annotations?.["kubeadm.alpha.kubernetes.io/cri-socket"],
          undefined,
        );
      });
    } finally {
      for (const n of nodes.reverse()) await n.stop();
    }
  },
});

/** `etcdctl member list` against a control-plane node's etcd, with its healthcheck client cert. */
async function etcdMembers(cp: TestNode) {
  const pki = `${cp.rootfs}/etc/kubernetes/pki`;
  const r = await run([
    `${cp.binDir}/etcdctl`,
    `--endpoints=https://${cp.ns.address}:2379`,
    `--cacert=${pki}/etcd/ca.crt`,
    `--cert=${pki}/etcd/healthcheck-client.crt`,
    `--key=${pki}/etcd/healthcheck-client.key`,
    "member",
    "list",
    "-w",
    "json",
  ], { ns: cp.ns });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).members as {
    name: string;
    isLearner?: boolean;
    peerURLs: string[];
  }[];
}
