// The restarts of renewed components over a fake kubelet (manifest writes become mirror Pods,
// stopped containers start again in the same Pod, on the files as they are then), the fake API
// server, a fake etcd and a fake health probe: order, waits, rollback, refusals.
import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import type { Lease } from "kubernetes-types/coordination/v1.d.ts";
import {
  INTERRUPTED_RUN,
  interruptedRuns,
  planRestarts,
  renewAndRestart,
  type RestartContext,
  RESTARTED_AT_ANNOTATION,
  restartPlanLines,
  resumeInterrupted,
} from "../../../core/controlplane/restart.ts";
import { RESTART_LEASE_NAME } from "../../../core/controlplane/restart_lease.ts";
import { etcdTiming } from "../../../core/etcd/timing.ts";
import type { EtcdClient, EtcdMember } from "../../../core/ports/etcd.ts";
import type { PlannedFile } from "../../../core/ports/files.ts";
import type { HealthProbe } from "../../../core/ports/http.ts";
import { staticPodManifestYaml } from "../../../core/manifests/manifest_file.ts";
import { parseKubeYamlOne } from "../../../core/yaml/kube_yaml.ts";
import { fakeApiClient } from "../../support/fake_kube_api.ts";
import { CapturePrinter, FakeContainerRuntime } from "../../support/fake_machine.ts";
import { MemoryFileSystem, MemoryNodeOps } from "../../support/memory_fs.ts";

const NODE = "cp1";
const MANIFESTS = "/etc/kubernetes/manifests";

function manifest(
  name: string,
  probe: { scheme: string; port: number | string; path: string },
): string {
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "kube-system", labels: { component: name } },
    spec: {
      containers: [{
        name,
        image: `registry.k8s.io/${name}:v1.37.2`,
        ports: [{ containerPort: 2381, name: "probe-port", protocol: "TCP" }],
        command: name === "etcd"
          ? ["etcd", "--initial-advertise-peer-urls=https://10.0.0.1:2380"]
          : [name],
        readinessProbe: name === "kube-controller-manager" || name === "kube-scheduler"
          ? undefined
          : {
            httpGet: { host: "10.0.0.1", port: probe.port, path: probe.path, scheme: probe.scheme },
          },
        livenessProbe: {
          httpGet: { host: "127.0.0.1", port: probe.port, path: probe.path, scheme: probe.scheme },
        },
      }],
      hostNetwork: true,
    },
  };
  return staticPodManifestYaml(pod);
}

const PODS: Record<string, string> = {
  "kube-apiserver": manifest("kube-apiserver", { scheme: "HTTPS", port: 6443, path: "/readyz" }),
  "kube-controller-manager": manifest("kube-controller-manager", {
    scheme: "HTTPS",
    port: 10257,
    path: "/healthz",
  }),
  "kube-scheduler": manifest("kube-scheduler", { scheme: "HTTPS", port: 10259, path: "/livez" }),
  "etcd": manifest("etcd", { scheme: "HTTP", port: "probe-port", path: "/readyz" }),
};

function file(path: string, data: string): PlannedFile {
  return { path, data, mode: path.endsWith(".key") ? 0o600 : 0o644, kind: "other" };
}

class FakeEtcd implements EtcdClient {
  endpoints = ["https://10.0.0.1:2379", "https://10.0.0.2:2379", "https://10.0.0.3:2379"];
  down = new Set<string>();
  members: EtcdMember[] = [1, 2, 3].map((i) => ({
    id: String(i),
    name: `cp${i}`,
    peerURLs: [`https://10.0.0.${i}:2380`],
    clientURLs: [`https://10.0.0.${i}:2379`],
  }));
  listMembers() {
    return Promise.resolve(structuredClone(this.members));
  }
  status(endpoint: string) {
    return this.down.has(endpoint)
      ? Promise.reject(new Error("connection refused"))
      : Promise.resolve();
  }
  addMember(): never {
    throw new Error("unused");
  }
  promoteMember(): never {
    throw new Error("unused");
  }
  removeMember(): never {
    throw new Error("unused");
  }
}

/** A node: its files, a kubelet turning manifest writes into mirror Pods, the API, etcd. */
function fakeNode() {
  const fs = new MemoryFileSystem({
    "/etc/kubernetes/pki/apiserver.crt": "old apiserver cert",
    "/etc/kubernetes/pki/apiserver.key": "old apiserver key",
    "/etc/kubernetes/pki/etcd/server.crt": "old etcd cert",
    "/etc/kubernetes/pki/etcd/server.key": "old etcd key",
    "/etc/kubernetes/scheduler.conf": "old scheduler.conf",
    "/etc/kubernetes/admin.conf": "old admin.conf",
  });
  for (const [name, text] of Object.entries(PODS)) fs.put(`${MANIFESTS}/${name}.yaml`, text, 0o600);
  const { api, client, clock } = fakeApiClient();
  /** Components whose container crashes on its renewed files (its new Pod is never Ready). */
  const broken = new Set<string>();
  /** Whether a component's files are the renewed ones. */
  const renewedFilesOf = (component: string) =>
    RENEWED.some((r) =>
      r.readers.includes(component) && r.files.some((f) => fs.text(f.path) === f.data)
    );
  const events: string[] = [];
  const runtime = new FakeContainerRuntime("unix:///run/containerd/containerd.sock");
  runtime.now = () => clock.ms;
  const kubelet = (path: string) => {
    const m = /^\/etc\/kubernetes\/manifests\/(.+)\.yaml$/.exec(path);
    if (!m) return;
    const pod = parseKubeYamlOne(fs.text(path)!) as Pod;
    const stamp = pod.metadata?.annotations?.[RESTARTED_AT_ANNOTATION];
    const ready = !(broken.has(m[1]) && stamp !== undefined);
    events.push(`kubelet runs ${m[1]}${stamp ? ` ${stamp}` : ""}${ready ? "" : " (crashing)"}`);
    runtime.runPod("kube-system", `${m[1]}-${NODE}`, m[1]);
    api.put(
      <Pod> {
        ...pod,
        metadata: { ...pod.metadata, name: `${m[1]}-${NODE}` },
        status: {
          phase: "Running",
          conditions: [{ type: "Ready", status: ready ? "True" : "False" }],
          containerStatuses: ready ? [] : [{
            name: m[1],
            ready: false,
            restartCount: 3,
            image: "",
            imageID: "",
            state: { waiting: { reason: "CrashLoopBackOff" } },
          }],
        },
      },
    );
  };
  // A stopped container starts again in its Pod: it crashes when broken on renewed files.
  runtime.startNext = (_pod, previous) => {
    const component = previous.name;
    const crashes = broken.has(component) && renewedFilesOf(component);
    events.push(
      `kubelet restarts ${component} (attempt ${previous.attempt + 1})${
        crashes ? " crashing" : ""
      }`,
    );
    return crashes ? "exited" : "running";
  };
  for (const name of Object.keys(PODS)) kubelet(`${MANIFESTS}/${name}.yaml`);
  events.length = 0;
  const ops = new MemoryNodeOps(fs);
  const files = {
    read: (p: string) => fs.read(p),
    list: (p: string) => fs.list(p),
    async write(f: PlannedFile) {
      events.push(`write ${f.path}`);
      await fs.write(f);
      kubelet(f.path);
    },
  };
  const node = {
    ensureDir: (p: string) => ops.ensureDir(p),
    removeFile: (p: string) => ops.removeFile(p),
    async copyTree(from: string, to: string) {
      await ops.copyTree(from, to);
      kubelet(to);
    },
  };
  const probed: string[] = [];
  const health: HealthProbe = {
    get(url) {
      probed.push(url);
      return Promise.resolve({ status: 200 });
    },
  };
  const etcd = new FakeEtcd();
  const out = new CapturePrinter();
  const ctx: RestartContext = {
    files,
    node,
    kubernetesDir: "/etc/kubernetes",
    manifestDir: MANIFESTS,
    nodeName: NODE,
    client,
    runtime,
    health,
    etcd: {
      connect: () => Promise.resolve(etcd),
      timing: etcdTiming({ clock, sleep: clock.sleep }),
    },
    timeoutMs: 60_000,
    out,
    now: new Date(Date.UTC(2026, 10, 29, 6, 0, 0)),
  };
  return { fs, api, clock, broken, events, probed, etcd, out, ctx, runtime };
}

const RENEWED = [
  {
    name: "apiserver",
    readers: ["kube-apiserver"],
    files: [
      file("/etc/kubernetes/pki/apiserver.key", "new apiserver key"),
      file("/etc/kubernetes/pki/apiserver.crt", "new apiserver cert"),
    ],
  },
  {
    name: "admin.conf",
    readers: [],
    files: [file("/etc/kubernetes/admin.conf", "new admin.conf")],
  },
  {
    name: "etcd-server",
    readers: ["etcd"],
    files: [
      file("/etc/kubernetes/pki/etcd/server.key", "new etcd key"),
      file("/etc/kubernetes/pki/etcd/server.crt", "new etcd cert"),
    ],
  },
  {
    name: "scheduler.conf",
    readers: ["kube-scheduler"],
    files: [file("/etc/kubernetes/scheduler.conf", "new scheduler.conf")],
  },
];

Deno.test("planRestarts() groups renewed files by reader, etcd last; unread files first", () => {
  const plan = planRestarts(RENEWED);
  assert.deepEqual(plan.unread.map((f) => f.path), ["/etc/kubernetes/admin.conf"]);
  assert.deepEqual(plan.steps.map((s) => [s.component, s.renewed, s.files.length]), [
    ["kube-apiserver", ["apiserver"], 2],
    ["kube-scheduler", ["scheduler.conf"], 1],
    ["etcd", ["etcd-server"], 2],
  ]);
  const lines = restartPlanLines(plan, "/etc/kubernetes").join("\n");
  assert.match(
    lines,
    /1\. kube-apiserver \(for apiserver\): write its renewed files, stop its container \(the kubelet starts it again in the same Pod; a new Pod instead if it restarted less than 10 minutes ago\), wait for the new container to run and its health endpoint to answer/,
  );
  assert.match(
    lines,
    /3\. etcd \(for etcd-server\): write its renewed files, stop its container \(the kubelet starts it again in the same Pod\), .*only while the other etcd members keep quorum/,
  );
  // A step that changes the manifest makes a new Pod.
  plan.steps[0].editManifest = (pod) => pod;
  assert.match(
    restartPlanLines(plan, "/etc/kubernetes").join("\n"),
    /1\. kube-apiserver \(for apiserver\): write its renewed files, rewrite its manifest \(with kubeadm.kubernetes.io\/restartedAt\), wait for its new mirror Pod to be Ready and its health endpoint to answer/,
  );
});

Deno.test("renewAndRestart() restarts one component at a time, each on its new files, and cleans up", async () => {
  const n = fakeNode();
  await renewAndRestart(n.ctx, planRestarts(RENEWED));
  // Each component's files are written, then its container stopped and started again in the
  // same Pod (its manifest untouched), in order.
  assert.deepEqual(
    n.events,
    [
      "write /etc/kubernetes/admin.conf",
      "write /etc/kubernetes/pki/apiserver.key",
      "write /etc/kubernetes/pki/apiserver.crt",
      "kubelet restarts kube-apiserver (attempt 1)",
      "write /etc/kubernetes/scheduler.conf",
      "kubelet restarts kube-scheduler (attempt 1)",
      "write /etc/kubernetes/pki/etcd/server.key",
      "write /etc/kubernetes/pki/etcd/server.crt",
      "kubelet restarts etcd (attempt 1)",
    ],
  );
  assert.deepEqual(n.runtime.stopped, [
    { id: "uid-kube-apiserver-cp1-kube-apiserver-0", timeoutSeconds: 5 },
    { id: "uid-kube-scheduler-cp1-kube-scheduler-0", timeoutSeconds: 30 },
    { id: "uid-etcd-cp1-etcd-0", timeoutSeconds: 30 },
  ]);
  assert.equal(n.fs.text("/etc/kubernetes/pki/apiserver.crt"), "new apiserver cert");
  for (const [name, text] of Object.entries(PODS)) {
    assert.equal(n.fs.text(`${MANIFESTS}/${name}.yaml`), text, `${name}'s manifest untouched`);
  }
  assert.match(
    n.out.all.join("\n"),
    /\[restart\] etcd is back, on its renewed certificates \(healthy \S+s after its container's stop, which took \S+s\)/,
  );
  // No Node Lease in this cluster: nothing to wait for before the API server's stop.
  assert.doesNotMatch(n.out.all.join("\n"), /renewed its Node Lease/);
  assert.ok(n.probed.includes("https://10.0.0.1:6443/readyz"));
  assert.ok(
    n.probed.includes("https://127.0.0.1:10259/livez"),
    "the liveness probe when no readiness one",
  );
  assert.ok(n.probed.includes("http://10.0.0.1:2381/readyz"));
  assert.ok(
    ![...n.fs.files.keys()].some((p) => p.startsWith("/etc/kubernetes/tmp/")),
    "the backups (old keys) are gone",
  );
  assert.equal(n.api.get("Lease", "kube-system", RESTART_LEASE_NAME), undefined, "Lease released");
  assert.ok(
    n.api.calls().includes("POST /apis/coordination.k8s.io/v1/namespaces/kube-system/leases"),
  );
});

Deno.test("renewAndRestart() within 10 minutes of a restart: a new Pod but for etcd (the kubelet's back-off)", async () => {
  const n = fakeNode();
  await renewAndRestart(n.ctx, planRestarts(RENEWED));
  n.events.length = 0;
  n.runtime.stopped.length = 0;
  n.clock.ms += 9 * 60_000;
  const again = new Date(n.ctx.now.getTime() + 9 * 60_000);
  await renewAndRestart({ ...n.ctx, now: again }, planRestarts(RENEWED));
  const stamp = again.toISOString();
  assert.deepEqual(n.events.filter((e) => !e.startsWith("write /etc/kubernetes/pki")), [
    "write /etc/kubernetes/admin.conf",
    `write ${MANIFESTS}/kube-apiserver.yaml`,
    `kubelet runs kube-apiserver ${stamp}`,
    "write /etc/kubernetes/scheduler.conf",
    `write ${MANIFESTS}/kube-scheduler.yaml`,
    `kubelet runs kube-scheduler ${stamp}`,
    "kubelet restarts etcd (attempt 2)",
  ]);
  // The API server's old container stopped first (5 s at most: its graceful stop holds open
  // watches until killed), the kubelet holding its restart in the back-off; etcd in place.
  assert.deepEqual(n.runtime.stopped, [
    { id: "uid-kube-apiserver-cp1-kube-apiserver-1", timeoutSeconds: 5 },
    { id: "uid-etcd-cp1-etcd-1", timeoutSeconds: 30 },
  ]);
  assert.match(
    n.out.all.join("\n"),
    /Restarting kube-apiserver \(for apiserver\) as a new Pod: its container restarted less than 10 minutes ago/,
  );
  // Ten minutes after the last restart, in place again.
  n.events.length = 0;
  n.clock.ms += 10 * 60_000 + 1;
  await renewAndRestart(
    { ...n.ctx, now: new Date(again.getTime() + 10 * 60_000 + 1) },
    planRestarts(RENEWED.filter((r) => r.name === "etcd-server")),
  );
  assert.deepEqual(n.events.filter((e) => !e.startsWith("write")), [
    "kubelet restarts etcd (attempt 3)",
  ]);
});

Deno.test("renewAndRestart() gives a new Pod to a component whose container the kubelet holds in its back-off", async () => {
  const n = fakeNode();
  // kube-scheduler restarted on its own between the back-off check and the stop: the kubelet
  // holds its next start in its back-off, longer than a new Pod takes.
  const kubelet = n.runtime.startNext;
  n.runtime.startNext = (pod, previous) =>
    previous.name === "kube-scheduler" ? undefined : kubelet(pod, previous);
  const started = n.clock.ms;
  await renewAndRestart(n.ctx, planRestarts(RENEWED));
  const stamp = n.ctx.now.toISOString();
  assert.deepEqual(
    n.events.filter((e) => !e.startsWith("write /etc/kubernetes/pki")),
    [
      "write /etc/kubernetes/admin.conf",
      "kubelet restarts kube-apiserver (attempt 1)",
      "write /etc/kubernetes/scheduler.conf",
      `write ${MANIFESTS}/kube-scheduler.yaml`,
      `kubelet runs kube-scheduler ${stamp}`,
      "kubelet restarts etcd (attempt 1)",
    ],
  );
  const out = n.out.all.join("\n");
  assert.match(
    out,
    /\[restart\] The kubelet has not started kube-scheduler's container again 30(\.\d+)?s after its stop: it holds the restart in its back-off; restarting kube-scheduler as a new Pod/,
  );
  assert.match(out, /kube-scheduler is back, on its renewed certificates \(its new Pod healthy/);
  // Held for 30 s, not the whole timeout (1 minute here).
  assert.ok(n.clock.ms - started < 60_000, `${n.clock.ms - started} ms`);
  assert.ok(
    ![...n.fs.files.keys()].some((p) => p.startsWith("/etc/kubernetes/tmp/")),
    "the backups are gone",
  );
});

Deno.test("renewAndRestart() makes a new Pod for a step that changes the manifest", async () => {
  const n = fakeNode();
  const plan = planRestarts(RENEWED.filter((r) => r.name === "scheduler.conf"));
  plan.steps[0].editManifest = (pod) => {
    pod.spec!.containers[0].command!.push("--v=2");
    return pod;
  };
  await renewAndRestart(n.ctx, plan);
  const stamp = "2026-11-29T06:00:00.000Z";
  assert.deepEqual(n.events, [
    "write /etc/kubernetes/scheduler.conf",
    `write ${MANIFESTS}/kube-scheduler.yaml`,
    `kubelet runs kube-scheduler ${stamp}`,
  ]);
  assert.deepEqual(n.runtime.stopped, []);
  const after = parseKubeYamlOne(n.fs.text(`${MANIFESTS}/kube-scheduler.yaml`)!) as Pod;
  assert.deepEqual(after.metadata?.annotations, { [RESTARTED_AT_ANNOTATION]: stamp });
  assert.deepEqual(after.spec?.containers[0].command, ["kube-scheduler", "--v=2"]);
  assert.equal(n.fs.files.get(`${MANIFESTS}/kube-scheduler.yaml`)!.mode, 0o600);
});

Deno.test("after an interrupted run (its backup folder left) every component restarts, and the folder goes", async () => {
  const n = fakeNode();
  // A run killed after it wrote the scheduler's renewed kubeconfig, before its restart.
  const left = "/etc/kubernetes/tmp/kubeadm-backup-certs-2026-11-28-06-00-00";
  n.fs.put(`${left}/etc/kubernetes/scheduler.conf`, "older scheduler.conf", 0o600);
  n.fs.put("/etc/kubernetes/tmp/kubeadm-backup-manifests-2026-11-28/etcd.yaml", "x", 0o600);
  assert.deepEqual(await interruptedRuns(n.ctx), [left]);
  // Now only the apiserver's certificate is due.
  const plan = await resumeInterrupted(
    n.ctx,
    planRestarts(RENEWED.filter((r) => r.name === "apiserver")),
    [left],
  );
  assert.deepEqual(plan.steps.map((s) => [s.component, s.renewed, s.files.length]), [
    ["kube-apiserver", ["apiserver"], 2],
    ["kube-controller-manager", [INTERRUPTED_RUN], 0],
    ["kube-scheduler", [INTERRUPTED_RUN], 0],
    ["etcd", [INTERRUPTED_RUN], 0],
  ]);
  // What the callers do: the plan of what is due, interrupted runs looked for under the lock.
  const held: string[] = [];
  n.ctx.lockNode = () => {
    held.push("lock");
    return Promise.resolve(() => {
      held.push("release");
      return Promise.resolve();
    });
  };
  const resumed = await renewAndRestart(n.ctx, {
    ...planRestarts(RENEWED.filter((r) => r.name === "apiserver")),
    resumeInterrupted: true,
  });
  assert.deepEqual(resumed, [left]);
  assert.deepEqual(held, ["lock", "release"]);
  assert.deepEqual(n.events, [
    "write /etc/kubernetes/pki/apiserver.key",
    "write /etc/kubernetes/pki/apiserver.crt",
    "kubelet restarts kube-apiserver (attempt 1)",
    "kubelet restarts kube-controller-manager (attempt 1)",
    "kubelet restarts kube-scheduler (attempt 1)",
    "kubelet restarts etcd (attempt 1)",
  ]);
  assert.match(n.out.all.join("\n"), /An earlier run stopped before every component was back/);
  assert.match(n.out.all.join("\n"), /Restarting kube-scheduler \(for an interrupted run\)/);
  assert.deepEqual(
    [...n.fs.files.keys()].filter((p) => p.startsWith("/etc/kubernetes/tmp/")),
    ["/etc/kubernetes/tmp/kubeadm-backup-manifests-2026-11-28/etcd.yaml"],
    "the interrupted run's backups (old keys) are gone, other backups kept",
  );
  assert.deepEqual(await interruptedRuns(n.ctx), []);
  // A node without an etcd manifest (external etcd) gets no etcd step.
  await n.ctx.node.removeFile(`${MANIFESTS}/etcd.yaml`);
  const external = await resumeInterrupted(n.ctx, planRestarts([]), [left]);
  assert.deepEqual(external.steps.map((s) => s.component), [
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
  ]);
});

Deno.test("renewAndRestart() decides what an interrupted run is once the node's lock is held: a folder of a run that then finished is not one", async () => {
  const n = fakeNode();
  // Another kubeadm on this node (a rotate-ca phase) is restarting: its backup folder is there.
  const live = "/etc/kubernetes/tmp/kubeadm-backup-certs-2026-11-29-05-59-00";
  n.fs.put(`${live}/etc/kubernetes/pki/ca.key`, "the old CA's key", 0o600);
  assert.deepEqual(await interruptedRuns(n.ctx), [live], "before the lock it looks interrupted");
  const held: string[] = [];
  n.ctx.lockNode = (waitMs, onWait) => {
    assert.equal(waitMs, 2 * n.ctx.timeoutMs);
    onWait();
    // ... which finishes, removing its folder, and lets go of the lock.
    held.push("lock");
    return n.ctx.node.removeFile(live).then(() => () => {
      held.push("release");
      return Promise.resolve();
    });
  };
  const resumed = await renewAndRestart(n.ctx, {
    ...planRestarts(RENEWED.filter((r) => r.name === "apiserver")),
    resumeInterrupted: true,
  });
  assert.deepEqual(resumed, []);
  assert.deepEqual(held, ["lock", "release"]);
  assert.match(n.out.all.join("\n"), /Waiting for another kubeadm on this node/);
  assert.deepEqual(n.events, [
    "write /etc/kubernetes/pki/apiserver.key",
    "write /etc/kubernetes/pki/apiserver.crt",
    "kubelet restarts kube-apiserver (attempt 1)",
  ], "only what is due restarts, once");
  // The lock is released when the run fails too (a component not healthy: nothing written).
  const m = fakeNode();
  const calls: string[] = [];
  m.ctx.lockNode = () => {
    calls.push("lock");
    return Promise.resolve(() => {
      calls.push("release");
      return Promise.resolve();
    });
  };
  const pod = m.api.get<Pod>("Pod", "kube-system", `kube-scheduler-${NODE}`)!;
  m.api.put(<Pod> { ...pod, status: { phase: "Pending" } });
  await assert.rejects(
    renewAndRestart(m.ctx, planRestarts(RENEWED)),
    /kube-scheduler is not healthy/,
  );
  assert.deepEqual(calls, ["lock", "release"]);
});

Deno.test("renewAndRestart() after etcd waits for this node's API server to read through it again (its etcd client reconnects seconds later), and rolls etcd back when it never does", async () => {
  const API = "https://10.0.0.1:6443/readyz";
  /** The node, its API server's readiness failing `failures` times once etcd restarted. */
  const node = (failures: number) => {
    const n = fakeNode();
    let left = failures;
    n.ctx.health = {
      get(url) {
        n.probed.push(url);
        const etcdRestarted = n.events.some((e) => e.startsWith("kubelet restarts etcd"));
        if (url === API && etcdRestarted && left-- > 0) {
          n.events.push("kube-apiserver not ready");
          return Promise.resolve({ status: 500 });
        }
        return Promise.resolve({ status: 200 });
      },
    };
    return n;
  };
  const n = node(8);
  const etcdOnly = planRestarts(RENEWED.filter((r) => r.name === "etcd-server"));
  const t0 = n.clock.ms;
  await renewAndRestart(n.ctx, etcdOnly);
  assert.equal(n.events.filter((e) => e === "kube-apiserver not ready").length, 8);
  assert.ok(n.clock.ms - t0 >= 8_000, "polled once a second");
  const lines = n.out.all.join("\n");
  assert.match(
    lines,
    /kube-apiserver reads through etcd again \(ready \S+ after etcd's container's stop\)\n.*etcd is back/,
  );
  assert.equal(n.fs.text("/etc/kubernetes/pki/etcd/server.crt"), "new etcd cert");

  // Never again within the timeout: etcd's previous files back, it restarted on them, the run
  // stops naming both.
  const m = node(Infinity);
  await assert.rejects(renewAndRestart(m.ctx, etcdOnly), (e: Error) => {
    assert.match(
      e.message,
      /^etcd did not come back after its restart; its previous files are back and it runs again\. .*this node's kube-apiserver does not read through etcd again: kube-apiserver did not come back within 1m0s: https:\/\/10\.0\.0\.1:6443\/readyz: HTTP 500/,
    );
    return true;
  });
  assert.equal(m.fs.text("/etc/kubernetes/pki/etcd/server.crt"), "old etcd cert");
  assert.equal(m.events.filter((e) => e.startsWith("kubelet restarts etcd")).length, 2);
});

Deno.test("renewAndRestart() puts back the files of a component that does not come back, and restarts it", async () => {
  const n = fakeNode();
  n.broken.add("kube-scheduler");
  await assert.rejects(renewAndRestart(n.ctx, planRestarts(RENEWED)), (e: Error) => {
    assert.match(
      e.message,
      /^kube-scheduler did not come back after its restart; its previous files are back and it runs again\. The backups are in \/etc\/kubernetes\/tmp\/kubeadm-backup-certs-2026-11-29-\d\d-00-00\. Cause: kube-scheduler did not come back within 1m0s: container kube-scheduler of Pod kube-scheduler-cp1: attempt \d+ exited$/,
    );
    return true;
  });
  assert.equal(n.fs.text("/etc/kubernetes/scheduler.conf"), "old scheduler.conf");
  assert.equal(n.fs.text(`${MANIFESTS}/kube-scheduler.yaml`), PODS["kube-scheduler"]);
  // Back on its previous files: the kubelet's next attempt runs.
  const last = n.events.at(-1)!;
  assert.match(last, /^kubelet restarts kube-scheduler \(attempt \d+\)$/);
  const containers = await n.runtime.listPodContainers("kube-system", "kube-scheduler-cp1");
  assert.equal(containers.at(-1)?.state, "running");
  assert.equal(
    n.fs.text("/etc/kubernetes/pki/apiserver.crt"),
    "new apiserver cert",
    "restarted before",
  );
  assert.equal(n.fs.text("/etc/kubernetes/pki/etcd/server.crt"), "old etcd cert", "never reached");
  assert.equal(n.fs.text(`${MANIFESTS}/etcd.yaml`), PODS["etcd"]);
  assert.equal(n.api.get("Lease", "kube-system", RESTART_LEASE_NAME), undefined, "Lease released");
});

Deno.test("renewAndRestart() puts back the files and manifest of a new Pod that does not come back", async () => {
  const n = fakeNode();
  n.broken.add("kube-scheduler");
  const plan = planRestarts(RENEWED.filter((r) => r.name === "scheduler.conf"));
  plan.steps[0].editManifest = (pod) => pod;
  await assert.rejects(renewAndRestart(n.ctx, plan), (e: Error) => {
    assert.match(
      e.message,
      /^kube-scheduler did not come back after its restart; its previous files and manifest are back and it runs again\. .*Cause: kube-scheduler did not come back within 1m0s: mirror Pod kube-scheduler-cp1: phase Running, Ready False, waiting: kube-scheduler CrashLoopBackOff/,
    );
    return true;
  });
  assert.equal(n.fs.text("/etc/kubernetes/scheduler.conf"), "old scheduler.conf");
  assert.equal(n.fs.text(`${MANIFESTS}/kube-scheduler.yaml`), PODS["kube-scheduler"]);
  const mirror = n.api.get<Pod>("Pod", "kube-system", "kube-scheduler-cp1")!;
  assert.equal(
    mirror.metadata?.annotations?.[RESTARTED_AT_ANNOTATION],
    undefined,
    "the old Pod runs",
  );
});

Deno.test("renewAndRestart() refuses before any write when a component or etcd's quorum is not healthy", async () => {
  const sick = fakeNode();
  const pod = sick.api.get<Pod>("Pod", "kube-system", "kube-scheduler-cp1")!;
  sick.api.put(<Pod> { ...pod, status: { phase: "Pending" } });
  const writes = () => sick.events.filter((e) => e.startsWith("write")).length;
  await assert.rejects(
    renewAndRestart(sick.ctx, planRestarts(RENEWED)),
    /kube-scheduler is not healthy, so kubeadm will not restart it: kube-scheduler did not come back within 30s: mirror Pod kube-scheduler-cp1: phase Pending/,
  );
  assert.equal(writes(), 0);

  const noQuorum = fakeNode();
  noQuorum.etcd.down.add("https://10.0.0.2:2379");
  await assert.rejects(
    renewAndRestart(noQuorum.ctx, planRestarts(RENEWED)),
    (e: Error & { hint?: string }) => {
      assert.match(
        e.message,
        /^etcd cannot be restarted now: restarting this etcd member would leave the etcd cluster without quorum \(2 of 3 voting members\): 1 of the other 2 is not healthy: cp2/,
      );
      return true;
    },
  );
  assert.equal(noQuorum.events.filter((e) => e.startsWith("write")).length, 0);
  // Without etcd to restart, a sick etcd member elsewhere does not matter.
  await renewAndRestart(
    noQuorum.ctx,
    planRestarts(RENEWED.filter((r) => r.name !== "etcd-server")),
  );
});

Deno.test("renewAndRestart() waits for another control plane's Lease, and takes over an expired one", async () => {
  const n = fakeNode();
  const lease = (holder: string, renewedMsAgo: number): Lease => ({
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: RESTART_LEASE_NAME, namespace: "kube-system" },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 600,
      renewTime: new Date(n.clock.ms - renewedMsAgo).toISOString(),
    },
  });
  n.api.put(lease("cp2", 0));
  await assert.rejects(
    renewAndRestart(n.ctx, planRestarts(RENEWED)),
    /control plane "cp2" is restarting its components \(Lease kube-system\/kubeadm-control-plane-restart\)/,
  );
  assert.match(n.out.all.join("\n"), /Waiting for control plane cp2 to finish its restarts/);
  assert.equal(n.events.filter((e) => e.startsWith("write")).length, 0);
  const m = fakeNode();
  m.api.put(lease("cp2", 700_000));
  await renewAndRestart(m.ctx, planRestarts(RENEWED));
  assert.equal(m.api.get("Lease", "kube-system", RESTART_LEASE_NAME), undefined);
});

Deno.test("renewAndRestart() stops the API server right after the kubelet's heartbeat, which reaches the API only through it", async () => {
  const n = fakeNode();
  const lease = (renewTime: string): Lease => ({
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: NODE, namespace: "kube-node-lease" },
    spec: { holderIdentity: NODE, leaseDurationSeconds: 40, renewTime },
  });
  n.api.put(lease("2026-11-29T05:59:55.000000Z"));
  let reads = 0;
  n.api.onRequest = (r, api) => {
    if (r.method === "GET" && r.path.endsWith("/namespaces/kube-node-lease/leases/cp1")) {
      // The kubelet renews its Lease by the fourth read (a second later on the fake clock).
      if (++reads === 4) {
        api.put(lease("2026-11-29T06:00:05.000000Z"));
        n.events.push("kubelet renews its Node Lease");
      }
    }
  };
  await renewAndRestart(n.ctx, planRestarts(RENEWED));
  assert.deepEqual(n.events.slice(1, 5), [
    "kubelet renews its Node Lease",
    "write /etc/kubernetes/pki/apiserver.key",
    "write /etc/kubernetes/pki/apiserver.crt",
    "kubelet restarts kube-apiserver (attempt 1)",
  ]);
  assert.match(
    n.out.all.join("\n"),
    /\[restart\] The kubelet renewed its Node Lease \(after 750ms\): it reaches the API through this kube-apiserver only/,
  );
  // Only before the API server: the other components do not cut the kubelet off.
  assert.equal(reads, 4);

  // A Lease the kubelet does not renew (it is down): at most a renewal interval and a little
  // more (12 s for a 40 s Lease), then the restart goes on.
  const m = fakeNode();
  m.api.put(lease("2026-11-29T05:59:55.000000Z"));
  const before = m.clock.ms;
  await renewAndRestart(m.ctx, planRestarts(RENEWED.slice(0, 1)));
  assert.ok(m.clock.ms - before >= 12_000, `${m.clock.ms - before} ms`);
  assert.doesNotMatch(m.out.all.join("\n"), /renewed its Node Lease/);
  assert.match(m.out.all.join("\n"), /kube-apiserver is back/);
});

Deno.test("renewAndRestart() waits past a container stop the runtime did not confirm in time", async () => {
  const n = fakeNode();
  const stop = n.runtime.stopContainer.bind(n.runtime);
  // The container stops, but the runtime's answer misses the call's deadline (a loaded node).
  n.runtime.stopContainer = async (id, timeoutSeconds) => {
    await stop(id, timeoutSeconds);
    throw new Error("rpc error: code = DeadlineExceeded desc = Deadline exceeded after 7.020s");
  };
  await renewAndRestart(n.ctx, planRestarts(RENEWED.slice(0, 1)));
  assert.deepEqual(n.out.stderr, [
    "[restart] The stop of kube-apiserver's container was not confirmed (rpc error: code = DeadlineExceeded desc = Deadline exceeded after 7.020s); waiting for it to run again",
  ]);
  assert.match(
    n.out.all.join("\n"),
    /\[restart\] kube-apiserver is back, on its renewed certificates/,
  );
  assert.equal(n.fs.text("/etc/kubernetes/pki/apiserver.crt"), "new apiserver cert");
});
