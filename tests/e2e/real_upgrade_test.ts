// End to end: `kubeadm upgrade` on real nodes (each its own namespaces, containerd v2.4.2 and a
// real kubelet), from v1.36.3 to v1.37.2, offline as an air-gapped admin does it:
//
// - a v1.36.3 control plane by our `init` (the v1.36.3 kubelet and images) and a v1.36.3 worker
//   by our `join` (kubeadm v1.37 deploys v1.36);
// - a ConfigMap written before, to prove etcd's data survives; the v1.37.2 images imported
//   into each node's containerd beforehand (`kubeadm config images pull` without a registry);
// - our `upgrade plan` (no version: offline it falls back to its own, v1.37.2), our `upgrade
//   apply v1.37.2 --yes` on the control plane, against the real kubelet: it swaps the static
//   Pods, the kubelet restarts them from the v1.37.2 images, the addons follow; the admin then
//   swaps the kubelet binary for v1.37.2 and restarts it;
// - our `upgrade node` on the worker, then its kubelet swapped too;
// - upstream kubeadm v1.37.2 on the upgraded node: its `upgrade plan` finds nothing to upgrade,
//   its `upgrade diff` finds no change to make to our manifests, and its upload-config phase
//   uploads the same kubeadm-config and kubelet-config ours did.
import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import {
  assertKubeletIdentity,
  assertOk,
  assertStaticPodsMirrored,
  type ClusterNode,
  containerdContainers,
  containerdTasks,
  CONTROL_PLANE_PODS,
  createClusterNode,
  importImages,
  initForJoin,
  kubectlJson,
  kubeSystemPods,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  PREFLIGHT_IGNORED_WORKER,
  upgradeKubelet,
  waitNodeReady,
  workerJoinArgs,
} from "../support/cluster.ts";
import { type RunResult, waitFor } from "../support/commands.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const FROM = "v1.36.3";
const TO = "v1.37.2";
/** The etcd kubeadm v1.37 pairs with v1.37 (and v1.36): `SupportedEtcdVersion`. */
const ETCD_IMAGE = "registry.k8s.io/etcd:3.7.0-0";
const COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.14.6";

// deno-lint-ignore no-explicit-any
const json = (node: ClusterNode, args: string[]): Promise<any> => kubectlJson(node, args);

/** The control-plane mirror Pods of a node, by component. */
async function controlPlanePods(node: ClusterNode): Promise<Map<string, Pod>> {
  const out = new Map<string, Pod>();
  for (const c of CONTROL_PLANE_PODS) {
    out.set(c, await json(node, ["-n", "kube-system", "get", "pod", `${c}-${node.name}`]));
  }
  return out;
}

const containerId = (p: Pod) =>
  p.status?.containerStatuses?.[0]?.containerID?.replace(/^containerd:\/\//, "") ?? "";

/** The kubelet config backups `upgrade` made (`/etc/kubernetes/tmp/kubeadm-kubelet-config*`). */
async function kubeletBackups(node: ClusterNode): Promise<string[]> {
  const dir = node.path("/etc/kubernetes/tmp");
  const names = await Array.fromAsync(Deno.readDir(dir)).catch(() => []);
  return names.map((e) => e.name).filter((n) => n.startsWith("kubeadm-kubelet-config"));
}

/** The kubelet files kubeadm's kubelet-config phase writes, as the node holds them now. */
async function kubeletFiles(node: ClusterNode): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of ["config.yaml", "instance-config.yaml", "kubeadm-flags.env"]) {
    out[f] = await Deno.readTextFile(node.path(`/var/lib/kubelet/${f}`)).catch(() => "(absent)");
  }
  return out;
}

/**
 * Runs upstream kubeadm v1.37.2's phase `args` on the node (it writes the kubelet files again)
 * and asserts that it left them byte for byte as ours wrote them.
 */
async function assertUpstreamWritesSame(node: ClusterNode, args: string[]): Promise<void> {
  const ours = await kubeletFiles(node);
  // Both back the old files up into /etc/kubernetes/tmp/kubeadm-kubelet-config-<second>:
  // upstream refuses a directory that exists, so not within the second ours ran in.
  await new Promise((r) => setTimeout(r, 1000 - Date.now() % 1000 + 50));
  const r: RunResult = await node.exec([`${node.binDir}/kubeadm`, ...args]);
  await assertOk(node, `upstream ${args.join(" ")}`, r);
  assert.match(r.stdout, /The kubelet configuration for this node was successfully upgraded!/);
  assert.deepEqual(await kubeletFiles(node), ours);
}

Deno.test({
  name: `upgrade on real nodes: a ${FROM} control plane and worker by our init and join → ${TO}`,
  ...e2e,
  async fn(t) {
    const nodes: ClusterNode[] = [];
    try {
      const cp1 = await createClusterNode("cp1", { version: FROM });
      nodes.push(cp1);
      const { endpoint, pin } = await initForJoin(cp1, `kubernetesVersion: ${FROM}\n`);
      const version = JSON.parse((await cp1.kubectl(["version", "-o", "json"])).stdout);
      assert.equal(version.serverVersion.gitVersion, FROM);

      const worker = await createClusterNode("worker1", {
        linkTo: [cp1],
        version: FROM,
        role: "worker",
      });
      nodes.push(worker);
      const join = await worker.kubeadm(workerJoinArgs(endpoint, pin, "worker1"));
      await assertOk(worker, "join", join);

      await t.step(
        "join: v1.37 kubelet files (no CRI or pause flags, the CRI socket in instance-config)",
        async () => {
          const kubelet = (f: string) => Deno.readTextFile(worker.path(`/var/lib/kubelet/${f}`));
          assert.equal(
            await kubelet("kubeadm-flags.env"),
            'KUBELET_KUBEADM_ARGS="--hostname-override=worker1"\n',
          );
          assert.equal(
            await kubelet("instance-config.yaml"),
            'containerRuntimeEndpoint: "unix:///var/run/containerd/containerd.sock"\n',
          );
          assert.match(
            await kubelet("config.yaml"),
            /^containerRuntimeEndpoint: unix:\/\/\/var\/run\/containerd\/containerd\.sock$/m,
          );
        },
      );

      await t.step(
        "join: the v1.36.3 kubelet bootstrapped as system:node:worker1 and registered",
        async () => {
          await assertKubeletIdentity(cp1, worker, "system:bootstrap:abcdef", true);
          const node = await waitNodeReady(cp1, "worker1");
          assert.equal(node.status?.nodeInfo?.kubeletVersion, FROM);
          assert.equal(
            node.metadata.annotations?.["kubeadm.alpha.kubernetes.io/cri-socket"],
            undefined,
          );
        },
      );

      // ---- the upgrade --------------------------------------------------------------------
      await assertOk(
        cp1,
        "create the marker ConfigMap",
        await cp1.kubectl([
          "-n",
          "default",
          "create",
          "configmap",
          "before-upgrade",
          "--from-literal=k=v",
        ]),
      );
      // The admin pre-pulls the target's images (no registry here: the local archives).
      await importImages(cp1, TO);
      await importImages(worker, TO, "worker");

      await t.step(`plan, offline, shows ${TO} as the target, as upstream's plan`, async () => {
        // No version: offline, release labels fall back to kubeadm's own version.
        const plan = await cp1.kubeadm(["upgrade", "plan"]);
        await assertOk(cp1, "upgrade plan", plan);
        assert.match(plan.stdout, /^\[upgrade\/versions\] Cluster version: 1\.36\.3$/m);
        assert.match(plan.stdout, /^\[upgrade\/versions\] Target version: v1\.37\.2$/m);
        assert.match(plan.stdout, /^kube-apiserver\s+cp1\s+v1\.36\.3\s+v1\.37\.2$/m);
        assert.match(plan.stdout, /^kubelet\s+worker1\s+v1\.36\.3\s+v1\.37\.2$/m);
        assert.match(plan.stdout, /^etcd\s+cp1\s+3\.7\.0-0\s+3\.7\.0-0$/m);
        assert.match(plan.stdout, /^\tkubeadm upgrade apply v1\.37\.2$/m);
        assert.match(plan.stderr, /falling back to the local client version: v1\.37\.2/);
        // Upstream kubeadm v1.37.2 on the same node, as offline, prints the same plan.
        const upstream = await cp1.exec([`${cp1.binDir}/kubeadm`, "upgrade", "plan"]);
        await assertOk(cp1, "upstream upgrade plan", upstream);
        assert.equal(plan.stdout, upstream.stdout);
      });

      const before = await controlPlanePods(cp1);

      await t.step(`apply ${TO} against the real kubelet`, async () => {
        const apply = await cp1.kubeadm([
          "upgrade",
          "apply",
          TO,
          "--yes",
          "--etcd-upgrade=true",
          `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`,
        ]);
        await assertOk(cp1, "upgrade apply", apply);
        const out = apply.stdout;
        assert.match(out, /\[upgrade\/staticpods\] Renewing etcd-server certificate/);
        assert.match(out, /\[upgrade\/staticpods\] Restarting the etcd static pod/);
        for (const c of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
          assert.match(
            out,
            new RegExp(`\\[upgrade/staticpods\\] Component "${c}" upgraded successfully!`),
          );
        }
        assert.match(out, /\[addons\] Applied essential addon: CoreDNS/);
        assert.match(out, /\[addons\] Applied essential addon: kube-proxy/);
        assert.match(
          out,
          /\[upgrade\] SUCCESS! A control plane node of your cluster was upgraded to "v1\.37\.2"\./,
        );
      });

      await t.step(
        "the static Pods run the v1.37.2 images (etcd the one v1.37 pairs), Running and Ready, in new containers; the old ones stopped",
        async () => {
          for (const c of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
            const m = await Deno.readTextFile(cp1.path(`/etc/kubernetes/manifests/${c}.yaml`));
            assert.match(m, new RegExp(`image: registry\\.k8s\\.io/${c}:v1\\.37\\.2\n`));
          }
          const etcd = await Deno.readTextFile(cp1.path("/etc/kubernetes/manifests/etcd.yaml"));
          assert.match(etcd, new RegExp(`image: ${ETCD_IMAGE.replaceAll(".", "\\.")}\n`));
          // Every mirror Pod matches its manifest, runs in a containerd task, Ready.
          await assertStaticPodsMirrored(cp1, cp1);
          const after = await controlPlanePods(cp1);
          const tasks = await containerdTasks(cp1);
          for (const c of CONTROL_PLANE_PODS) {
            const pod = after.get(c)!;
            const want = c === "etcd" ? ETCD_IMAGE : `registry.k8s.io/${c}:${TO}`;
            assert.equal(pod.status?.containerStatuses?.[0]?.image, want, c);
            // etcd too: its manifest is unchanged, but kubeadm takes it out and back for the
            // kubelet to restart etcd on the certificates it renewed.
            const old = containerId(before.get(c)!);
            assert.notEqual(containerId(pod), old, `${c} still runs its old container`);
            assert.equal(tasks.has(old), false, `${c}'s old container still has a task`);
          }
          const v = JSON.parse((await cp1.kubectl(["version", "-o", "json"])).stdout);
          assert.equal(v.serverVersion.gitVersion, TO);
        },
      );

      await t.step("etcd kept its data", async () => {
        const marker = await json(cp1, ["-n", "default", "get", "cm", "before-upgrade"]);
        assert.deepEqual(marker.data, { k: "v" });
      });

      await t.step(
        "kubeadm-config says v1.37.2; kubeadm-config and kubelet-config are what upstream uploads",
        async () => {
          const configMaps = async () => ({
            kubeadm: (await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"])).data,
            kubelet: (await json(cp1, ["-n", "kube-system", "get", "cm", "kubelet-config"])).data,
          });
          const ours = await configMaps();
          assert.match(ours.kubeadm.ClusterConfiguration, /^kubernetesVersion: v1\.37\.2$/m);
          assert.match(ours.kubelet.kubelet, /^kind: KubeletConfiguration$/m);
          const file = `${cp1.machine.dir}/upstream-upgrade.yaml`;
          await Deno.writeTextFile(
            file,
            `apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\napply:\n  kubernetesVersion: ${TO}\n`,
          );
          await assertOk(
            cp1,
            "upstream upload-config",
            await cp1.exec([
              `${cp1.binDir}/kubeadm`,
              "upgrade",
              "apply",
              "phase",
              "upload-config",
              "all",
              "--config",
              file,
            ]),
          );
          assert.deepEqual(ours, await configMaps());
        },
      );

      await t.step(
        "the kubelet files written for v1.37 are what upstream's kubelet-config phase writes",
        async () => {
          const config = await Deno.readTextFile(cp1.path("/var/lib/kubelet/config.yaml"));
          assert.match(config, /^failCgroupV1: false$/m);
          assert.match(
            config,
            /^containerRuntimeEndpoint: unix:\/\/\/var\/run\/containerd\/containerd\.sock$/m,
          );
          assert.ok(
            (await kubeletBackups(cp1)).length > 0,
            "apply backed the old kubelet config up under /etc/kubernetes/tmp",
          );
          await assertUpstreamWritesSame(cp1, ["upgrade", "apply", "phase", "kubelet-config", TO]);
        },
      );

      await t.step(
        "addons: kube-proxy's DaemonSet and CoreDNS's Deployment carry the v1.37 images, available",
        async () => {
          await waitFor("kube-proxy rolled out on both nodes", async () => {
            const ds = await json(cp1, ["-n", "kube-system", "get", "daemonset", "kube-proxy"]);
            assert.equal(
              ds.spec.template.spec.containers[0].image,
              `registry.k8s.io/kube-proxy:${TO}`,
            );
            const s = ds.status;
            return s.observedGeneration === ds.metadata.generation &&
              s.desiredNumberScheduled === 2 && s.updatedNumberScheduled === 2 &&
              s.numberAvailable === 2;
          }, 180_000);
          // The DaemonSet counts the new Pods available while an old one may still be
          // terminating: wait until only the two new ones are left.
          let proxies: [string | undefined, string | undefined][] = [];
          await waitFor("only the new kube-proxy Pods left", async () => {
            proxies = (await kubeSystemPods(cp1, "k8s-app=kube-proxy"))
              .filter((p) => !p.metadata?.deletionTimestamp)
              .map((p) => [p.status?.phase, p.status?.containerStatuses?.[0]?.image]);
            return proxies.length === 2 &&
              proxies.every(([phase, image]) =>
                phase === "Running" && image === `registry.k8s.io/kube-proxy:${TO}`
              );
          }, 120_000);
          assert.deepEqual(
            proxies.sort(),
            Array(2).fill(["Running", `registry.k8s.io/kube-proxy:${TO}`]),
          );
          await waitFor("CoreDNS Available", async () => {
            const d = await json(cp1, ["-n", "kube-system", "get", "deployment", "coredns"]);
            assert.equal(d.spec.template.spec.containers[0].image, COREDNS_IMAGE);
            const available = d.status?.conditions?.find((c: { type: string }) =>
              c.type === "Available"
            );
            return available?.status === "True" && d.status.updatedReplicas === 2 &&
              d.status.availableReplicas === 2;
          }, 180_000);
        },
      );

      await t.step(`the admin upgrades cp1's kubelet to ${TO}`, async () => {
        await upgradeKubelet(cp1, cp1, TO);
      });

      await t.step("upgrade node on the worker: its kubelet config, as upstream's", async () => {
        const r = await worker.kubeadm([
          "upgrade",
          "node",
          `--ignore-preflight-errors=${PREFLIGHT_IGNORED_WORKER}`,
        ]);
        await assertOk(worker, "upgrade node", r);
        assert.match(
          r.stdout,
          /\[upgrade\/control-plane\] Skipping phase\. Not a control plane node\./,
        );
        assert.match(
          r.stdout,
          /\[upgrade\/kubelet-config\] The kubelet configuration for this node was successfully upgraded!/,
        );
        assert.ok((await kubeletBackups(worker)).length > 0, "no backup of the kubelet config");
        // The worker's config is the cluster's (the kubelet-config ConfigMap) as cp1's is.
        assert.equal(
          await Deno.readTextFile(worker.path("/var/lib/kubelet/config.yaml")),
          await Deno.readTextFile(cp1.path("/var/lib/kubelet/config.yaml")),
        );
        await assertUpstreamWritesSame(worker, ["upgrade", "node", "phase", "kubelet-config"]);
        await upgradeKubelet(cp1, worker, TO);
      });

      await t.step(
        "upstream kubeadm v1.37.2 agrees: nothing left to upgrade, no manifest to change",
        async () => {
          const upstream = `${cp1.binDir}/kubeadm`;
          const plan = await cp1.exec([upstream, "upgrade", "plan", "-v=1"]);
          await assertOk(cp1, "upstream upgrade plan", plan);
          assert.match(plan.stderr, /\[upgrade\/plan\] Awesome, you're up-to-date! Enjoy!/);
          assert.match(plan.stdout, /^\[upgrade\/versions\] Cluster version: 1\.37\.2$/m);
          assert.doesNotMatch(plan.stdout, /kubeadm upgrade apply|COMPONENT/);
          // Ours says the same, in the same words.
          const ours = await cp1.kubeadm(["upgrade", "plan"]);
          await assertOk(cp1, "upgrade plan", ours);
          assert.equal(ours.stdout, plan.stdout);
          // Upstream's own v1.37.2 manifests would change nothing in ours.
          const diff = await cp1.exec([upstream, "upgrade", "diff", TO]);
          await assertOk(cp1, "upstream upgrade diff", diff);
          assert.doesNotMatch(diff.stdout, /^(---|\+\+\+|@@) /m, diff.stdout);
          assert.match(diff.stdout, /^\[upgrade\/diff\] Reading configuration/m);
        },
      );

      await t.step("the old containers are removed", async () => {
        const old = CONTROL_PLANE_PODS.map((c) => containerId(before.get(c)!));
        await waitFor("the kubelet's garbage collector removing the old containers", async () => {
          const left = await containerdContainers(cp1);
          return old.every((id) => !left.includes(id));
        }, 120_000);
      });
    } finally {
      for (const n of nodes.reverse()) await n.stop();
    }
  },
});
