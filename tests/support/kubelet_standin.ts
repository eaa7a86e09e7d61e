/**
 * A kubelet stand-in for end-to-end tests.
 *
 * It does what the kubelet does for a kubeadm control plane, minus containers: it watches the
 * node's `/etc/kubernetes/manifests` (under `--rootfs`), starts each static Pod's container
 * command as a host process with its hostPath volumes mapped under the root, restarts it when
 * the manifest changes, serves the kubelet health endpoint on 127.0.0.1:10248 and registers the
 * Node object with the node's own credentials once `kubelet.conf` exists. It is meant to run
 * inside a test's network namespace (see netns.ts), as its own process:
 *
 *   ip netns exec NS deno run -A tests/support/kubelet_standin.ts --rootfs DIR --bin-dir DIR \
 *     --node-name NAME --node-ip IP --log-dir DIR
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { parseKubeYamlOne } from "../../core/yaml/kube_yaml.ts";
import { underRoot } from "../../runtime/fs/host_fs.ts";

/** Settings of one stand-in. */
export interface StandinOptions {
  rootfs: string;
  binDir: string;
  nodeName: string;
  nodeIP: string;
  logDir: string;
  /** kubeconfig the node registers with (node path), default /etc/kubernetes/kubelet.conf. */
  kubeconfig?: string;
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
  child: Deno.ChildProcess;
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

  const start = (file: string, text: string) => {
    const pod = parseKubeYamlOne(text, file) as Pod;
    const { argv, env } = podCommand(pod, opts.rootfs, opts.binDir);
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
    running.set(file, { text, child });
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
        if (cur && cur.text === text) continue;
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
    if (!heartbeat) heartbeat = keepNodeAlive(opts);
    await new Promise((r) => setTimeout(r, 300));
  }
  // deno-lint-ignore no-unreachable
  await server.finished;
}

/**
 * Registers the Node once its kubeconfig exists, then keeps it Ready the way a kubelet does:
 * renewing its Lease in kube-node-lease and re-posting the Ready condition every few seconds.
 */
async function keepNodeAlive(opts: StandinOptions): Promise<void> {
  while (true) {
    await registerNode(opts).catch(() => false);
    await new Promise((r) => setTimeout(r, 5000));
  }
}

/** Creates the Node object (if needed), its Lease, and posts a Ready status, via kubectl. */
async function registerNode(opts: StandinOptions): Promise<boolean> {
  const kubeconfig = underRoot(opts.rootfs, opts.kubeconfig ?? "/etc/kubernetes/kubelet.conf");
  try {
    await Deno.stat(kubeconfig);
  } catch {
    return false;
  }
  const kubectl = (args: string[], input?: "piped") =>
    new Deno.Command(`${opts.binDir}/kubectl`, {
      args: ["--kubeconfig", kubeconfig, "--request-timeout=5s", ...args],
      stdin: input ?? "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  const node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: opts.nodeName,
      labels: {
        "kubernetes.io/hostname": opts.nodeName,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
      },
    },
  };
  const apply = async (obj: unknown, verb = "create") => {
    const p = kubectl([verb, "-f", "-"], "piped");
    const w = p.stdin.getWriter();
    await w.write(new TextEncoder().encode(JSON.stringify(obj)));
    await w.close();
    const res = await p.output();
    return res.success || /AlreadyExists/.test(new TextDecoder().decode(res.stderr));
  };
  if (!await apply(node)) return false;
  const renewTime = new Date().toISOString().replace(/Z$/, "000Z").replace(/(\.\d{6})\d*Z$/, "$1Z");
  await apply({
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: opts.nodeName, namespace: "kube-node-lease" },
    spec: { holderIdentity: opts.nodeName, leaseDurationSeconds: 40, renewTime },
  }, "apply");
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const status = {
    status: {
      addresses: [{ type: "InternalIP", address: opts.nodeIP }, {
        type: "Hostname",
        address: opts.nodeName,
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
  };
  const patch = await kubectl([
    "patch",
    "node",
    opts.nodeName,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify(status),
  ]).output();
  return patch.success;
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
  });
}
