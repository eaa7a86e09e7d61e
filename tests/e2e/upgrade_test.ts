// End to end: `kubeadm upgrade` from v1.36.3 to v1.37.2 on a real HA cluster built by our own
// `init` and `join`: three control planes with stacked etcd (the smallest etcd cluster that
// survives the loss of a member) and a worker, each a real node (its own namespaces,
// containerd v2.4.2, the real v1.36.3 kubelet), joined with `--upload-certs` behind a
// `controlPlaneEndpoint` served by a real load balancer on the host (HAProxy,
// tests/support/load_balancer.ts). Offline, as an air-gapped admin does it: the v1.37.2 images
// are imported into each node's containerd beforehand.
//
// plan shows v1.37.2 (offline, as upstream's) → bad input and --dry-run change nothing → plan,
// diff and apply --dry-run print what upstream's print → a broken kube-apiserver is rolled back
// → apply on cp1, killed inside the static-Pod swap, run again, converges → node on cp2, then
// on cp3 (the last control plane: the addons follow) → node on the worker → the admin swaps
// every kubelet for v1.37.2. Throughout, a client reads through the endpoint every 200 ms
// (tests/support/endpoint_client.ts): no request may fail; the admin takes each control plane
// out of the load balancer's rotation while its static Pods restart (ha_cluster.ts's
// inMaintenance: an API server holds its requests while its local etcd member restarts).
// Afterwards every static Pod runs the v1.37.2 images in new containers, etcd kept its data,
// kubeadm-config, kubelet-config and the kubelet files are what upstream kubeadm v1.37.2
// writes, and upstream finds nothing left to upgrade. Then `certs renew all` on each control
// plane (its static Pods restarted one node at a time, the client still reading), and `reset`
// of one control plane (out of rotation first) removes its etcd member while the cluster stays
// healthy.
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
  etcdctl,
  etcdMembers,
  importImages,
  kubectlJson,
  kubeSystemPods,
  PREFLIGHT_IGNORED_CONTROL_PLANE,
  PREFLIGHT_IGNORED_WORKER,
  readyz,
  restartStaticPod,
  upgradeKubelet,
  waitNodeReady,
} from "../support/cluster.ts";
import { type RunResult, waitFor } from "../support/commands.ts";
import { type EndpointClient, startEndpointClient } from "../support/endpoint_client.ts";
import { fileTree, mtimeOf } from "../support/file_tree.ts";
import { sampleHostUsage } from "../support/host_usage.ts";
import { klogMessages } from "../support/klog_lines.ts";
import { loudSteps } from "../support/loud_steps.ts";
import { createHaCluster, type HaCluster, inMaintenance } from "../support/ha_cluster.ts";
import { checkKubeconfigClients, checkPkiDir } from "../support/pki_checks.ts";
import {
  assertDryRunAsUpstream,
  assertLogAsUpstream,
  diffInFileOrder,
  oursAndUpstream,
} from "../support/upgrade_golden.ts";
import { FAULT_INJECT_ENV } from "../../adapters/deno/fault_injection.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const FROM = "v1.36.3";
const TO = "v1.37.2";
/** The etcd kubeadm v1.37 pairs with v1.37 (and v1.36): `SupportedEtcdVersion`. */
const ETCD_IMAGE = "registry.k8s.io/etcd:3.7.0-0";
const COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.14.6";
const COMPONENTS = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"];
const IGNORE = `--ignore-preflight-errors=${PREFLIGHT_IGNORED_CONTROL_PLANE}`;
/** The object the endpoint client reads. */
const MARKER = ["-n", "default", "configmap", "before-upgrade"];

// deno-lint-ignore no-explicit-any
const json = (node: ClusterNode, args: string[]): Promise<any> => kubectlJson(node, args);

function ok(r: RunResult, what: string) {
  assert.equal(r.code, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);
}

/** The control-plane mirror Pods of a node, by component. */
async function controlPlanePods(apiNode: ClusterNode, node: ClusterNode) {
  const out = new Map<string, Pod>();
  for (const c of CONTROL_PLANE_PODS) {
    out.set(c, await json(apiNode, ["-n", "kube-system", "get", "pod", `${c}-${node.name}`]));
  }
  return out;
}

const containerId = (p: Pod) =>
  p.status?.containerStatuses?.[0]?.containerID?.replace(/^containerd:\/\//, "") ?? "";

/**
 * Asserts that `expected` occur in `messages` in this order (others may come between); an
 * array stands for any one of its messages.
 */
function assertInOrder(messages: string[], expected: (string | string[])[]) {
  let at = 0;
  for (const m of expected) {
    const i = messages.findIndex((l, n) =>
      n >= at && (typeof m === "string" ? l === m : m.includes(l))
    );
    assert.ok(i >= 0, `missing, or out of order: ${m}\n--- logged:\n${messages.join("\n")}`);
    at = i + 1;
  }
}

/** A node's `/etc/kubernetes` by modification time (to see that nothing was written). */
function tree(node: ClusterNode): Promise<Map<string, string>> {
  return fileTree(node.path("/etc/kubernetes"), mtimeOf);
}

/** The kubelet config backups `upgrade` made (`/etc/kubernetes/tmp/kubeadm-kubelet-config*`). */
async function kubeletBackups(node: ClusterNode): Promise<string[]> {
  const names = await Array.fromAsync(Deno.readDir(node.path("/etc/kubernetes/tmp")))
    .catch(() => []);
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
  const r = await node.exec([`${node.binDir}/kubeadm`, ...args]);
  await assertOk(node, `upstream ${args.join(" ")}`, r);
  assert.match(r.stdout, /The kubelet configuration for this node was successfully upgraded!/);
  assert.deepEqual(await kubeletFiles(node), ours);
}

/** kubeadm-config's and kubelet-config's data. */
async function configMaps(node: ClusterNode) {
  return {
    kubeadm: (await json(node, ["-n", "kube-system", "get", "cm", "kubeadm-config"])).data,
    kubelet: (await json(node, ["-n", "kube-system", "get", "cm", "kubelet-config"])).data,
  };
}

/** etcd's members as `[name, learner, peer URL]`, sorted. */
async function membership(cp: ClusterNode) {
  return (await etcdMembers(cp)).map((m) => [m.name, m.isLearner ?? false, m.peerURLs[0]]).sort();
}

Deno.test({
  name:
    `upgrade ${FROM} → ${TO} of three stacked-etcd control planes and a worker behind HAProxy; ` +
    "certs renew all; reset of a control plane",
  ...e2e,
  async fn(ctx) {
    const t = loudSteps(ctx);
    const usage = await sampleHostUsage();
    let ha: HaCluster | undefined;
    let client: EndpointClient | undefined;
    try {
      // ---- a v1.36 cluster by our init and joins, behind the load balancer ----------------
      const booted = performance.now();
      ha = await createHaCluster(FROM);
      const { cps, worker, nodes, endpoint, lb } = ha;
      const [cp1, cp2, cp3] = cps;
      const builtS = (performance.now() - booted) / 1000;
      ok(
        await cp1.kubectl([
          "-n",
          "default",
          "create",
          "configmap",
          MARKER[3],
          "--from-literal=k=v",
        ]),
        "create the marker ConfigMap",
      );

      await t.step("three voting etcd members, one per control plane", async () => {
        assert.deepEqual(
          await membership(cp1),
          cps.map((cp) => [cp.name, false, `https://${cp.ip}:2380`]),
        );
        const health = await etcdctl(cp1, [
          `--endpoints=${cps.map((cp) => `https://${cp.ip}:2379`).join(",")}`,
          "endpoint",
          "health",
        ]);
        ok(health, "etcdctl endpoint health");
        assert.equal((health.stdout.match(/is healthy/g) ?? []).length, 3, health.stdout);
      });

      await t.step(
        "kubeconfigs name the endpoint; the API servers' certificates carry it",
        async () => {
          for (const cp of cps) {
            const admin = await Deno.readTextFile(cp.path("/etc/kubernetes/admin.conf"));
            assert.match(admin, new RegExp(`server: https://${endpoint}\n`));
            const sans = await cp.exec([
              "openssl",
              "x509",
              "-noout",
              "-ext",
              "subjectAltName",
              "-in",
              "/etc/kubernetes/pki/apiserver.crt",
            ]);
            assert.match(sans.stdout, new RegExp(`DNS:${endpoint.split(":")[0]}[,\n]`));
          }
          const kubelet = await Deno.readTextFile(worker.path("/etc/kubernetes/kubelet.conf"));
          assert.match(kubelet, new RegExp(`server: https://${endpoint}\n`));
        },
      );

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

      // The admin pre-pulls the target's images (no registry here: the local archives).
      for (const n of nodes) await importImages(n, TO, n === worker ? "worker" : "control-plane");

      await t.step(`plan, offline, shows ${TO} for every node, as upstream's plan`, async () => {
        // No version: offline, release labels fall back to kubeadm's own version.
        const offline = await cp1.kubeadm(["upgrade", "plan"]);
        ok(offline, "upgrade plan");
        assert.match(offline.stdout, /^\[upgrade\/versions\] Cluster version: 1\.36\.3$/m);
        assert.match(offline.stdout, /^\[upgrade\/versions\] Target version: v1\.37\.2$/m);
        for (const cp of cps) {
          assert.match(
            offline.stdout,
            new RegExp(`^kube-apiserver\\s+${cp.name}\\s+v1\\.36\\.3\\s+v1\\.37\\.2$`, "m"),
          );
          assert.match(
            offline.stdout,
            new RegExp(`^etcd\\s+${cp.name}\\s+3\\.7\\.0-0\\s+3\\.7\\.0-0$`, "m"),
          );
        }
        assert.match(offline.stdout, /^kubelet\s+worker1\s+v1\.36\.3\s+v1\.37\.2$/m);
        assert.match(offline.stdout, /^\tkubeadm upgrade apply v1\.37\.2$/m);
        assert.match(offline.stderr, /falling back to the local client version: v1\.37\.2/);
        // Upstream kubeadm v1.37.2 on the same node, as offline, prints the same plan.
        const upstream = await cp1.exec([`${cp1.binDir}/kubeadm`, "upgrade", "plan"]);
        await assertOk(cp1, "upstream upgrade plan", upstream);
        assert.equal(offline.stdout, upstream.stdout);

        const asJson = await cp1.kubeadm(["upgrade", "plan", TO, IGNORE, "-o", "json"]);
        ok(asJson, "upgrade plan -o json");
        const obj = JSON.parse(asJson.stdout);
        assert.equal(obj.kind, "UpgradePlan");
        assert.equal(obj.availableUpgrades[0].components[0].newVersion, TO);
        // The template printers see the same object.
        const tmpl = await cp1.kubeadm([
          "upgrade",
          "plan",
          TO,
          IGNORE,
          "-o",
          'go-template={{range .availableUpgrades}}{{range .components}}{{.name}} {{.newVersion}}{{"\\n"}}{{end}}{{end}}',
        ]);
        ok(tmpl, "upgrade plan -o go-template");
        assert.equal(
          tmpl.stdout,
          obj.availableUpgrades.flatMap((
            u: { components: { name: string; newVersion: string }[] },
          ) => u.components.map((c) => `${c.name} ${c.newVersion}\n`)).join(""),
        );
        const path = await cp1.kubeadm([
          "upgrade",
          "plan",
          TO,
          IGNORE,
          "-o",
          "jsonpath={.availableUpgrades[0].components[0].newVersion}",
        ]);
        ok(path, "upgrade plan -o jsonpath");
        assert.equal(path.stdout, TO);
      });

      await t.step("bad input: out of skew, a downgrade, an unreachable API server", async () => {
        const before = await tree(cp1);
        const cmBefore = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
        const bad = await cp1.kubeadm(["upgrade", "apply", "v1.37", "--yes", IGNORE]);
        assert.equal(bad.code, 3, bad.stderr);
        assert.match(bad.stderr, /version "v1\.37" doesn't match patterns/);
        const high = await cp1.kubeadm(["upgrade", "apply", "v1.38.0", "--yes", IGNORE]);
        assert.notEqual(high.code, 0);
        assert.match(high.stderr, /the version argument is invalid due to these fatal errors/);
        assert.match(high.stderr, /Specified version to upgrade to "v1\.38\.0" is too high/);
        const down = await cp1.kubeadm(["upgrade", "apply", "v1.35.9", "--yes", IGNORE]);
        assert.notEqual(down.code, 0);
        assert.match(
          down.stderr,
          /this version of kubeadm only supports deploying clusters with the control plane version >= 1\.36\.0\. Current version: v1\.35\.9/,
        );
        const bogus = `${cp1.machine.dir}/unreachable.conf`;
        const admin = await Deno.readTextFile(cp1.path("/etc/kubernetes/admin.conf"));
        await Deno.writeTextFile(bogus, admin.replace(/server: .*/, "server: https://127.0.0.1:1"));
        const unreachable = await cp1.kubeadm([
          "upgrade",
          "apply",
          TO,
          "--yes",
          "--kubeconfig",
          bogus,
        ]);
        assert.notEqual(unreachable.code, 0);
        assert.match(unreachable.stderr, /kubeadm-config|connection refused|127\.0\.0\.1:1/);
        assert.deepEqual(await tree(cp1), before, "nothing changed");
        const cmAfter = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
        assert.equal(cmAfter.metadata.resourceVersion, cmBefore.metadata.resourceVersion);
      });

      await t.step("--dry-run changes nothing on disk or in the cluster", async () => {
        const before = await tree(cp1);
        const kubeletBefore = await kubeletFiles(cp1);
        const cmBefore = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
        const dry = await cp1.kubeadm(["upgrade", "apply", TO, "--dry-run", IGNORE]);
        ok(dry, "apply --dry-run");
        assert.match(
          dry.stdout,
          /\[dryrun\] Would write file "\/etc\/kubernetes\/manifests\/kube-apiserver\.yaml" with content:/,
        );
        assert.match(dry.stdout, /image: registry\.k8s\.io\/kube-apiserver:v1\.37\.2/);
        assert.match(dry.stdout, /\[upgrade\/successful\] Finished dryrunning successfully!/);
        assert.deepEqual(await tree(cp1), before);
        assert.deepEqual(await kubeletFiles(cp1), kubeletBefore);
        const cmAfter = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
        assert.equal(cmAfter.metadata.resourceVersion, cmBefore.metadata.resourceVersion);
      });

      // Golden: plan, diff and apply --dry-run as upstream kubeadm v1.37.2's, at --v=4 (stdout
      // is the same at any level): the log lines are upstream's too. A step each, so that one
      // difference does not hide the others.
      const v = "--v=4";
      await t.step("golden: plan (table and yaml) as upstream's, --v=4 lines too", async () => {
        for (const args of [["plan", TO, IGNORE], ["plan", TO, IGNORE, "-o", "yaml"]]) {
          const r = await oursAndUpstream(cp1, ["upgrade", ...args, v]);
          assert.equal(r.ours, r.theirs, `upgrade ${args.join(" ")}`);
          const log = assertLogAsUpstream(r);
          assert.ok(
            log.includes("[upgrade/plan] computing upgrade possibilities"),
            log.join("\n"),
          );
        }
      });

      await t.step("golden: diff as upstream's, --v=4 lines too", async () => {
        const diff = await oursAndUpstream(cp1, ["upgrade", "diff", TO, v]);
        assert.deepEqual(diffInFileOrder(diff.ours), diffInFileOrder(diff.theirs));
        assert.equal(diffInFileOrder(diff.ours).filter((b) => b.startsWith("--- ")).length, 3);
        assertLogAsUpstream(diff);
      });

      await t.step("golden: apply --dry-run as upstream's, --v=4 lines too", async () => {
        const r = await oursAndUpstream(cp1, ["upgrade", "apply", TO, "--dry-run", IGNORE, v]);
        const ours = assertDryRunAsUpstream(r);
        assert.equal(ours.files.size, 5, "three manifests, instance-config.yaml, config.yaml");
        const log = assertLogAsUpstream(r);
        assert.ok(
          log.includes("[upgrade/preflight] Verifying the cluster health"),
          log.join("\n"),
        );
      });

      await t.step("a kube-apiserver that does not start is rolled back", async () => {
        // --patches names a directory on the node (the node sees the host's /tmp).
        const patches = `${cp1.machine.dir}/patches-broken`;
        await Deno.mkdir(patches);
        await Deno.writeTextFile(
          `${patches}/kube-apiserver+json.yaml`,
          "- op: add\n  path: /spec/containers/0/command/-\n  value: --no-such-flag=1\n",
        );
        const upgradeCfg = `${cp1.machine.dir}/upgrade-fast.yaml`;
        await Deno.writeTextFile(
          upgradeCfg,
          // As upstream, --patches cannot be mixed with --config: the directory goes in the file.
          `apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\napply:\n  patches:\n    directory: ${patches}\ntimeouts:\n  upgradeManifests: 40s\n`,
        );
        const r = await cp1.kubeadm([
          "upgrade",
          "apply",
          TO,
          "--yes",
          IGNORE,
          "--config",
          upgradeCfg,
        ]);
        assert.notEqual(r.code, 0, r.stdout);
        assert.match(
          r.stderr,
          /couldn't upgrade control plane\. kubeadm has tried to recover everything into the earlier state/,
        );
        assert.match(r.stderr, /kube-apiserver/);
        const manifest = await Deno.readTextFile(
          cp1.path("/etc/kubernetes/manifests/kube-apiserver.yaml"),
        );
        assert.match(manifest, /kube-apiserver:v1\.36\.3/);
        assert.doesNotMatch(manifest, /no-such-flag/);
        await waitFor(
          "cp1's API server serving again",
          async () => await readyz(cp1) === "ok",
          180_000,
        );
      });

      // From here on the endpoint is read every 200 ms: no request may fail.
      client = startEndpointClient(
        worker,
        cp1.path("/etc/kubernetes/admin.conf"),
        ["configmap", "-n", "default", MARKER[3]],
        { onFailure: (f) => keepControlPlaneLogs(cps, f.at) },
      );
      const upgradeStarted = performance.now();
      const before = await controlPlanePods(cp1, cp1);

      await t.step(
        "apply on cp1, killed inside the static-Pod swap, then run again, converges",
        async () => {
          // SIGKILLed right after the new kube-apiserver manifest replaced the old one (etcd
          // already restarted on its renewed certificates), before kubeadm waits for it. cp1
          // is out of the load balancer's rotation meanwhile, as every control plane while
          // its static Pods restart (inMaintenance).
          const [killed, again] = await inMaintenance(lb, cp1, async () => [
            await cp1.kubeadm(["upgrade", "apply", TO, "--yes", IGNORE], {
              env: {
                [FAULT_INJECT_ENV]: "kill@moved:/etc/kubernetes/manifests/kube-apiserver.yaml",
              },
            }),
            await cp1.kubeadm(["upgrade", "apply", TO, "--yes", IGNORE, "--v=4"]),
          ]);
          assert.notEqual(killed.code, 0, killed.stdout);
          assert.match(killed.stderr, /fault injection: kill at moved:/);
          assert.match(killed.stdout, /\[upgrade\/staticpods\] Renewing etcd-server certificate/);
          assert.match(killed.stdout, /\[upgrade\/staticpods\] Restarting the etcd static pod/);
          ok(again, "apply (re-run)");
          // A real apply cannot run twice to compare with upstream's (its dry run is compared
          // above); its own steps log upstream's lines, in upstream's order.
          assertInOrder(klogMessages(again.stderr), [
            "[upgrade] retrieving configuration from cluster",
            "[upgrade/preflight] Verifying the cluster health",
            "[upgrade/preflight] Validating requested and actual version",
            `etcd endpoints read from pods: ${cps.map((c) => `https://${c.ip}:2379`).join(",")}`,
            "[control-plane] creating static Pod files",
            "[upgrade/upload-config] Uploading the kubeadm ClusterConfiguration to a ConfigMap",
            "[upgrade/upload-config] Uploading the kubelet configuration to a ConfigMap",
            `Skipping update of the Server URL in /etc/kubernetes/kubelet.conf, because it's already not equal to "https://${endpoint}" or already matches the localAPIEndpoint`,
            "creating the RBAC rules for exposing the cluster-info ConfigMap in the kube-public namespace",
          ]);
          for (const c of ["kube-controller-manager", "kube-scheduler"]) {
            assert.match(
              again.stdout,
              new RegExp(`\\[upgrade/staticpods\\] Component "${c}" upgraded successfully!`),
            );
          }
          assert.match(
            again.stdout,
            /\[upgrade\] SUCCESS! A control plane node of your cluster was upgraded to "v1\.37\.2"\./,
          );
          assert.match(
            again.stdout,
            /\[upgrade\/addon\] Skipping upgrade of addons because control plane instances \[cp2 cp3\] have not been upgraded/,
          );
          const backups = [...(await fileTree(cp1.path("/etc/kubernetes/tmp"), mtimeOf)).keys()];
          assert.ok(
            backups.some((p) =>
              /^\/kubeadm-backup-manifests-\d{4}(-\d\d){5}\/kube-apiserver\.yaml$/.test(p)
            ),
            backups.join("\n"),
          );
        },
      );

      await t.step(
        "cp1's static Pods run the v1.37.2 images (etcd the one v1.37 pairs), Running and Ready, in new containers; the old ones stopped",
        async () => {
          for (const c of COMPONENTS) {
            const m = await Deno.readTextFile(cp1.path(`/etc/kubernetes/manifests/${c}.yaml`));
            assert.match(m, new RegExp(`image: registry\\.k8s\\.io/${c}:v1\\.37\\.2\n`));
          }
          const etcd = await Deno.readTextFile(cp1.path("/etc/kubernetes/manifests/etcd.yaml"));
          assert.match(etcd, new RegExp(`image: ${ETCD_IMAGE.replaceAll(".", "\\.")}\n`));
          await assertStaticPodsMirrored(cp1, cp1);
          const after = await controlPlanePods(cp1, cp1);
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
        },
      );

      await t.step("node on cp2: the addons wait for the last control plane", async () => {
        const r = await inMaintenance(
          lb,
          cp2,
          () => cp2.kubeadm(["upgrade", "node", IGNORE, "--v=2"]),
        );
        ok(r, "upgrade node (cp2)");
        assertInOrder(klogMessages(r.stderr), [
          "[control-plane] creating static Pod files",
          `Skipping update of the Server URL in /etc/kubernetes/kubelet.conf, because it's already not equal to "https://${endpoint}" or already matches the localAPIEndpoint`,
        ]);
        assert.match(
          r.stdout,
          /\[upgrade\/addon\] Skipping upgrade of addons because control plane instances \[cp3\] have not been upgraded/,
        );
      });

      // The addons take the kubeproxydaemonset and corednsdeployment patches (v1.37).
      const patches = `${cp3.machine.dir}/patches-addons`;
      await Deno.mkdir(patches);
      await Deno.writeTextFile(
        `${patches}/kubeproxydaemonset+merge.yaml`,
        'metadata:\n  labels:\n    patched: "kube-proxy"\n',
      );
      await Deno.writeTextFile(
        `${patches}/corednsdeployment.yaml`,
        'metadata:\n  labels:\n    patched: "coredns"\n',
      );

      // A step of its own: the real run goes on if the golden comparison fails.
      await t.step("node --dry-run on cp3 as upstream's, --v=4 lines too", async () => {
        const dry = await oursAndUpstream(cp3, [
          "upgrade",
          "node",
          "--dry-run",
          IGNORE,
          "--patches",
          patches,
          "--v=4",
        ]);
        assertDryRunAsUpstream(dry);
        assertLogAsUpstream(dry);
      });

      await t.step("node on cp3: the last control plane upgrades the addons", async () => {
        const r = await inMaintenance(
          lb,
          cp3,
          () => cp3.kubeadm(["upgrade", "node", IGNORE, "--patches", patches, "--v=2"]),
        );
        ok(r, "upgrade node (cp3)");
        // cp3's kubelet.conf already points at cp3's own API server (kubeadm's local mode).
        const endpoints = cps.map((n) => `https://${n.ip}:2379`);
        assertInOrder(klogMessages(r.stderr), [
          "[control-plane] creating static Pod files",
          // etcd's member list gives the endpoints' order: any.
          permutations(endpoints).map((e) =>
            `[etcd] attempting to see if all cluster endpoints ([${
              e.join(" ")
            }]) are available 1/10`
          ),
          `Skipping update of the Server URL in /etc/kubernetes/kubelet.conf, because it's already not equal to "https://${endpoint}" or already matches the localAPIEndpoint`,
        ]);
        assert.match(r.stdout, /\[addons\] Applied essential addon: CoreDNS/);
        assert.match(r.stdout, /\[addons\] Applied essential addon: kube-proxy/);
        assert.match(
          r.stdout,
          /\[patches\] Applied patch of type "application\/merge-patch\+json" to target "kubeproxydaemonset"/,
        );
        const ds = await json(cp1, ["-n", "kube-system", "get", "ds", "kube-proxy"]);
        assert.equal(ds.spec.template.spec.containers[0].image, `registry.k8s.io/kube-proxy:${TO}`);
        assert.equal(ds.metadata.labels.patched, "kube-proxy");
        const dns = await json(cp1, ["-n", "kube-system", "get", "deploy", "coredns"]);
        assert.equal(dns.metadata.labels.patched, "coredns");
      });

      await t.step("node --dry-run on the worker as upstream's, --v=4 lines too", async () => {
        const dry = await oursAndUpstream(worker, [
          "upgrade",
          "node",
          "--dry-run",
          `--ignore-preflight-errors=${PREFLIGHT_IGNORED_WORKER}`,
          "--v=4",
        ]);
        assertDryRunAsUpstream(dry);
        assertLogAsUpstream(dry);
      });

      await t.step("node on the worker: its kubelet config, as upstream's", async () => {
        const r = await worker.kubeadm([
          "upgrade",
          "node",
          `--ignore-preflight-errors=${PREFLIGHT_IGNORED_WORKER}`,
        ]);
        await assertOk(worker, "upgrade node (worker)", r);
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
      });

      await t.step(`the admin upgrades every kubelet to ${TO}, one node at a time`, async () => {
        for (const n of nodes) {
          if (n === worker) {
            await upgradeKubelet(cp1, n, TO);
            continue;
          }
          // The new kubelet starts every static Pod again (under new Pod UIDs) seconds after
          // the Node reports it: the control plane stays out of rotation until they run, in
          // new containers.
          const old = await controlPlanePods(cp1, n);
          await inMaintenance(lb, n, async () => {
            await upgradeKubelet(cp1, n, TO);
            await waitFor(`${n.name}'s static Pods running again, in new containers`, async () => {
              const now = await controlPlanePods(cp1, n);
              const tasks = await containerdTasks(n);
              return CONTROL_PLANE_PODS.every((c) => {
                const id = containerId(now.get(c)!);
                return id !== containerId(old.get(c)!) && tasks.get(id) === "RUNNING" &&
                  now.get(c)!.status?.containerStatuses?.[0]?.ready === true;
              });
            }, 180_000);
          });
        }
      });
      const upgradeS = (performance.now() - upgradeStarted) / 1000;
      const upgradeRequests = client.requests;
      const upgradeFailures = [...client.failures];

      await t.step(
        "every static Pod runs v1.37.2, etcd kept its data, the endpoint answered every request",
        async () => {
          for (const cp of cps) {
            await assertStaticPodsMirrored(cp1, cp);
            for (const c of COMPONENTS) {
              const m = await Deno.readTextFile(cp.path(`/etc/kubernetes/manifests/${c}.yaml`));
              assert.match(m, new RegExp(`image: registry.k8s.io/${c}:v1\\.37\\.2`));
            }
          }
          const pods = await kubeSystemPods(cp1, "tier=control-plane");
          assert.equal(pods.length, 12);
          for (const p of pods) {
            if (p.metadata?.labels?.component === "etcd") continue;
            assert.match(p.spec!.containers[0].image!, /:v1\.37\.2$/, `${p.metadata?.name}`);
          }
          const marker = await json(cp1, ["-n", "default", "get", "cm", MARKER[3]]);
          assert.deepEqual(marker.data, { k: "v" });
          const v = JSON.parse((await cp1.kubectl(["version", "-o", "json"])).stdout);
          assert.equal(v.serverVersion.gitVersion, TO);
          assert.deepEqual(
            upgradeFailures,
            [],
            `${upgradeFailures.length} of ${upgradeRequests} requests through the endpoint failed` +
              `; the load balancer's log of them and of its servers' states:\n${
                slowRequestsAndStates(await lb.log(), worker.ip)
              }`,
          );
          assert.ok(upgradeRequests > 100, `only ${upgradeRequests} requests`);
        },
      );

      await t.step(
        "kubeadm-config says v1.37.2; kubeadm-config and kubelet-config are what upstream uploads",
        async () => {
          const ours = await configMaps(cp1);
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
          assert.deepEqual(ours, await configMaps(cp1));
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
          await waitFor("kube-proxy rolled out on every node", async () => {
            const ds = await json(cp1, ["-n", "kube-system", "get", "daemonset", "kube-proxy"]);
            assert.equal(
              ds.spec.template.spec.containers[0].image,
              `registry.k8s.io/kube-proxy:${TO}`,
            );
            const s = ds.status;
            return s.observedGeneration === ds.metadata.generation &&
              s.desiredNumberScheduled === nodes.length &&
              s.updatedNumberScheduled === nodes.length && s.numberAvailable === nodes.length;
          }, 300_000);
          // The DaemonSet counts the new Pods available while an old one may still be
          // terminating: wait until only the new ones are left.
          let proxies: [string | undefined, string | undefined][] = [];
          await waitFor("only the new kube-proxy Pods left", async () => {
            proxies = (await kubeSystemPods(cp1, "k8s-app=kube-proxy"))
              .filter((p) => !p.metadata?.deletionTimestamp)
              .map((p) => [p.status?.phase, p.status?.containerStatuses?.[0]?.image]);
            return proxies.length === nodes.length &&
              proxies.every(([phase, image]) =>
                phase === "Running" && image === `registry.k8s.io/kube-proxy:${TO}`
              );
          }, 180_000);
          assert.deepEqual(
            proxies.sort(),
            Array(nodes.length).fill(["Running", `registry.k8s.io/kube-proxy:${TO}`]),
          );
          await waitFor("CoreDNS Available", async () => {
            const d = await json(cp1, ["-n", "kube-system", "get", "deployment", "coredns"]);
            assert.equal(d.spec.template.spec.containers[0].image, COREDNS_IMAGE);
            const available = d.status?.conditions?.find((c: { type: string }) =>
              c.type === "Available"
            );
            return available?.status === "True" && d.status.updatedReplicas === 2 &&
              d.status.availableReplicas === 2;
          }, 240_000);
        },
      );

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
          // Upstream's own v1.37.2 manifests would change nothing in ours, on any control plane.
          for (const cp of cps) {
            const diff = await cp.exec([upstream, "upgrade", "diff", TO]);
            await assertOk(cp, "upstream upgrade diff", diff);
            assert.doesNotMatch(diff.stdout, /^(---|\+\+\+|@@) /m, diff.stdout);
            assert.match(diff.stdout, /^\[upgrade\/diff\] Reading configuration/m);
          }
        },
      );

      await t.step("the old containers are removed", async () => {
        const old = CONTROL_PLANE_PODS.map((c) => containerId(before.get(c)!));
        await waitFor("the kubelet's garbage collector removing the old containers", async () => {
          const left = await containerdContainers(cp1);
          return old.every((id) => !left.includes(id));
        }, 180_000);
      });

      const renewStarted = performance.now();
      await t.step(
        "certs renew all on each control plane, its static Pods restarted one node at a time",
        async () => {
          for (const cp of cps) {
            const pki = cp.path("/etc/kubernetes/pki");
            const old = await Deno.readTextFile(`${pki}/apiserver.crt`);
            const r = await cp.kubeadm(["certs", "renew", "all"]);
            ok(r, `certs renew all (${cp.name})`);
            // A joined control plane has no super-admin.conf: upstream's MISSING! line.
            assert.equal((r.stdout.match(/ renewed\n/g) ?? []).length, cp === cp1 ? 11 : 10);
            if (cp !== cp1) assert.match(r.stdout, /^MISSING! .*super-admin/m);
            assert.notEqual(await Deno.readTextFile(`${pki}/apiserver.crt`), old);
            await checkPkiDir(pki);
            await checkKubeconfigClients(
              ["admin.conf", "super-admin.conf", "controller-manager.conf", "scheduler.conf"]
                .filter((f) => cp === cp1 || f !== "super-admin.conf")
                .map((f) => cp.path(`/etc/kubernetes/${f}`)),
              `${pki}/ca.crt`,
            );
            // inMaintenance waits for the API server to be ready again.
            await inMaintenance(lb, cp, async () => {
              for (const c of CONTROL_PLANE_PODS) await restartStaticPod(cp, c);
            });
            await assertStaticPodsMirrored(cp1, cp);
            // kubectl works with the renewed admin.conf, through the endpoint.
            ok(await cp.kubectl(["get", "nodes"]), `kubectl with ${cp.name}'s renewed admin.conf`);
          }
        },
      );
      const renewS = (performance.now() - renewStarted) / 1000;

      await t.step("reset of cp3 removes its etcd member; the cluster stays healthy", async () => {
        // Out of the load balancer first, for good.
        await lb.drain(cp3);
        const r = await cp3.kubeadm(["reset", "--force"]);
        ok(r, "reset (cp3)");
        assert.deepEqual(
          await membership(cp1),
          [cp1, cp2].map((cp) => [cp.name, false, `https://${cp.ip}:2380`]),
        );
        for (const cp of [cp1, cp2]) assert.equal(await readyz(cp), "ok");
        const verbose = await cp1.kubectl(["get", "--raw", "/readyz?verbose"]);
        ok(verbose, "readyz through the endpoint");
        assert.match(verbose.stdout, /\[\+\]etcd ok/);
        // Quorum of the two left: a write goes through.
        ok(
          await cp1.kubectl(["-n", "default", "create", "configmap", "after-reset"]),
          "a write after the reset",
        );
        assert.equal(cp3.machine.services.isActive("kubelet"), false);
      });

      const report = await client.stop();
      client = undefined;
      const cost = await usage.stop();
      console.log(
        [
          `HA cluster (3 control planes, 1 worker) built in ${builtS.toFixed(0)} s`,
          `upgrade ${FROM} -> ${TO} (apply, killed and re-run; node x3; kubelets x4): ${
            upgradeS.toFixed(0)
          } s, ${upgradeFailures.length} of ${upgradeRequests} requests through the endpoint failed`,
          `certs renew all + restarts on 3 control planes: ${
            renewS.toFixed(0)
          } s; whole run: ${report.failures.length} of ${report.requests} requests failed, slowest ${
            (report.slowestMs / 1000).toFixed(1)
          } s`,
          `host: memory ${cost.baselineGiB.toFixed(1)} GiB before, peak ${
            cost.peakGiB.toFixed(1)
          } GiB (+${cost.addedGiB.toFixed(1)}); CPU ${
            (cost.meanBusy * 100).toFixed(0)
          }% busy of ${cost.cores} cores on average, load peak ${cost.peakLoad.toFixed(1)}`,
        ].join("\n"),
      );
      assert.deepEqual(report.failures, [], "requests through the endpoint failed");
    } finally {
      await client?.stop();
      await ha?.stop();
      await usage.stop();
    }
  },
});

/**
 * With `KTS_E2E_LOG_DIR` set, copies the control planes' static Pods' logs into
 * `<dir>/<at>/<node>/` (a failed request's evidence: a later restart removes these logs).
 */
async function keepControlPlaneLogs(cps: ClusterNode[], at: string): Promise<void> {
  const dir = Deno.env.get("KTS_E2E_LOG_DIR");
  if (!dir) return;
  for (const cp of cps) {
    const to = `${dir}/${at}/${cp.name}`;
    await Deno.mkdir(to, { recursive: true });
    const pods = cp.path("/var/log/pods");
    for await (const e of Deno.readDir(pods)) {
      if (!/_(etcd|kube-apiserver|kube-controller-manager|kube-scheduler)-/.test(e.name)) continue;
      const r = await new Deno.Command("cp", { args: ["-r", `${pods}/${e.name}`, to] }).output();
      if (!r.success) console.error(`keeping ${e.name}: ${new TextDecoder().decode(r.stderr)}`);
    }
  }
}

/**
 * HAProxy's log lines of `client`'s connections that lasted 30 s (give or take one: when the
 * endpoint client gives up; the kubelet's watches last longer), and of its servers going down
 * or up.
 */
function slowRequestsAndStates(log: string, client: string): string {
  return log.split("\n").filter((l) => {
    if (/^<\d>Server .* is (DOWN|UP)/.test(l)) return true;
    const m = l.match(/^<\d>(\S+):\d+ \[.*\] \S+ \S+ -?\d+\/-?\d+\/(\d+) /);
    return m !== null && m[1] === client && Math.abs(Number(m[2]) - 30_000) < 1_000;
  }).join("\n");
}

/** Every order of `xs`. */
function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) =>
    permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])
  );
}
