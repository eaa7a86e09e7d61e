import assert from "node:assert/strict";
import { systemClock } from "../../../adapters/web/clock.ts";
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import type { ResolvedConfig } from "../../../core/config/types.ts";
import type { EtcdClient } from "../../../core/ports/etcd.ts";
import { etcdPod } from "../../../core/manifests/etcd.ts";
import {
  buildStaticPod,
  CONTROL_PLANE_COMPONENTS,
  staticPodManifestYaml,
} from "../../../core/manifests/manifest_file.ts";
import { manifestInputFromInit } from "../../../core/manifests/manifest_input.ts";
import { etcdTiming } from "../../../core/etcd/timing.ts";
import type { StaticPodWaiter } from "../../../core/upgrade/pod_waiter.ts";
import {
  restoreInterruptedSwap,
  type StaticPodUpgradeInput,
  timestamp,
  upgradeStaticPodControlPlane,
} from "../../../core/upgrade/static_pods.ts";
import { parseCertificatesPEM } from "../../../core/pki/cert.ts";
import { MemoryFileSystem, MemoryNodeOps } from "../../support/memory_fs.ts";
import { pkiFixture } from "../../support/pki_fixture.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";
import { seededRandom } from "../../support/fixed_random.ts";

const MANIFESTS = "/etc/kubernetes/manifests";
const NOW = new Date(2026, 10, 24, 5, 6, 7);
const DATA = "/var/lib/etcd/member/snap/db";

function manifests(cfg: ResolvedConfig, version: string): Record<string, string> {
  const c = structuredClone(cfg);
  c.cluster.kubernetesVersion = version;
  const input = manifestInputFromInit(c, { existingDirs: new Set(), proxyEnv: {} });
  const out: Record<string, string> = {
    etcd: staticPodManifestYaml(etcdPod(input, [])),
  };
  for (const comp of CONTROL_PLANE_COMPONENTS) {
    out[comp] = staticPodManifestYaml(buildStaticPod(comp, input));
  }
  return out;
}

/** A waiter whose hash waits fail for the components named. */
function waiter(failing: string[] = [], onChange?: (component: string) => void): StaticPodWaiter & {
  calls: string[];
} {
  const calls: string[] = [];
  return {
    calls,
    timeoutMs: 300_000,
    staticPodHashes: (_n, cs) =>
      Promise.resolve(Object.fromEntries(cs.map((c) => [c, `old-${c}`]))),
    staticPodHash: (_n, c) => Promise.resolve(`old-${c}`),
    staticPodHashChange(_n, c) {
      calls.push(`hash ${c}`);
      onChange?.(c);
      return failing.includes(c)
        ? Promise.reject(
          new Error(
            `static Pod hash for component ${c} on Node cp-1 did not change after 5m0s: context deadline exceeded`,
          ),
        )
        : Promise.resolve();
    },
    podsWithLabel(s) {
      calls.push(`pods ${s}`);
      return Promise.resolve();
    },
  };
}

function etcdClient(healthy: () => boolean): EtcdClient {
  return {
    endpoints: ["https://192.168.0.10:2379"],
    listMembers: () => Promise.resolve([]),
    addMember: () => Promise.reject(new Error("no")),
    promoteMember: () => Promise.reject(new Error("no")),
    removeMember: () => Promise.reject(new Error("no")),
    status: () =>
      healthy() ? Promise.resolve() : Promise.reject(new Error("context deadline exceeded")),
  };
}

async function setup(opts: { from?: string; failing?: string[]; etcdTag?: string } = {}) {
  const { files, cfg } = await pkiFixture();
  for (const [c, text] of Object.entries(manifests(cfg, opts.from ?? "v1.36.3"))) {
    files.put(`${MANIFESTS}/${c}.yaml`, text, 0o600);
  }
  files.put(DATA, "etcd data v1");
  const target = structuredClone(cfg);
  target.cluster.kubernetesVersion = "v1.37.2";
  if (opts.etcdTag) {
    target.cluster.etcd.local = { ...target.cluster.etcd.local!, imageTag: opts.etcdTag };
  }
  const node = new MemoryNodeOps(files);
  const out = new RecordingPrinter();
  const w = waiter(opts.failing);
  const input: StaticPodUpgradeInput = {
    ctx: {
      cfg: target,
      files,
      crypto: webCryptoPort,
      out,
      manifestDir: MANIFESTS,
      host: { existingDirs: new Set(), proxyEnv: {} },
    },
    kubernetesDir: "/etc/kubernetes",
    node,
    waiter: w,
    etcd: {
      connect: () => Promise.resolve(etcdClient(() => true)),
      timing: etcdTiming({ sleep: () => Promise.resolve(), clock: systemClock }),
      retries: 2,
      intervalMs: 0,
    },
    etcdUpgrade: true,
    renewCerts: true,
    random: seededRandom(3),
    now: NOW,
  };
  return { files, cfg, input, node, out, waiter: w };
}

const backupDir = `/etc/kubernetes/tmp/kubeadm-backup-manifests-${timestamp(NOW)}`;

Deno.test("control-plane upgrade: each component swapped, old manifests backed up, certificates renewed", async () => {
  const { files, input, out, node, waiter: w } = await setup();
  const serial = (p: string) => parseCertificatesPEM(files.text(p)!)[0].serialNumber;
  const before = serial("/etc/kubernetes/pki/apiserver.crt");
  await upgradeStaticPodControlPlane(input);
  for (const c of CONTROL_PLANE_COMPONENTS) {
    assert.match(
      files.text(`${MANIFESTS}/${c}.yaml`)!,
      new RegExp(`image: registry.k8s.io/${c}:v1.37.2`),
    );
    assert.match(
      files.text(`${backupDir}/${c}.yaml`)!,
      new RegExp(`image: registry.k8s.io/${c}:v1.36.3`),
    );
  }
  assert.notEqual(serial("/etc/kubernetes/pki/apiserver.crt"), before);
  // etcd is unchanged but restarted for its renewed certificates; its data is backed up.
  assert.ok(
    out.lines.some((l) => l.startsWith("[upgrade/staticpods] Restarting the etcd static pod")),
  );
  assert.equal(
    files.text(`/etc/kubernetes/tmp/kubeadm-backup-etcd-${timestamp(NOW)}/etcd/member/snap/db`),
    "etcd data v1",
  );
  assert.deepEqual(w.calls, [
    "pods component=etcd",
    "hash kube-apiserver",
    "pods component=kube-apiserver",
    "hash kube-controller-manager",
    "pods component=kube-controller-manager",
    "hash kube-scheduler",
    "pods component=kube-scheduler",
  ]);
  assert.ok(!node.actions.some((a) => a.startsWith("move") && a.includes("tmp/kubeadm-backup")));
  assert.ok([...files.files.keys()].every((p) => !p.includes("kubeadm-upgraded-manifests")));
  assert.ok(
    out.lines.includes('[upgrade/staticpods] Component "kube-scheduler" upgraded successfully!'),
  );
});

Deno.test("control-plane upgrade: an unchanged etcd manifest is taken out and put back, so the kubelet restarts etcd", async () => {
  // The kubelet restarts a static Pod only when its manifest changes or goes away: renaming an
  // identical manifest over it changes nothing (seen on a real node: etcd kept its container
  // while upstream kubeadm's apply, which moves the manifest out first, got a new one). A
  // changed manifest is renamed over the old one: it is never absent.
  const { input, node } = await setup();
  await upgradeStaticPodControlPlane(input);
  const swapOf = (c: string) =>
    node.actions.filter((a) =>
      a.endsWith(` ${MANIFESTS}/${c}.yaml`) || a === `remove ${MANIFESTS}/${c}.yaml` ||
      a.startsWith(`copy ${MANIFESTS}/${c}.yaml `)
    ).map((a) => a.replace(/kubeadm-upgraded-manifests\d+/, "kubeadm-upgraded-manifests"));
  const temp = "/etc/kubernetes/tmp/kubeadm-upgraded-manifests";
  assert.deepEqual(swapOf("etcd"), [
    `copy ${MANIFESTS}/etcd.yaml ${backupDir}/etcd.yaml`,
    `remove ${MANIFESTS}/etcd.yaml`,
    `move ${temp}/etcd.yaml ${MANIFESTS}/etcd.yaml`,
  ]);
  assert.deepEqual(swapOf("kube-apiserver"), [
    `copy ${MANIFESTS}/kube-apiserver.yaml ${backupDir}/kube-apiserver.yaml`,
    `move ${temp}/kube-apiserver.yaml ${MANIFESTS}/kube-apiserver.yaml`,
  ]);
});

Deno.test("control-plane upgrade: a component that does not come back rolls every swapped manifest back", async () => {
  const { files, input } = await setup({ failing: ["kube-controller-manager"] });
  await assert.rejects(
    () => upgradeStaticPodControlPlane(input),
    /couldn't upgrade control plane\. kubeadm has tried to recover everything into the earlier state\. Errors faced: static Pod hash for component kube-controller-manager on Node cp-1 did not change/,
  );
  for (const c of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
    assert.match(files.text(`${MANIFESTS}/${c}.yaml`)!, /:v1\.36\.3/, c);
  }
  // The new manifests stay for the user to look at.
  assert.ok([...files.files.keys()].some((p) => p.includes("kubeadm-upgraded-manifests")));
});

Deno.test("control-plane upgrade: a re-run after a partial upgrade skips what is done and converges", async () => {
  const { files, input, out } = await setup();
  const partial = manifests(input.ctx.cfg, "v1.37.2")["kube-apiserver"];
  files.put(`${MANIFESTS}/kube-apiserver.yaml`, partial, 0o600);
  await upgradeStaticPodControlPlane(input);
  assert.ok(out.lines.includes(
    "[upgrade/staticpods] Current and new manifests of kube-apiserver are equal, skipping upgrade",
  ));
  for (const c of CONTROL_PLANE_COMPONENTS) {
    assert.match(files.text(`${MANIFESTS}/${c}.yaml`)!, /:v1\.37\.2/);
  }
});

Deno.test("etcd upgrade: a new etcd that does not become available gets its data and manifest back", async () => {
  const { files, input, out } = await setup({ etcdTag: "3.7.1-0" });
  const oldEtcd = files.text(`${MANIFESTS}/etcd.yaml`);
  // The client made before the upgrade reaches the old etcd; the one made after it never answers.
  let connects = 0;
  input.etcd!.connect = () => {
    const healthy = connects++ === 0;
    return Promise.resolve(etcdClient(() => healthy));
  };
  const w = waiter([], (c) => {
    if (c === "etcd") files.put(DATA, "written by the broken etcd");
  });
  input.waiter = w;
  await assert.rejects(
    () => upgradeStaticPodControlPlane(input),
    /fatal error upgrading local etcd cluster, rolled the state back to pre-upgrade state/,
  );
  assert.equal(files.text(DATA), "etcd data v1");
  assert.equal(files.text(`${MANIFESTS}/etcd.yaml`), oldEtcd);
  assert.ok(out.lines.includes("[upgrade/etcd] Etcd data rollback successful"));
  // Nothing else was touched.
  assert.match(files.text(`${MANIFESTS}/kube-apiserver.yaml`)!, /:v1\.36\.3/);
});

Deno.test("a manifest an interrupted swap left out is restored from the newest backup first", async () => {
  const tmp = "/etc/kubernetes/tmp";
  const fs = new MemoryFileSystem({
    [`${MANIFESTS}/kube-apiserver.yaml`]: "apiserver",
    [`${MANIFESTS}/kube-controller-manager.yaml`]: "kcm",
    [`${MANIFESTS}/kube-scheduler.yaml`]: "scheduler",
    // An older upgrade's backup, and the interrupted run's: its backup and its new manifests.
    [`${tmp}/kubeadm-backup-manifests-2026-01-02-03-04-05/etcd.yaml`]: "etcd, January",
    [`${tmp}/kubeadm-backup-manifests-2026-11-24-05-06-07/etcd.yaml`]: "etcd, now",
    [`${tmp}/kubeadm-upgraded-manifests123/etcd.yaml`]: "etcd, new",
  });
  const node = new MemoryNodeOps(fs);
  const dry = new RecordingPrinter();
  assert.deepEqual(
    await restoreInterruptedSwap(fs, node, "/etc/kubernetes", MANIFESTS, dry, true),
    [`${MANIFESTS}/etcd.yaml`],
  );
  assert.equal(fs.text(`${MANIFESTS}/etcd.yaml`), undefined, "a dry run restores nothing");
  assert.deepEqual(dry.lines, [
    `[upgrade/staticpods] Would restore "${MANIFESTS}/etcd.yaml" from "${tmp}/kubeadm-backup-manifests-2026-11-24-05-06-07/etcd.yaml": an earlier upgrade was interrupted while it was out`,
  ]);
  const out = new RecordingPrinter();
  await restoreInterruptedSwap(fs, node, "/etc/kubernetes", MANIFESTS, out, false);
  assert.equal(fs.text(`${MANIFESTS}/etcd.yaml`), "etcd, now");
  // Nothing else to restore; a manifest missing with no upgrade under way is not touched.
  fs.remove(`${MANIFESTS}/kube-scheduler.yaml`);
  assert.deepEqual(
    await restoreInterruptedSwap(fs, node, "/etc/kubernetes", MANIFESTS, out, false),
    [],
  );
});
