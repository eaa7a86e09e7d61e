// End to end: our `kubeadm init`, run inside a real node (no --rootfs), builds a control plane
// that the node's real kubelet runs as static Pods in containerd from the local images, and
// every post-control-plane phase creates the objects upstream creates, its addons running
// (kube-proxy's Service rules, CoreDNS answering) — on a v1.37.2 control plane and on a v1.36.3
// one (that version's kubelet and images), as kubeadm v1.37 deploys both.
import assert from "node:assert/strict";
import {
  assertKubeletIdentity,
  assertStaticPodsMirrored,
  type ClusterNode,
  containerdContainers,
  containerdTasks,
  createClusterNode,
  initControlPlane,
  kubectlJson,
  kubeSystemPods,
  waitNodeReady,
} from "../support/cluster.ts";
import { waitFor } from "../support/commands.ts";
import { nodeDnsQuery } from "../support/dns_query.ts";
import { CriSocketRuntime } from "../../adapters/deno/container_runtime.ts";
import { openssl, opensslSpkiSha256 } from "../support/openssl.ts";
import { UPSTREAM_DEFAULT_IMAGES } from "../support/upstream_images.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

// deno-lint-ignore no-explicit-any
const json = (node: ClusterNode, args: string[], kubeconfig?: string): Promise<any> =>
  kubectlJson(node, args, kubeconfig);

/** The control planes kubeadm v1.37 deploys. */
const TARGETS = ["v1.37.2", "v1.36.3"].map((version) => ({ version }));

for (const target of TARGETS) {
  Deno.test({
    name:
      `init on a real ${target.version} control plane: every phase, objects, join hash, bootstrap signer`,
    ...e2e,
    async fn(t) {
      const node = await createClusterNode("cp1", { version: target.version });
      try {
        const { init, config } = await initControlPlane(
          node,
          `kubernetesVersion: ${target.version}\n`,
        );
        const out = init.stdout;

        await t.step("preflight: every image present in the node's CRI", () => {
          // ImagePull is not ignored (PREFLIGHT_IGNORED_CONTROL_PLANE): it found every image,
          // CoreDNS's included, in the node's containerd (there is no registry here).
          assert.doesNotMatch(init.stderr, /ImagePull/);
          assert.match(init.stderr, /\[WARNING SystemVerification\]: cgroups v1 support/);
          assert.doesNotMatch(init.stderr, /\[WARNING (?!SystemVerification|Hostname)/);
        });

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
            const manifests = node.path("/etc/kubernetes/manifests");
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
            const env = await Deno.readTextFile(node.path("/var/lib/kubelet/kubeadm-flags.env"));
            assert.doesNotMatch(env, /pod-infra-container-image|container-runtime-endpoint/);
            assert.equal(
              await Deno.readTextFile(node.path("/var/lib/kubelet/instance-config.yaml")),
              'containerRuntimeEndpoint: "unix:///var/run/containerd/containerd.sock"\n',
            );
            const subject = await openssl([
              "x509",
              "-noout",
              "-subject",
              "-in",
              node.path("/etc/kubernetes/pki/apiserver-kubelet-client.crt"),
            ]);
            // upstream kubeadm v1.37.2 (its init --dry-run): no O=kubeadm:cluster-admins.
            assert.equal(subject.trim(), "subject=CN = kube-apiserver-kubelet-client");
          },
        );

        await t.step(
          "the kubelet runs our static Pods in containers of the local images; mirror Pods with upstream's labels",
          async () => {
            await assertStaticPodsMirrored(node, node);
            const cri = new CriSocketRuntime(`unix://${node.machine.criSocketOnHost}`);
            const manifests = UPSTREAM_DEFAULT_IMAGES.map((i) =>
              i.replace(/:v1\.37\.2$/, `:${target.version}`)
            );
            for (const image of manifests) {
              assert.equal(await cri.imageExists(image), true, image);
            }
          },
        );

        await t.step(
          "the Node is registered by its kubelet with the kubelet's own client certificate",
          async () => {
            const n = await waitNodeReady(node, "cp1");
            assert.equal(n.status?.nodeInfo?.kubeletVersion, target.version);
            assert.equal(n.status?.nodeInfo?.containerRuntimeVersion, "containerd://2.4.2");
            assert.deepEqual(n.status?.addresses?.find((a) => a.type === "InternalIP"), {
              type: "InternalIP",
              address: node.ip,
            });
            // init's kubelet.conf held a certificate kubeadm signed; the kubelet asked for its
            // own with it (rotation), and kubelet-finalize pointed kubelet.conf at that one.
            await assertKubeletIdentity(node, node, "system:node:cp1", false);
            const nodes = await node.kubectl(["get", "nodes", "-o", "name"]);
            assert.equal(nodes.stdout, "node/cp1\n");
          },
        );

        await t.step(
          "the API server reaches the kubelet with its kubelet client certificate (logs, exec RBAC)",
          async () => {
            const logs = await node.kubectl(["-n", "kube-system", "logs", "etcd-cp1", "--tail=3"]);
            assert.equal(logs.code, 0, logs.stderr);
            assert.notEqual(logs.stdout.trim(), "");
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

        await t.step("objects carry upstream's field manager, kubeadm", async () => {
          for (
            const args of [
              ["-n", "kube-system", "get", "configmap", "kubeadm-config"],
              ["-n", "kube-system", "get", "deployment", "coredns"],
              ["get", "clusterrolebinding", "kubeadm:cluster-admins"],
            ]
          ) {
            const obj = await json(node, [...args, "--show-managed-fields"]);
            // Controllers' status writes (the Deployment's, by kube-controller-manager) are theirs.
            const managers = obj.metadata.managedFields
              .filter((f: { subresource?: string }) => f.subresource !== "status")
              .map((f: { manager: string }) => f.manager);
            assert.ok(managers.length > 0, args.join(" "));
            assert.deepEqual([...new Set(managers)], ["kubeadm"], args.join(" "));
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

        await t.step(
          "addons: kube-proxy programs the Services, CoreDNS runs and answers through kube-dns",
          async () => {
            const cm = await json(node, ["-n", "kube-system", "get", "cm", "kube-proxy"]);
            assert.match(cm.data["config.conf"], /^mode: iptables$/m);
            const ds = await json(node, ["-n", "kube-system", "get", "daemonset", "kube-proxy"]);
            assert.equal(
              ds.spec.template.spec.containers[0].image,
              `registry.k8s.io/kube-proxy:${target.version}`,
            );
            // kube-proxy's DaemonSet Pod runs on the node from the local image, which carries
            // the iptables tools it programs the Services with (scripts/node-images).
            const proxy = await waitFor("kube-proxy's Pod Running on cp1", async () => {
              const pods = await kubeSystemPods(node, "k8s-app=kube-proxy");
              return pods.length === 1 && pods[0].status?.phase === "Running" &&
                pods[0].status.containerStatuses?.[0]?.ready && pods[0];
            }, 120_000);
            assert.equal(proxy.spec?.nodeName, "cp1");
            assert.equal(proxy.status?.containerStatuses?.[0]?.restartCount, 0);

            // CoreDNS is ready when its kubernetes plugin has synced with the API server, which
            // it reaches at the `kubernetes` Service (10.96.0.1): through kube-proxy's rules.
            const dep = await waitFor(
              "the CoreDNS Deployment Available, 2 replicas ready",
              async () => {
                const d = await json(node, ["-n", "kube-system", "get", "deployment", "coredns"]);
                const available = d.status?.conditions?.find((c: { type: string }) =>
                  c.type === "Available"
                );
                return available?.status === "True" && d.status.readyReplicas === 2 &&
                  d.status.availableReplicas === 2 && d;
              },
              240_000,
            ).catch(async (e) => {
              // What CoreDNS said (a crash loop's reason is in its log).
              const pods = await node.kubectl(["-n", "kube-system", "get", "pods", "-o", "wide"]);
              const logs = await node.kubectl([
                "-n",
                "kube-system",
                "logs",
                "-l",
                "k8s-app=kube-dns",
                "--prefix",
                "--tail=5",
              ]);
              throw new Error(`${e.message}\n${pods.stdout}\n${logs.stdout}${logs.stderr}`);
            });
            assert.equal(dep.spec.replicas, 2);
            const dnsPods = await kubeSystemPods(node, "k8s-app=kube-dns");
            assert.deepEqual(
              dnsPods.map((p) => {
                const c = p.status?.containerStatuses?.[0];
                return [p.spec?.nodeName, p.status?.phase, c?.ready, c?.restartCount, c?.image];
              }),
              Array(2).fill(["cp1", "Running", true, 0, "registry.k8s.io/coredns/coredns:v1.14.6"]),
            );

            const svc = await json(node, ["-n", "kube-system", "get", "service", "kube-dns"]);
            assert.equal(svc.spec.clusterIP, "10.96.0.10");
            // The Services are kube-proxy's rules in the node's nat table (iptables-nft, as the
            // node's own iptables reads them).
            const nat = await node.exec(["iptables-save", "-t", "nat"]);
            assert.equal(nat.code, 0, nat.stderr);
            for (
              const rule of [
                /^-A KUBE-SERVICES -d 10\.96\.0\.1\/32 -p tcp -m comment --comment "default\/kubernetes:https cluster IP" .*-j KUBE-SVC-/m,
                /^-A KUBE-SERVICES -d 10\.96\.0\.10\/32 -p udp -m comment --comment "kube-system\/kube-dns:dns cluster IP" .*-j KUBE-SVC-/m,
              ]
            ) assert.match(nat.stdout, rule);

            // From the node, through the kube-dns Service (kube-proxy's DNAT to a CoreDNS Pod):
            // our Corefile's zone, its `ttl 30`, NXDOMAIN for a missing Service, reverse zone.
            const ask = (name: string, type: "A" | "PTR" = "A") =>
              nodeDnsQuery(node, "10.96.0.10", name, type);
            const kubernetes = await waitFor(
              "an answer from 10.96.0.10",
              () => ask("kubernetes.default.svc.cluster.local"),
              60_000,
            );
            assert.deepEqual(
              { ...kubernetes, id: 0 },
              {
                id: 0,
                rcode: 0,
                authoritative: true,
                answers: [{
                  name: "kubernetes.default.svc.cluster.local",
                  type: 1,
                  ttl: 30,
                  data: "10.96.0.1",
                }],
              },
            );
            const kubeDns = await ask("kube-dns.kube-system.svc.cluster.local");
            assert.deepEqual(kubeDns.answers.map((a) => a.data), ["10.96.0.10"]);
            const missing = await ask("no-such-service.kube-system.svc.cluster.local");
            assert.equal(missing.rcode, 3, "NXDOMAIN");
            assert.deepEqual(missing.answers, []);
            const ptr = await ask("10.0.96.10.in-addr.arpa", "PTR");
            assert.deepEqual(ptr.answers.map((a) => a.data), [
              "kube-dns.kube-system.svc.cluster.local",
            ]);
          },
        );

        await t.step("super-admin.conf works (system:masters)", async () => {
          const r = await node.kubectl(["auth", "whoami", "-o", "json"], "super-admin.conf");
          assert.equal(r.code, 0, r.stderr);
          assert.ok(JSON.parse(r.stdout).status.userInfo.groups.includes("system:masters"));
        });

        await t.step("the printed join command pins the CA as openssl computes it", async () => {
          const pin = `sha256:${await opensslSpkiSha256(
            await Deno.readTextFile(node.path("/etc/kubernetes/pki/ca.crt")),
          )}`;
          const m = out.match(/--discovery-token-ca-cert-hash (sha256:[0-9a-f]{64})/);
          assert.ok(m, out);
          assert.equal(m[1], pin);
          assert.match(
            out,
            new RegExp(
              `kubeadm join ${
                node.ip.replaceAll(".", "\\.")
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
          "reset: --dry-run changes nothing, then reset stops the kubelet, removes the Pods and only what kubeadm and the kubelet wrote",
          async () => {
            const planted = node.path("/etc/kubernetes/operator-notes.txt");
            await Deno.writeTextFile(planted, "keep me");
            const cri = new CriSocketRuntime(`unix://${node.machine.criSocketOnHost}`);
            const pods = await cri.listKubePods();
            assert.ok(pods.length >= 4, `${pods.length} Pod sandboxes`);
            const before = await kubeadmState(node);
            const dry = await node.kubeadm(["reset", "--force", "--dry-run"]);
            assert.equal(dry.code, 0, dry.stderr);
            assert.deepEqual(await kubeadmState(node), before);
            assert.equal(node.machine.services.isActive("kubelet"), true);
            assert.deepEqual((await cri.listKubePods()).sort(), pods.sort());

            const reset = await node.kubeadm(["reset", "--force"]);
            assert.equal(reset.code, 0, `${reset.stdout}\n${reset.stderr}`);
            assert.match(
              reset.stdout,
              /The reset process does not perform cleanup of CNI plugin configuration/,
            );
            assert.equal(node.machine.services.isActive("kubelet"), false);
            assert.ok(
              node.machine.services.history.some((a) => a.join(" ") === "stop kubelet"),
              JSON.stringify(node.machine.services.history),
            );
            assert.deepEqual(await cri.listKubePods(), []);
            assert.deepEqual(await containerdContainers(node), []);
            assert.deepEqual(await containerdTasks(node), new Map());
            const files = [...(await node.machine.files()).keys()];
            assert.deepEqual(
              files.filter((p) => /^\/(etc\/kubernetes|var\/lib\/(kubelet|etcd))\//.test(p)),
              ["/etc/kubernetes/operator-notes.txt"],
            );
            assert.equal(await Deno.readTextFile(planted), "keep me");
            // The CNI configuration is left, as reset says.
            assert.ok(files.includes("/etc/cni/net.d/10-containerd-net.conflist"), `${files}`);
          },
        );
      } finally {
        await node.stop();
      }
    },
  });
}

/**
 * The node's files as far as reset --dry-run must leave them: everything the node listing
 * holds but what the running kubelet and etcd keep changing (the kubelet's Pod directories
 * and state files; etcd's files count by name only).
 */
async function kubeadmState(node: ClusterNode): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [path, state] of await node.machine.files()) {
    if (path.startsWith("/var/lib/etcd/")) out.set(path, "");
    else if (
      !path.startsWith("/var/lib/kubelet/") ||
      /^\/var\/lib\/kubelet\/(config\.yaml|kubeadm-flags\.env|instance-config\.yaml|pki\/)/.test(
        path,
      )
    ) {
      out.set(path, state);
    }
  }
  return out;
}
