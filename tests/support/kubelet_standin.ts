/**
 * A kubelet stand-in for end-to-end tests.
 *
 * It does what the kubelet does for a kubeadm node, minus containers: it watches the node's
 * `/etc/kubernetes/manifests` (under `--rootfs`), starts each static Pod's container command as
 * a host process with its hostPath volumes mapped under the root, restarts it when the manifest
 * changes or (with a back-off) when it exits, and serves the kubelet health endpoint on
 * 127.0.0.1:10248. When `bootstrap-kubelet.conf` exists and `kubelet.conf` does not, it runs
 * the kubelet's TLS bootstrap (core/tlsbootstrap: the real controller-manager approves and
 * signs the CSR) and writes `kubelet.conf` + `kubelet-client-current.pem` as the kubelet does.
 * Once `kubelet.conf` exists it registers the Node with the node's own credentials (files the
 * kubeconfig refers to are read under the root), keeps it Ready, and mirrors the static Pods
 * into the API server (with the kubelet's mirror annotation, owned by the Node, Ready), which
 * is how kubeadm finds the etcd endpoints. It is meant to run inside a test's network namespace
 * (see netns.ts), as its own process:
 *
 *   ip netns exec NS deno run -A tests/support/kubelet_standin.ts --rootfs DIR --bin-dir DIR \
 *     --node-name NAME --node-ip IP --log-dir DIR
 *
 * @module
 */
import { platformTime } from "./platform.ts";
import { realSleep, systemClock } from "../../adapters/web/clock.ts";
import { generateKeyPair } from "../../core/pki/keys.ts";
import { webKeys } from "./platform.ts";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { parseKubeYamlOne } from "../../core/yaml/kube_yaml.ts";
import { KubeClient, type KubeObject } from "../../core/kube/client.ts";
import { connectionFromKubeconfig } from "../../core/kube/kubeconfig_connection.ts";
import { parseKubeconfig } from "../../core/kubeconfig/kubeconfig.ts";
import { runKubeletTlsBootstrap } from "../../core/tlsbootstrap/bootstrap.ts";
import { HostFileSystem, underRoot } from "../../adapters/deno/files.ts";
import { createDenoTransport } from "../../adapters/deno/transport.ts";

/** Settings of one stand-in. */
export interface StandinOptions {
  rootfs: string;
  binDir: string;
  /** Image tag → bin dir of the set that runs it. */
  binDirs?: Readonly<Record<string, string>>;
  /** The kubelet version the Node reports. */
  kubeletVersion?: string;
  nodeName: string;
  nodeIP: string;
  logDir: string;
  /** kubeconfig the node registers with (node path), default /etc/kubernetes/kubelet.conf. */
  kubeconfig?: string;
}

/** The bin dir for a Pod: the set its image tag names, else the default. */
export function binDirFor(
  pod: Pod,
  binDir: string,
  binDirs: Readonly<Record<string, string>> = {},
): string {
  const image = pod.spec?.containers?.[0]?.image ?? "";
  const tag = /:([\w][\w.-]*)$/.exec(image)?.[1] ?? "";
  return binDirs[tag] ?? binDir;
}

/** The host command line of a static Pod's container, with hostPath volumes mapped under root. */
export function podCommand(pod: Pod, rootfs: string, binDir: string): {
  argv: string[];
  env: Record<string, string>;
} {
  const container = pod.spec?.containers?.[0];
  if (!container?.command?.length) throw new Error(`pod ${pod.metadata?.name} has no command`);
  const hostPaths = new Map<string, string>();
  for (const v of pod.spec?.volumes ?? []) {
    if (v.hostPath) hostPaths.set(v.name, v.hostPath.path);
  }
  const mounts: [string, string][] = [];
  for (const m of container.volumeMounts ?? []) {
    const hp = hostPaths.get(m.name);
    if (hp) mounts.push([m.mountPath.replace(/\/$/, ""), hp.replace(/\/$/, "")]);
  }
  mounts.sort((a, b) => b[0].length - a[0].length);
  const mapPath = (p: string): string => {
    for (const [mount, host] of mounts) {
      if (p === mount || p.startsWith(`${mount}/`)) {
        return underRoot(rootfs, host + p.slice(mount.length));
      }
    }
    return p;
  };
  const mapArg = (arg: string): string => {
    const m = arg.match(/^(--[^=]+=)(.*)$/);
    if (!m) return arg;
    return m[1] +
      m[2].split(",").map((part) => part.startsWith("/") ? mapPath(part) : part).join(",");
  };
  const [bin, ...rest] = [...container.command, ...(container.args ?? [])];
  const binName = bin.split("/").pop()!;
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  return { argv: [`${binDir}/${binName}`, ...rest.map(mapArg)], env };
}

interface Running {
  text: string;
  pod: Pod;
  child: Deno.ChildProcess;
  /** When the process exited on its own (epoch ms). */
  exitedAt?: number;
  startedAt: number;
  /** Back-off before the next restart. */
  backoffMs: number;
}

/** Runs the stand-in until SIGTERM/SIGINT. */
export async function runStandin(opts: StandinOptions): Promise<void> {
  const running = new Map<string, Running>();
  const manifests = underRoot(opts.rootfs, "/etc/kubernetes/manifests");
  await Deno.mkdir(opts.logDir, { recursive: true });
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 10248, signal: ac.signal, onListen: () => {} },
    () => new Response("ok"),
  );

  const start = (file: string, text: string, backoffMs = 1000) => {
    const pod = parseKubeYamlOne(text, file) as Pod;
    const { argv, env } = podCommand(pod, opts.rootfs, binDirFor(pod, opts.binDir, opts.binDirs));
    const log = `${opts.logDir}/${file.replace(/\.yaml$/, "")}.log`;
    for (const arg of argv) {
      const dataDir = arg.match(/^--data-dir=(.*)$/)?.[1];
      if (dataDir) Deno.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    }
    const child = new Deno.Command("sh", {
      args: ["-c", `exec "$@" >>'${log}' 2>&1`, "sh", ...argv],
      env,
      stdin: "null",
    }).spawn();
    const entry: Running = { text, pod, child, startedAt: Date.now(), backoffMs };
    child.status.then(() => (entry.exitedAt = Date.now()));
    running.set(file, entry);
  };
  const stop = async (file: string) => {
    const r = running.get(file);
    if (!r) return;
    running.delete(file);
    try {
      r.child.kill("SIGTERM");
    } catch {
      // gone
    }
    await r.child.status;
  };

  const stopAll = async () => {
    ac.abort();
    for (const f of [...running.keys()]) await stop(f);
  };
  Deno.addSignalListener("SIGTERM", () => stopAll().then(() => Deno.exit(0)));
  Deno.addSignalListener("SIGINT", () => stopAll().then(() => Deno.exit(0)));

  let heartbeat: Promise<void> | undefined;
  while (true) {
    const seen = new Set<string>();
    try {
      for await (const e of Deno.readDir(manifests)) {
        if (!e.isFile || !e.name.endsWith(".yaml")) continue;
        seen.add(e.name);
        const text = await Deno.readTextFile(`${manifests}/${e.name}`);
        const cur = running.get(e.name);
        if (cur && cur.text === text) {
          // Crash-looping containers are restarted with a growing back-off, as the kubelet does.
          if (cur.exitedAt !== undefined && Date.now() - cur.exitedAt >= cur.backoffMs) {
            const ranLong = cur.exitedAt - cur.startedAt > 30_000;
            running.delete(e.name);
            start(e.name, text, ranLong ? 1000 : Math.min(cur.backoffMs * 2, 10_000));
          }
          continue;
        }
        if (cur) await stop(e.name);
        try {
          start(e.name, text);
        } catch (err) {
          console.error(`kubelet-standin: cannot start ${e.name}: ${err}`);
        }
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    for (const f of [...running.keys()]) if (!seen.has(f)) await stop(f);
    if (!heartbeat) heartbeat = keepNodeAlive(opts, () => [...running.values()]);
    await new Promise((r) => setTimeout(r, 300));
  }
  // deno-lint-ignore no-unreachable
  await server.finished;
}

/**
 * Bootstraps the kubelet's client certificate when needed, then registers the Node once its
 * kubeconfig exists and keeps it Ready the way a kubelet does: renewing its Lease in
 * kube-node-lease, re-posting the Ready condition and mirroring the static Pods every few
 * seconds.
 */
async function keepNodeAlive(opts: StandinOptions, pods: () => Running[]): Promise<void> {
  const log = (line: string) =>
    Deno.writeTextFile(`${opts.logDir}/standin.log`, `${new Date().toISOString()} ${line}\n`, {
      append: true,
    }).catch(() => {});
  while (true) {
    try {
      await bootstrapIfNeeded(opts, log);
      const api = await nodeApi(opts);
      if (api) await syncNode(api, opts, pods(), log);
    } catch (e) {
      await log(`sync: ${e instanceof Error ? e.message : e}`);
    }
    await new Promise((r) => setTimeout(r, 3000));
  }
}

const BOOTSTRAP_KUBECONFIG = "/etc/kubernetes/bootstrap-kubelet.conf";

/** The kubelet's TLS bootstrap: bootstrap-kubelet.conf present, kubelet.conf absent. */
async function bootstrapIfNeeded(opts: StandinOptions, log: (l: string) => void) {
  const files = new HostFileSystem(opts.rootfs);
  const kubeconfig = opts.kubeconfig ?? "/etc/kubernetes/kubelet.conf";
  if ((await files.read(kubeconfig)) !== undefined) return;
  if ((await files.read(BOOTSTRAP_KUBECONFIG)) === undefined) return;
  log("bootstrap-kubelet.conf found: running the TLS bootstrap");
  const result = await runKubeletTlsBootstrap({
    files,
    nodeName: opts.nodeName,
    transportFor: (params) => createDenoTransport(params, { timeoutMs: 10_000 }).transport,
    key: await generateKeyPair({ type: "ECDSA", namedCurve: "P-256" }, webKeys),
    clock: systemClock,
    sleep: realSleep,
    kubeconfig,
    timeoutMs: 120_000,
    log,
  });
  log(`TLS bootstrap done: ${result.csrName} against ${result.server}`);
}

/** A raw request helper and client for the node's own identity. */
interface NodeApi {
  client: KubeClient;
  send(method: string, path: string, body?: unknown, contentType?: string): Promise<Response>;
}

let cachedApi: { text: string; api: NodeApi } | undefined;

async function nodeApi(opts: StandinOptions): Promise<NodeApi | undefined> {
  const files = new HostFileSystem(opts.rootfs);
  const path = opts.kubeconfig ?? "/etc/kubernetes/kubelet.conf";
  const raw = await files.read(path);
  if (raw === undefined) return undefined;
  const text = new TextDecoder().decode(raw);
  if (cachedApi?.text === text) return cachedApi.api;
  // Files the kubeconfig refers to (kubelet-client-current.pem) are node paths: read them
  // under the root.
  const params = await connectionFromKubeconfig(parseKubeconfig(text, path), { files });
  const { transport } = createDenoTransport(params, { timeoutMs: 10_000 });
  const api: NodeApi = {
    client: new KubeClient({
      server: params.server,
      transport,
      retry: { timeoutMs: 0 },
      ...platformTime,
    }),
    send: (method, p, body, contentType = "application/json") =>
      transport(
        new Request(`${params.server}${p}`, {
          method,
          headers: { "content-type": contentType, accept: "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      ),
  };
  cachedApi = { text, api };
  return api;
}

async function ok(res: Promise<Response>, what: string, allowed: number[] = []): Promise<void> {
  const r = await res;
  const body = await r.text();
  if (!r.ok && !allowed.includes(r.status)) {
    throw new Error(`${what}: ${r.status} ${body.slice(0, 300)}`);
  }
}

/** Creates the Node (if needed), renews its Lease, posts Ready, mirrors the static Pods. */
async function syncNode(
  api: NodeApi,
  opts: StandinOptions,
  pods: Running[],
  log: (l: string) => void,
): Promise<void> {
  const name = opts.nodeName;
  await ok(
    api.send("POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: {
          "kubernetes.io/hostname": name,
          "kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
        },
      },
    }),
    "create node",
    [409],
  );
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const renewTime = new Date().toISOString().replace(/Z$/, "000Z").replace(
    /(\.\d{6})\d*Z$/,
    "$1Z",
  );
  const leasePath = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`;
  const lease = {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name, namespace: "kube-node-lease" },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
  };
  const created = await api.send(
    "POST",
    "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
    lease,
  );
  await created.body?.cancel();
  if (created.status === 409) {
    await ok(
      api.send("PATCH", leasePath, { spec: lease.spec }, "application/merge-patch+json"),
      "renew lease",
    );
  }
  await ok(
    api.send("PATCH", `/api/v1/nodes/${name}/status`, {
      status: {
        capacity: { cpu: "2", memory: "4Gi", pods: "110" },
        allocatable: { cpu: "2", memory: "4Gi", pods: "110" },
        nodeInfo: {
          kubeletVersion: await kubeletVersion(opts),
          kubeProxyVersion: "",
          machineID: "",
          systemUUID: "",
          bootID: "",
          kernelVersion: "",
          osImage: "kubelet stand-in",
          containerRuntimeVersion: "standin://0",
          operatingSystem: "linux",
          architecture: "amd64",
        },
        addresses: [{ type: "InternalIP", address: opts.nodeIP }, {
          type: "Hostname",
          address: name,
        }],
        conditions: [{
          type: "Ready",
          status: "True",
          reason: "KubeletReady",
          message: "kubelet stand-in is posting ready status",
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        }],
      },
    }, "application/merge-patch+json"),
    "post node status",
  );
  const node = await api.client.get<{ metadata?: { uid?: string } } & KubeObject>({
    kind: "Node",
    name,
  });
  for (const r of pods) {
    await mirrorPod(api, r, name, node.metadata?.uid ?? "", now).catch((e) =>
      log(`mirror pod ${r.pod.metadata?.name}: ${e instanceof Error ? e.message : e}`)
    );
  }
  await completePausePods(api, name, now).catch((e) =>
    log(`pause pods: ${e instanceof Error ? e.message : e}`)
  );
}

/** `--kubelet-version`, or the version written to `/var/lib/kubelet-standin/version`. */
async function kubeletVersion(opts: StandinOptions): Promise<string> {
  try {
    const v = (await Deno.readTextFile(
      underRoot(opts.rootfs, "/var/lib/kubelet-standin/version"),
    )).trim();
    if (v) return v;
  } catch {
    // not overridden
  }
  return opts.kubeletVersion ?? "v0.0.0";
}

/**
 * Pods bound to this Node whose containers all run the pause image (and are not static) are
 * reported Succeeded: the pause binary run as `pause -v` prints its version and exits 0.
 */
async function completePausePods(api: NodeApi, nodeName: string, now: string): Promise<void> {
  const res = await api.send(
    "GET",
    `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${nodeName}`)}`,
  );
  if (!res.ok) {
    await res.body?.cancel();
    return;
  }
  const list = await res.json() as { items?: Pod[] };
  for (const pod of list.items ?? []) {
    if (pod.metadata?.annotations?.["kubernetes.io/config.mirror"]) continue;
    if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") continue;
    const containers = pod.spec?.containers ?? [];
    if (containers.length === 0 || !containers.every((c) => /\/pause:/.test(c.image ?? ""))) {
      continue;
    }
    const ns = pod.metadata?.namespace ?? "default";
    await ok(
      api.send("PATCH", `/api/v1/namespaces/${ns}/pods/${pod.metadata?.name}/status`, {
        status: {
          phase: "Succeeded",
          startTime: now,
          conditions: [{
            type: "Ready",
            status: "False",
            reason: "PodCompleted",
            lastTransitionTime: now,
          }],
          containerStatuses: containers.map((c) => ({
            name: c.name,
            image: c.image,
            imageID: "",
            ready: false,
            restartCount: 0,
            state: {
              terminated: { exitCode: 0, reason: "Completed", startedAt: now, finishedAt: now },
            },
          })),
        },
      }, "application/merge-patch+json"),
      "complete pause pod",
    );
  }
}

/** The mirror Pod of a static Pod, as the kubelet creates it. */
async function mirrorPod(
  api: NodeApi,
  r: Running,
  nodeName: string,
  nodeUID: string,
  now: string,
): Promise<void> {
  const base = r.pod.metadata?.name ?? "static";
  const name = `${base}-${nodeName}`;
  const ns = r.pod.metadata?.namespace ?? "kube-system";
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(r.text)),
  );
  const hash = Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
  const path = `/api/v1/namespaces/${ns}/pods`;
  const existing = await api.send("GET", `${path}/${name}`);
  const current = existing.ok ? await existing.json() : (await existing.body?.cancel(), undefined);
  if (current && current.metadata?.annotations?.["kubernetes.io/config.hash"] !== hash) {
    await ok(api.send("DELETE", `${path}/${name}`, { gracePeriodSeconds: 0 }), "delete", [404]);
  }
  if (!current || current.metadata?.annotations?.["kubernetes.io/config.hash"] !== hash) {
    const pod = structuredClone(r.pod);
    pod.metadata = {
      ...pod.metadata,
      name,
      namespace: ns,
      annotations: {
        ...pod.metadata?.annotations,
        "kubernetes.io/config.hash": hash,
        "kubernetes.io/config.mirror": hash,
        "kubernetes.io/config.source": "file",
        "kubernetes.io/config.seen": now,
      },
      ownerReferences: [{
        apiVersion: "v1",
        kind: "Node",
        name: nodeName,
        uid: nodeUID,
        controller: true,
      }],
    };
    pod.spec = { ...pod.spec!, nodeName };
    const { status: _status, ...body } = pod;
    await ok(api.send("POST", path, body), "create mirror pod", [409]);
  }
  const up = r.exitedAt === undefined;
  const cond = (type: string) => ({
    type,
    status: up ? "True" : "False",
    lastTransitionTime: now,
  });
  await ok(
    api.send("PATCH", `${path}/${name}/status`, {
      status: {
        phase: "Running",
        conditions: [
          cond("Initialized"),
          cond("Ready"),
          cond("ContainersReady"),
          cond(
            "PodScheduled",
          ),
        ],
      },
    }, "application/merge-patch+json"),
    "mirror pod status",
  );
}

function optionalArg(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i < 0 || i + 1 >= Deno.args.length ? undefined : Deno.args[i + 1];
}

function arg(name: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  if (i < 0 || i + 1 >= Deno.args.length) throw new Error(`missing --${name}`);
  return Deno.args[i + 1];
}

if (import.meta.main) {
  await runStandin({
    rootfs: arg("rootfs"),
    binDir: arg("bin-dir"),
    nodeName: arg("node-name"),
    nodeIP: arg("node-ip"),
    logDir: arg("log-dir"),
    binDirs: Object.fromEntries(
      (optionalArg("bin-dirs") ?? "").split(",").filter((e) => e.includes("=")).map((e) => {
        const i = e.indexOf("=");
        return [e.slice(0, i), e.slice(i + 1)];
      }),
    ),
    kubeletVersion: optionalArg("kubelet-version"),
  });
}
