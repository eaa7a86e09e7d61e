// End to end: `kubeadm upgrade` from v1.36 to v1.37 on a real HA control plane built by our
// own `init` and `join`: two control-plane nodes with stacked etcd and a worker, each in its
// own network namespace with the kubelet stand-in, which runs the v1.36.3 or v1.37.2 binaries
// a static Pod's image tag names.
//
// plan shows v1.37.2 → apply on cp1 (rollback on a broken patch first; --dry-run changes
// nothing; a killed run re-run converges) → node on cp2 (the addons follow, cp2 being the last
// control plane) → node on the worker. Afterwards every component runs the v1.37 binaries,
// etcd kept its data, the API answered throughout (through either control plane, as behind a
// load balancer), and kubeadm-config and kubelet-config are what upstream kubeadm v1.37.2
// uploads for the same cluster.
import assert from "node:assert/strict";
import {
  componentSetDir,
  createTestNode,
  initControlPlane,
  kubeadmLauncher,
  run,
  type TestNode,
  uploadCerts,
  waitFor,
} from "../support/control_plane.ts";
import { fileTree, mtimeOf } from "../support/file_tree.ts";
import { klogMessages } from "../support/klog_lines.ts";
import { opensslSpkiSha256 } from "../support/openssl.ts";
import {
  assertDryRunAsUpstream,
  assertLogAsUpstream,
  diffInFileOrder,
  oursAndUpstream,
} from "../support/upgrade_golden.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const TOKEN = "abcdef.0123456789abcdef";
const FROM = "v1.36.3";
const TO = "v1.37.2";
const COMPONENTS = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"];

async function json(node: TestNode, args: string[]) {
  const r = await node.kubectl([...args, "-o", "json"]);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function ok(r: { code: number; stdout: string; stderr: string }, what: string) {
  assert.equal(r.code, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);
}

/** The binary each control-plane process of a node runs (from /proc), by component. */
async function runningBinaries(node: TestNode): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const cmd = (await Deno.readTextFile(`/proc/${e.name}/cmdline`)).split("\0");
      // The stand-in maps every path flag under the node's root (`--kubeconfig=<root>/…`).
      if (!cmd.some((a) => a.includes(`${node.rootfs}/`))) continue;
      const bin = cmd[0].split("/").pop()!;
      if (COMPONENTS.includes(bin) || bin === "etcd") out.set(bin, cmd[0]);
    } catch {
      // gone
    }
  }
  return out;
}

/** Polls the API through either control plane (as a load balancer would); counts outages. */
function apiWatch(cps: TestNode[]) {
  let stop = false;
  let outages = 0;
  let polls = 0;
  const loop = (async () => {
    while (!stop) {
      polls++;
      let served = false;
      for (const cp of cps) {
        const r = await run([
          `${cp.binDir}/kubectl`,
          "--kubeconfig",
          `${cps[0].rootfs}/etc/kubernetes/admin.conf`,
          "--server",
          `https://${cp.ns.address}:6443`,
          "--request-timeout=5s",
          "get",
          "nodes",
        ], { ns: cps[0].ns });
        if (r.code === 0) {
          served = true;
          break;
        }
      }
      if (!served) outages++;
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    async done() {
      stop = true;
      await loop;
      return { outages, polls };
    },
  };
}

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

function tree(root: string): Promise<Map<string, string>> {
  return fileTree(root, mtimeOf);
}

Deno.test({
  name: `upgrade: ${FROM} → ${TO} on two stacked-etcd control planes and a worker`,
  ...e2e,
  async fn(t) {
    const set37 = await componentSetDir(TO);
    const nodeOpts = { componentSet: FROM, tagSets: [FROM, TO], kubeletVersion: FROM };
    const nodes: TestNode[] = [];
    try {
      // ---- a v1.36 cluster by our init and join -------------------------------------------
      const cp1 = await createTestNode("cp1", nodeOpts);
      nodes.push(cp1);
      const endpoint = `${cp1.ns.address}:6443`;
      const clusterLines = `controlPlaneEndpoint: ${endpoint}\nkubernetesVersion: ${FROM}\n`;
      await initControlPlane(cp1, clusterLines);
      const pin = `sha256:${await opensslSpkiSha256(
        await Deno.readTextFile(`${cp1.rootfs}/etc/kubernetes/pki/ca.crt`),
      )}`;
      await waitFor("cluster-info signed", async () => {
        const cm = await json(cp1, ["-n", "kube-public", "get", "cm", "cluster-info"]);
        return Boolean(cm.data?.["jws-kubeconfig-abcdef"]);
      }, 90_000);
      const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
      await uploadCerts(cp1, key, clusterLines);
      const cp2 = await createTestNode("cp2", { ...nodeOpts, linkTo: [cp1] });
      nodes.push(cp2);
      await cp2.startStandin();
      const discovery = ["--token", TOKEN, "--discovery-token-ca-cert-hash", pin];
      ok(
        await cp2.kubeadm([
          "join",
          endpoint,
          ...discovery,
          "--control-plane",
          "--certificate-key",
          key,
          "--apiserver-advertise-address",
          cp2.ns.address,
          "--node-name",
          "cp2",
          "--ignore-preflight-errors=all",
        ]),
        "control-plane join",
      );
      const worker = await createTestNode("worker1", { ...nodeOpts, linkTo: [cp1, cp2] });
      nodes.push(worker);
      await worker.startStandin();
      ok(
        await worker.kubeadm([
          "join",
          endpoint,
          ...discovery,
          "--node-name",
          "worker1",
          "--ignore-preflight-errors=all",
        ]),
        "worker join",
      );
      await waitFor("three Ready nodes", async () => {
        const list = await json(cp1, ["get", "nodes"]);
        return list.items.length === 3 &&
          list.items.every((n: { status: { conditions: { type: string; status: string }[] } }) =>
            n.status.conditions.some((c) => c.type === "Ready" && c.status === "True")
          );
      }, 120_000);
      ok(
        await cp1.kubectl([
          "-n",
          "default",
          "create",
          "configmap",
          "before-upgrade",
          "--from-literal=k=v",
        ]),
        "create the marker ConfigMap",
      );
      const ignore =
        "--ignore-preflight-errors=ImagePull,SystemVerification,ContainerRuntimeVersion";

      await t.step("plan shows the upgrade to v1.37.2", async () => {
        const plan = await cp1.kubeadm(["upgrade", "plan", TO, ignore]);
        ok(plan, "upgrade plan");
        assert.match(plan.stdout, /\[upgrade\/versions\] Cluster version: 1\.36\.3/);
        assert.match(plan.stdout, /kube-apiserver\s+cp1\s+v1\.36\.3\s+v1\.37\.2/);
        assert.match(plan.stdout, /kube-apiserver\s+cp2\s+v1\.36\.3\s+v1\.37\.2/);
        assert.match(plan.stdout, /kubelet\s+worker1\s+v1\.36\.3\s+v1\.37\.2/);
        assert.match(plan.stdout, /\tkubeadm upgrade apply v1\.37\.2\n/);
        const asJson = await cp1.kubeadm(["upgrade", "plan", TO, ignore, "-o", "json"]);
        ok(asJson, "upgrade plan -o json");
        const obj = JSON.parse(asJson.stdout);
        assert.equal(obj.kind, "UpgradePlan");
        assert.equal(obj.availableUpgrades[0].components[0].newVersion, TO);
        // The template printers see the same object.
        const tmpl = await cp1.kubeadm([
          "upgrade",
          "plan",
          TO,
          ignore,
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
          ignore,
          "-o",
          "jsonpath={.availableUpgrades[0].components[0].newVersion}",
        ]);
        ok(path, "upgrade plan -o jsonpath");
        assert.equal(path.stdout, TO);
      });

      await t.step("bad input: out of skew, a downgrade, an unreachable API server", async () => {
        const before = await tree(`${cp1.rootfs}/etc/kubernetes`);
        const cmBefore = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
        const bad = await cp1.kubeadm(["upgrade", "apply", "v1.37", "--yes", ignore]);
        assert.equal(bad.code, 3, bad.stderr);
        assert.match(bad.stderr, /version "v1\.37" doesn't match patterns/);
        const high = await cp1.kubeadm(["upgrade", "apply", "v1.38.0", "--yes", ignore]);
        assert.notEqual(high.code, 0);
        assert.match(high.stderr, /the version argument is invalid due to these fatal errors/);
        assert.match(high.stderr, /Specified version to upgrade to "v1\.38\.0" is too high/);
        const down = await cp1.kubeadm(["upgrade", "apply", "v1.35.9", "--yes", ignore]);
        assert.notEqual(down.code, 0);
        assert.match(
          down.stderr,
          /this version of kubeadm only supports deploying clusters with the control plane version >= 1\.36\.0\. Current version: v1\.35\.9/,
        );
        const bogus = `${cp1.rootfs}/unreachable.conf`;
        const admin = await Deno.readTextFile(`${cp1.rootfs}/etc/kubernetes/admin.conf`);
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
        assert.deepEqual(await tree(`${cp1.rootfs}/etc/kubernetes`), before, "nothing changed");
        const cmAfter = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
        assert.equal(cmAfter.metadata.resourceVersion, cmBefore.metadata.resourceVersion);
      });

      await t.step("--dry-run changes nothing on disk or in the cluster", async () => {
        const before = await tree(`${cp1.rootfs}/etc/kubernetes`);
        const kubeletBefore = await tree(`${cp1.rootfs}/var/lib/kubelet`);
        const cmBefore = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
        const dry = await cp1.kubeadm(["upgrade", "apply", TO, "--dry-run", ignore]);
        ok(dry, "apply --dry-run");
        assert.match(
          dry.stdout,
          /\[dryrun\] Would write file "\/etc\/kubernetes\/manifests\/kube-apiserver\.yaml" with content:/,
        );
        assert.match(dry.stdout, /image: registry\.k8s\.io\/kube-apiserver:v1\.37\.2/);
        assert.match(dry.stdout, /\[upgrade\/successful\] Finished dryrunning successfully!/);
        assert.deepEqual(await tree(`${cp1.rootfs}/etc/kubernetes`), before);
        assert.deepEqual(await tree(`${cp1.rootfs}/var/lib/kubelet`), kubeletBefore);
        const cmAfter = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
        assert.equal(cmAfter.metadata.resourceVersion, cmBefore.metadata.resourceVersion);
      });

      await t.step(
        "golden: plan, diff and apply --dry-run as upstream kubeadm v1.37.2's, --v=4 lines too",
        async () => {
          // At --v=4 (stdout is the same at any level): the log lines are upstream's too.
          const v = "--v=4";
          for (const args of [["plan", TO, ignore], ["plan", TO, ignore, "-o", "yaml"]]) {
            const r = await oursAndUpstream(cp1, ["upgrade", ...args, v]);
            assert.equal(r.ours, r.theirs, `upgrade ${args.join(" ")}`);
            const log = assertLogAsUpstream(r);
            assert.ok(
              log.includes("[upgrade/plan] computing upgrade possibilities"),
              log.join("\n"),
            );
          }
          const diff = await oursAndUpstream(cp1, ["upgrade", "diff", TO, v]);
          assert.deepEqual(diffInFileOrder(diff.ours), diffInFileOrder(diff.theirs));
          assert.equal(diffInFileOrder(diff.ours).filter((b) => b.startsWith("--- ")).length, 3);
          assertLogAsUpstream(diff);
          const r = await oursAndUpstream(cp1, ["upgrade", "apply", TO, "--dry-run", ignore, v]);
          const ours = assertDryRunAsUpstream(r.ours, r.theirs);
          assert.equal(ours.files.size, 5, "three manifests, instance-config.yaml, config.yaml");
          const log = assertLogAsUpstream(r);
          assert.ok(
            log.includes("[upgrade/preflight] Verifying the cluster health"),
            log.join("\n"),
          );
        },
      );

      await t.step("a kube-apiserver that does not start is rolled back", async () => {
        // --patches is a path on the node, under --rootfs (upstream chroots into it).
        const patches = "/patches-broken";
        await Deno.mkdir(`${cp1.rootfs}${patches}`, { recursive: true });
        await Deno.writeTextFile(
          `${cp1.rootfs}${patches}/kube-apiserver+json.yaml`,
          "- op: add\n  path: /spec/containers/0/command/-\n  value: --no-such-flag=1\n",
        );
        const upgradeCfg = `${cp1.rootfs}/upgrade-fast.yaml`;
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
          ignore,
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
          `${cp1.rootfs}/etc/kubernetes/manifests/kube-apiserver.yaml`,
        );
        assert.match(manifest, /kube-apiserver:v1\.36\.3/);
        assert.doesNotMatch(manifest, /no-such-flag/);
        await waitFor("cp1's API server serving again", async () => {
          const r = await cp1.kubectl(["get", "--raw", "/readyz"]);
          return r.code === 0 && r.stdout.trim() === "ok";
        }, 120_000);
      });

      const watch = apiWatch([cp1, cp2]);

      await t.step("apply on cp1, killed during the swap, then run again, converges", async () => {
        const child = new Deno.Command(cp1.ns.exec[0], {
          args: [
            ...cp1.ns.exec.slice(1),
            kubeadmLauncher(),
            "upgrade",
            "apply",
            TO,
            "--yes",
            ignore,
            "--rootfs",
            cp1.rootfs,
          ],
          stdout: "piped",
          stderr: "null",
        }).spawn();
        // Kill it once the first component is being swapped.
        const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
        let seen = "";
        while (!seen.includes("Waiting for the kubelet to restart the component")) {
          const { value, done } = await reader.read();
          if (done) break;
          seen += value;
        }
        child.kill("SIGKILL");
        await child.status;
        reader.releaseLock();
        const again = await cp1.kubeadm(["upgrade", "apply", TO, "--yes", ignore, "--v=4"]);
        ok(again, "apply (re-run)");
        // A real apply cannot run twice to compare with upstream's (its dry run is compared
        // above); its own steps log upstream's lines, in upstream's order.
        assertInOrder(klogMessages(again.stderr), [
          "[upgrade] retrieving configuration from cluster",
          "[upgrade/preflight] Verifying the cluster health",
          "[upgrade/preflight] Validating requested and actual version",
          `etcd endpoints read from pods: https://${cp1.ns.address}:2379,https://${cp2.ns.address}:2379`,
          "[control-plane] creating static Pod files",
          "[upgrade/upload-config] Uploading the kubeadm ClusterConfiguration to a ConfigMap",
          "[upgrade/upload-config] Uploading the kubelet configuration to a ConfigMap",
          `Skipping update of the Server URL in /etc/kubernetes/kubelet.conf, because it's already not equal to "https://${endpoint}" or already matches the localAPIEndpoint`,
          "creating the RBAC rules for exposing the cluster-info ConfigMap in the kube-public namespace",
        ]);
        assert.match(
          again.stdout,
          /\[upgrade\] SUCCESS! A control plane node of your cluster was upgraded to "v1\.37\.2"\./,
        );
        assert.match(
          again.stdout,
          /\[upgrade\/addon\] Skipping upgrade of addons because control plane instances \[cp2\] have not been upgraded/,
        );
        const backups = [...(await tree(`${cp1.rootfs}/etc/kubernetes/tmp`)).keys()];
        assert.ok(
          backups.some((p) =>
            /^\/kubeadm-backup-manifests-\d{4}(-\d\d){5}\/kube-apiserver\.yaml$/.test(p)
          ),
          backups.join("\n"),
        );
      });

      await t.step("node on cp2: the last control plane upgrades the addons", async () => {
        // The addons take the kubeproxydaemonset and corednsdeployment patches (v1.37).
        await Deno.mkdir(`${cp2.rootfs}/patches-addons`, { recursive: true });
        await Deno.writeTextFile(
          `${cp2.rootfs}/patches-addons/kubeproxydaemonset+merge.yaml`,
          'metadata:\n  labels:\n    patched: "kube-proxy"\n',
        );
        await Deno.writeTextFile(
          `${cp2.rootfs}/patches-addons/corednsdeployment.yaml`,
          'metadata:\n  labels:\n    patched: "coredns"\n',
        );
        // Golden first: upstream's `upgrade node --dry-run` on the same node prints the same.
        const dry = await oursAndUpstream(cp2, [
          "upgrade",
          "node",
          "--dry-run",
          ignore,
          "--patches",
          "/patches-addons",
          "--v=4",
        ]);
        assertDryRunAsUpstream(dry.ours, dry.theirs);
        assertLogAsUpstream(dry);
        const r = await cp2.kubeadm([
          "upgrade",
          "node",
          ignore,
          "--patches",
          "/patches-addons",
          "--v=2",
        ]);
        ok(r, "upgrade node (cp2)");
        // cp2's kubelet.conf already points at cp2's own API server (kubeadm's local mode).
        assertInOrder(klogMessages(r.stderr), [
          "[control-plane] creating static Pod files",
          // etcd's member list gives the endpoints' order: either.
          [[cp1, cp2], [cp2, cp1]].map((nodes) =>
            `[etcd] attempting to see if all cluster endpoints ([${
              nodes.map((n) => `https://${n.ns.address}:2379`).join(" ")
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

      await t.step("node on the worker", async () => {
        const dry = await oursAndUpstream(worker, [
          "upgrade",
          "node",
          "--dry-run",
          "--ignore-preflight-errors=all",
          "--v=4",
        ]);
        assertDryRunAsUpstream(dry.ours, dry.theirs);
        assertLogAsUpstream(dry);
        const r = await worker.kubeadm(["upgrade", "node", "--ignore-preflight-errors=all"]);
        ok(r, "upgrade node (worker)");
        assert.match(
          r.stdout,
          /\[upgrade\/control-plane\] Skipping phase\. Not a control plane node\./,
        );
        assert.match(
          r.stdout,
          /\[upgrade\/kubelet-config\] The kubelet configuration for this node was successfully upgraded!/,
        );
      });

      const { outages, polls } = await watch.done();

      await t.step(
        "v1.37 binaries everywhere, etcd kept its data, the API answered throughout",
        async () => {
          for (const cp of [cp1, cp2]) {
            await waitFor(`${cp.nodeName} running v1.37.2 binaries`, async () => {
              const bins = await runningBinaries(cp);
              if (COMPONENTS.every((c) => bins.get(c)?.startsWith(set37))) return true;
              throw new Error(`running: ${JSON.stringify(Object.fromEntries(bins))}`);
            }, 120_000);
            for (const c of COMPONENTS) {
              const m = await Deno.readTextFile(`${cp.rootfs}/etc/kubernetes/manifests/${c}.yaml`);
              assert.match(m, new RegExp(`image: registry.k8s.io/${c}:v1\\.37\\.2`));
            }
          }
          const pods = await json(cp1, [
            "-n",
            "kube-system",
            "get",
            "pods",
            "-l",
            "tier=control-plane",
          ]);
          for (const p of pods.items) {
            if (p.metadata.labels.component === "etcd") continue;
            assert.match(p.spec.containers[0].image, /:v1\.37\.2$/, p.metadata.name);
          }
          const marker = await json(cp1, ["-n", "default", "get", "cm", "before-upgrade"]);
          assert.equal(marker.data.k, "v");
          assert.equal(outages, 0, `the API did not answer ${outages} of ${polls} polls`);
          const cm = await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"]);
          assert.match(cm.data.ClusterConfiguration, /kubernetesVersion: v1\.37\.2/);
        },
      );

      await t.step(
        "kubeadm-config and kubelet-config equal what upstream kubeadm v1.37.2 uploads",
        async () => {
          const ours = {
            kubeadm: (await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"])).data,
            kubelet: (await json(cp1, ["-n", "kube-system", "get", "cm", "kubelet-config"])).data,
          };
          // Upstream's upload-config phase over the same cluster (it chroots into --rootfs).
          await Deno.writeTextFile(
            `${cp1.rootfs}/upstream-upgrade.yaml`,
            `apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\napply:\n  kubernetesVersion: ${TO}\n`,
          );
          const up = await run([
            `${cp1.binDir}/kubeadm`,
            "upgrade",
            "apply",
            "phase",
            "upload-config",
            "all",
            "--config",
            "/upstream-upgrade.yaml",
            "--rootfs",
            cp1.rootfs,
          ], { ns: cp1.ns });
          ok(up, "upstream upload-config");
          const theirs = {
            kubeadm: (await json(cp1, ["-n", "kube-system", "get", "cm", "kubeadm-config"])).data,
            kubelet: (await json(cp1, ["-n", "kube-system", "get", "cm", "kubelet-config"])).data,
          };
          assert.deepEqual(ours, theirs);
        },
      );
    } finally {
      for (const n of nodes.reverse()) await n.stop();
    }
  },
});
