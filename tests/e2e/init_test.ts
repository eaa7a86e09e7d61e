// End to end: `kubeadm init` builds a real control plane from our own files, and every
// post-control-plane phase creates the objects upstream creates — on a v1.37.2 control plane
// (the default set) and on a v1.36.3 one (the v1.36.3 set's etcd and kube-*), as kubeadm v1.37
// deploys both.
import assert from "node:assert/strict";
import {
  createTestNode,
  initControlPlane,
  type TestNode,
  waitFor,
} from "../support/control_plane.ts";
import { openssl, opensslSpkiSha256 } from "../support/openssl.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

async function json(node: TestNode, args: string[], kubeconfig?: string) {
  const r = await node.kubectl([...args, "-o", "json"], kubeconfig);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The control planes kubeadm v1.37 deploys, and the k8s-bins set that runs each. */
const TARGETS = [
  { version: "v1.37.2", componentSet: undefined },
  { version: "v1.36.3", componentSet: "v1.36.3" },
];

for (const target of TARGETS) {
  Deno.test({
    name:
      `init on a real ${target.version} control plane: every phase, objects, join hash, bootstrap signer`,
    ...e2e,
    async fn(t) {
      const node = await createTestNode("cp1", { componentSet: target.componentSet });
      try {
        const { init, config } = await initControlPlane(
          node,
          `kubernetesVersion: ${target.version}\n`,
        );
        const out = init.stdout;

        await t.step("phases ran in upstream's order", () => {
          const order = [
            "[certs] Using certificateDir folder",
            "[kubeconfig] Using kubeconfig folder",
            "[etcd] Creating static Pod manifest for local etcd",
            "[control-plane] Using manifest folder",
            "[kubelet-start] Writing kubelet",
            "[wait-control-plane]",
            '[upload-config] Storing the configuration used in ConfigMap "kubeadm-config"',
            "[mark-control-plane] Marking the node cp1 as control-plane",
            "[bootstrap-token] Using token: abcdef.0123456789abcdef",
            "[addons] Applied essential addon: CoreDNS",
            "[addons] Applied essential addon: kube-proxy",
            "Your Kubernetes control-plane has initialized successfully!",
          ];
          let at = -1;
          for (const marker of order) {
            const i = out.indexOf(marker);
            assert.ok(i > at, `"${marker}" missing or out of order in:\n${out}`);
            at = i;
          }
        });

        await t.step(
          `the control plane runs ${target.version}, from our v1.37 manifests`,
          async () => {
            const v = JSON.parse(
              (await node.kubectl(["version", "-o", "json"])).stdout,
            );
            assert.equal(v.serverVersion.gitVersion, target.version);
            const manifests = `${node.rootfs}/etc/kubernetes/manifests`;
            const apiserver = await Deno.readTextFile(`${manifests}/kube-apiserver.yaml`);
            assert.match(
              apiserver,
              new RegExp(`image: registry\\.k8s\\.io/kube-apiserver:${target.version}\n`),
            );
            const etcd = await Deno.readTextFile(`${manifests}/etcd.yaml`);
            assert.match(etcd, /image: registry\.k8s\.io\/etcd:3\.7\.0-0\n/);
            assert.match(etcd, /--feature-gates=InitialCorruptCheck=true/);
            const kcm = await Deno.readTextFile(`${manifests}/kube-controller-manager.yaml`);
            assert.doesNotMatch(kcm, /flexvolume/);
            const env = await Deno.readTextFile(`${node.rootfs}/var/lib/kubelet/kubeadm-flags.env`);
            assert.doesNotMatch(env, /pod-infra-container-image|container-runtime-endpoint/);
            assert.equal(
              await Deno.readTextFile(`${node.rootfs}/var/lib/kubelet/instance-config.yaml`),
              'containerRuntimeEndpoint: "unix:///var/run/containerd/containerd.sock"\n',
            );
            const subject = await openssl([
              "x509",
              "-noout",
              "-subject",
              "-in",
              `${node.rootfs}/etc/kubernetes/pki/apiserver-kubelet-client.crt`,
            ]);
            // upstream kubeadm v1.37.2 (its init --dry-run): no O=kubeadm:cluster-admins.
            assert.equal(subject.trim(), "subject=CN = kube-apiserver-kubelet-client");
          },
        );

        await t.step("kubeadm-config and kubelet-config ConfigMaps, secrets stripped", async () => {
          const cm = await json(node, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
          const cc: string = cm.data.ClusterConfiguration;
          assert.match(cc, /kind: ClusterConfiguration/);
          assert.match(cc, new RegExp(`kubernetesVersion: ${target.version}\n`));
          assert.match(cc, /podSubnet: 10.244.0.0\/16/);
          assert.doesNotMatch(cc, /0123456789abcdef/);
          assert.doesNotMatch(cc, /bootstrapTokens/);
          const kc = await json(node, ["-n", "kube-system", "get", "cm", "kubelet-config"]);
          assert.match(kc.data.kubelet, /kind: KubeletConfiguration/);
          for (const name of ["kubeadm:nodes-kubeadm-config", "kubeadm:kubelet-config"]) {
            await json(node, ["-n", "kube-system", "get", "role", name]);
            await json(node, ["-n", "kube-system", "get", "rolebinding", name]);
          }
        });

        await t.step("node is labelled and tainted as a control plane", async () => {
          const n = await json(node, ["get", "node", "cp1"]);
          assert.equal(n.metadata.labels["node-role.kubernetes.io/control-plane"], "");
          assert.equal(
            n.metadata.labels["node.kubernetes.io/exclude-from-external-load-balancers"],
            "",
          );
          assert.deepEqual(
            (n.spec.taints ?? []).filter((x: { key: string }) =>
              x.key === "node-role.kubernetes.io/control-plane"
            ),
            [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
          );
        });

        await t.step("bootstrap token secret and RBAC", async () => {
          const s = await json(node, [
            "-n",
            "kube-system",
            "get",
            "secret",
            "bootstrap-token-abcdef",
          ]);
          assert.equal(s.type, "bootstrap.kubernetes.io/token");
          const dec = (k: string) => atob(s.data[k]);
          assert.equal(dec("token-id"), "abcdef");
          assert.equal(dec("usage-bootstrap-signing"), "true");
          assert.equal(dec("usage-bootstrap-authentication"), "true");
          assert.equal(dec("auth-extra-groups"), "system:bootstrappers:kubeadm:default-node-token");
          for (
            const crb of [
              "kubeadm:get-nodes",
              "kubeadm:kubelet-bootstrap",
              "kubeadm:node-autoapprove-bootstrap",
              "kubeadm:node-autoapprove-certificate-rotation",
              "kubeadm:cluster-admins",
            ]
          ) await json(node, ["get", "clusterrolebinding", crb]);
          // v1.37: the API server's kubelet client gets the kubelet API through its own binding.
          const kubeletApi = await json(node, [
            "get",
            "clusterrolebinding",
            "kubeadm:apiserver-kubelet-client",
          ]);
          assert.equal(kubeletApi.roleRef.name, "system:kubelet-api-admin");
          assert.deepEqual(kubeletApi.subjects, [{
            apiGroup: "rbac.authorization.k8s.io",
            kind: "User",
            name: "kube-apiserver-kubelet-client",
          }]);
          const can = await node.kubectl([
            "auth",
            "can-i",
            "get",
            "nodes/proxy",
            "--as",
            "kube-apiserver-kubelet-client",
          ]);
          assert.equal(can.stdout.trim(), "yes", can.stderr);
          const rb = await json(node, [
            "-n",
            "kube-public",
            "get",
            "rolebinding",
            "kubeadm:bootstrap-signer-clusterinfo",
          ]);
          assert.deepEqual(rb.subjects, [{
            apiGroup: "rbac.authorization.k8s.io",
            kind: "User",
            name: "system:anonymous",
          }]);
        });

        await t.step("the controller-manager's bootstrap signer signs cluster-info", async () => {
          const cm = await waitFor("jws-kubeconfig-abcdef in cluster-info", async () => {
            const c = await json(node, ["-n", "kube-public", "get", "cm", "cluster-info"]);
            return c.data?.["jws-kubeconfig-abcdef"] ? c : undefined;
          }, 90_000);
          assert.match(cm.data.kubeconfig, /certificate-authority-data:/);
          assert.match(
            cm.data["jws-kubeconfig-abcdef"],
            /^eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9\.\./,
          );
        });

        await t.step("addons: CoreDNS and kube-proxy objects", async () => {
          const dep = await json(node, ["-n", "kube-system", "get", "deployment", "coredns"]);
          assert.equal(dep.spec.replicas, 2);
          const svc = await json(node, ["-n", "kube-system", "get", "service", "kube-dns"]);
          assert.equal(svc.spec.clusterIP, "10.96.0.10");
          const ds = await json(node, ["-n", "kube-system", "get", "daemonset", "kube-proxy"]);
          assert.equal(
            ds.spec.template.spec.containers[0].image,
            `registry.k8s.io/kube-proxy:${target.version}`,
          );
          const cm = await json(node, ["-n", "kube-system", "get", "cm", "kube-proxy"]);
          assert.match(cm.data["config.conf"], /^mode: iptables$/m);
        });

        await t.step("super-admin.conf works (system:masters)", async () => {
          const r = await node.kubectl(["auth", "whoami", "-o", "json"], "super-admin.conf");
          assert.equal(r.code, 0, r.stderr);
          assert.ok(JSON.parse(r.stdout).status.userInfo.groups.includes("system:masters"));
        });

        await t.step("the printed join command pins the CA as openssl computes it", async () => {
          const pin = `sha256:${await opensslSpkiSha256(
            await Deno.readTextFile(`${node.rootfs}/etc/kubernetes/pki/ca.crt`),
          )}`;
          const m = out.match(/--discovery-token-ca-cert-hash (sha256:[0-9a-f]{64})/);
          assert.ok(m, out);
          assert.equal(m[1], pin);
          assert.match(
            out,
            new RegExp(
              `kubeadm join ${
                node.ns.address.replaceAll(".", "\\.")
              }:6443 --token abcdef\\.0123456789abcdef`,
            ),
          );
        });

        await t.step("a second init on the same node is refused by preflight", async () => {
          const again = await node.kubeadm(["init", "--config", config]);
          assert.notEqual(again.code, 0);
          assert.match(again.stderr + again.stdout, /already exists|is not empty|in use/);
        });

        await t.step("each post-control-plane phase re-run alone converges", async () => {
          for (
            const phase of [
              "upload-config all",
              "mark-control-plane",
              "bootstrap-token",
              "addon all",
            ]
          ) {
            const r = await node.kubeadm([
              "init",
              "phase",
              ...phase.split(" "),
              "--config",
              config,
            ]);
            assert.equal(r.code, 0, `${phase}: ${r.stderr}`);
          }
          const secrets = await json(node, [
            "-n",
            "kube-system",
            "get",
            "secrets",
            "--field-selector=type=bootstrap.kubernetes.io/token",
          ]);
          assert.equal(secrets.items.length, 1);
          const crbs = await json(node, ["get", "clusterrolebindings"]);
          const names = crbs.items.map((i: { metadata: { name: string } }) => i.metadata.name);
          assert.equal(names.filter((n: string) => n === "kubeadm:get-nodes").length, 1);
        });

        await t.step(
          "reset: --dry-run changes nothing, then reset removes only what kubeadm wrote",
          async () => {
            const planted = `${node.rootfs}/etc/kubernetes/operator-notes.txt`;
            await Deno.writeTextFile(planted, "keep me");
            const before = await snapshot(node.rootfs);
            const dry = await node.kubeadm(["reset", "--force", "--dry-run"]);
            assert.equal(dry.code, 0, dry.stderr);
            assert.deepEqual(await snapshot(node.rootfs), before);

            const reset = await node.kubeadm(["reset", "--force"]);
            assert.equal(reset.code, 0, `${reset.stdout}\n${reset.stderr}`);
            assert.match(
              reset.stdout,
              /The reset process does not perform cleanup of CNI plugin configuration/,
            );
            const left = [...(await snapshot(node.rootfs)).keys()].filter((p) =>
              !p.startsWith("/var/log/standin/")
            );
            assert.deepEqual(left.sort(), [
              "/etc/kubernetes/operator-notes.txt",
              "/kubeadm-config.yaml",
            ]);
            assert.equal(await Deno.readTextFile(planted), "keep me");
          },
        );
      } finally {
        await node.stop();
      }
    },
  });
}

/** Every regular file under `root` (relative path → size). */
async function snapshot(root: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else out.set(p.slice(root.length), (await Deno.lstat(p)).size);
    }
  };
  await walk(root);
  return out;
}
