/**
 * Real test nodes: each node is a network namespace (netns.ts: its own address, a route to the
 * host), a UTS namespace (its hostname is the node name), a PID namespace (killing its first
 * process kills every process of the node, containers included) and a private mount namespace
 * that gives it its own `/etc/kubernetes`, `/etc/cni/net.d`, `/etc/systemd/system`, `/etc/default/kubelet`,
 * `/var/lib/{kubelet,etcd,containerd}`, `/var/log/{pods,containers}` and `/run` (bound from the
 * node's directory on the host, so tests read and write them there), over copy-on-write
 * overlays of the host's `/etc` and `/var` that absorb any other write; the sysctls the kubelet
 * rewrites are bound over with files of the node's own. `/tmp` is the host's (the node's
 * directory lives there); node processes get `TMPDIR` inside it. The node's `/etc/hosts` names
 * the node; its `/etc/resolv.conf` points at the node's own address, where nothing listens on
 * port 53, so name lookups fail at once (port unreachable) instead of waiting for the host's
 * unreachable name servers. Not at its loopback: CoreDNS (its Deployment's `dnsPolicy: Default`
 * gives it the node's name servers) forwards to them from its Pod, where the loopback is its
 * own, and stops on the loop it detects there. The machine
 * is provisioned as a Kubernetes host: IPv4 forwarding on (in its own network namespace), its
 * kubelet flags (node IP, cgroup root) in `/etc/default/kubelet`.
 *
 * containerd and the kubelet run as units of the node's service manager (node_services.ts),
 * the kubelet exactly as kubeadm's systemd drop-in runs it; `systemctl` on the node's PATH
 * drives that manager, so kubeadm inside the node (no `--rootfs`) stops and restarts the kubelet
 * through the same init-system port it uses on a real host.
 *
 * Tear-down stops the units, kills the PID namespace, removes the node's cgroups and network
 * namespace, checks that nothing of the node is still mounted on the host before deleting its
 * directory, and checks that the host is as it was: `/dev/null`, the kubelet's sysctls, the
 * kernel's conntrack sizes, no `/etc/kubernetes`, `/var/lib/kubelet`, `/run/containerd`, … or
 * top-level `kubepods` cgroup that was not there before, the node's netns and cgroups gone.
 *
 * @module
 */
import { type GroupProcess, spawnGroup } from "./commands.ts";
import { containerdBinDir, containerdConfig, PAUSE_IMAGE } from "./containerd.ts";
import { createNetNamespace, type NetNamespace, sh } from "./netns.ts";
import { binSetDir } from "./k8s_bins.ts";
import { NODE_IMAGE_SET } from "./node_images.ts";
import { ServiceManager, type UnitProcess, type UnitSpec } from "./node_services.ts";
import { repoRoot } from "./repo.ts";

/** Node paths bound from the node's directory: node path → path under the node's directory. */
const DIR_BINDS: readonly [string, string][] = [
  ["/etc/kubernetes", "etc/kubernetes"],
  ["/etc/cni/net.d", "etc/cni/net.d"],
  ["/etc/systemd/system", "etc/systemd/system"],
  ["/var/lib/kubelet", "var/lib/kubelet"],
  ["/var/lib/etcd", "var/lib/etcd"],
  ["/var/lib/containerd", "var/lib/containerd"],
  ["/var/log/pods", "var/log/pods"],
  ["/var/log/containers", "var/log/containers"],
  ["/run", "run"],
];
const FILE_BINDS: readonly [string, string][] = [["/etc/default/kubelet", "etc/default/kubelet"]];

/** The host-wide sysctls the kubelet sets (`setupKernelTunables`), kept per node. */
export const KUBELET_SYSCTLS: readonly string[] = [
  "vm/overcommit_memory",
  "vm/panic_on_oom",
  "kernel/panic",
  "kernel/panic_on_oops",
  "kernel/keys/root_maxkeys",
  "kernel/keys/root_maxbytes",
];

/** The node's CRI endpoint (containerd's default socket, as kubeadm detects it). */
export const NODE_CRI_ENDPOINT = "unix:///var/run/containerd/containerd.sock";

/**
 * The directory of a `scripts/k8s-bins` set's kubelet (default: the set of the node images;
 * `$KUBEADM_TS_NODE_BIN_DIR` overrides it, `$KUBEADM_TS_V1_36_3_BIN_DIR` the v1.36.3 set).
 */
export function nodeBinDir(set = NODE_IMAGE_SET): Promise<string> {
  const env = set === NODE_IMAGE_SET
    ? "KUBEADM_TS_NODE_BIN_DIR"
    : `KUBEADM_TS_${set.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_BIN_DIR`;
  return binSetDir(set, env, ["kubelet"]);
}

/** Node paths whose files {@link TestNode.files} lists, beside what was written over the rest. */
const FILES_LISTED: readonly string[] = [
  "/etc/kubernetes",
  "/etc/cni/net.d",
  "/etc/systemd/system",
  "/etc/default/kubelet",
  "/var/lib/kubelet",
  "/var/lib/etcd",
];

/**
 * KubeletConfiguration fields every kubelet needs on these machines (real-node-facts.md), as a
 * kubeadm user on such a host passes them in the kubeadm config: cgroup v1 allowed, the
 * cgroupfs driver, swap tolerated, no OOM score change (no CAP_SYS_RESOURCE).
 */
export const MACHINE_KUBELET_CONFIG: Readonly<Record<string, unknown>> = {
  failCgroupV1: false,
  cgroupDriver: "cgroupfs",
  failSwapOn: false,
  oomScoreAdj: 0,
};

/**
 * The kubelet flags of this machine, in its `/etc/default/kubelet` (`KUBELET_EXTRA_ARGS`, the
 * per-host file of the kubelet packages): its node IP (the address of its default route) and
 * its own cgroup root. Per machine, not in the KubeletConfiguration, because kubeadm shares
 * that one among all nodes (the `kubelet-config` ConfigMap) while these machines share one
 * host's cgroup hierarchies.
 */
export function machineKubeletFlags(node: Pick<TestNode, "ip" | "cgroupRoot">): string[] {
  return [`--node-ip=${node.ip}`, `--cgroup-root=${node.cgroupRoot}`];
}

/** Options of {@link createNode}. */
export interface NodeOptions {
  /** Directory holding the kubelet to run (default {@link nodeBinDir}). */
  kubeletBinDir?: string;
  /** `RestartSec=` of the kubelet unit in ms (kubeadm's packages: 10 s; default 2 s). */
  kubeletRestartMs?: number;
  /**
   * containerd's registry host configuration (`certs.d` layout, a host path the node sees as
   * is): where the node pulls from (default none: every pull goes to the registry named).
   */
  registryConfigDir?: string;
  /**
   * More programs on the node's PATH: name → host path (e.g. `kubeadm` → an installed
   * kubeadm-ts, or upstream's), linked into the node's bin directory.
   */
  bins?: Readonly<Record<string, string>>;
  /**
   * Node directories (of the node's own: `/etc/kubernetes`, `/var/lib/etcd`, …) backed by a
   * tmpfs of their own, of this many bytes each, mounted on the host before the node boots
   * (a disk that can be filled; tests/support/faults.ts).
   */
  tmpfs?: Record<string, number>;
}

/** Output of a command run inside the node. */
export interface NodeCommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A running node. */
export interface TestNode {
  /** Node name and hostname (`kts-<pid>-<n>`). */
  name: string;
  /** The node's address (its `eth0`); the host reaches it through the veth pair. */
  ip: string;
  /** The node's directory on the host. */
  dir: string;
  /** The kubelet's `cgroupRoot` (created in every cgroup v1 hierarchy). */
  cgroupRoot: string;
  /** The node's network namespace (its `eth0`; the host side is `ns.hostAddress`). */
  ns: NetNamespace;
  /** The node's service manager (units `containerd` and `kubelet`). */
  services: ServiceManager;
  /** containerd's socket as the host reaches it. */
  criSocketOnHost: string;
  /** The host path of a node path under one of the node's own directories. */
  hostPath(nodePath: string): string;
  /**
   * Every file of `/etc/kubernetes`, `/etc/cni/net.d`, `/etc/default/kubelet`,
   * `/var/lib/kubelet` and `/var/lib/etcd`, and every file written (or removed) anywhere else
   * under `/etc` and `/var` but the runtime's own directories: node path → size and mtime
   * (`removed` for a removal). Compare two listings to see what a command wrote.
   */
  files(): Promise<Map<string, string>>;
  /**
   * Runs a command inside the node (its namespaces, PATH with kubelet and systemctl);
   * `onLine` sees each line of its output as it arrives (benchmarks time them).
   */
  exec(
    argv: string[],
    opts?: {
      env?: Record<string, string>;
      stdin?: string;
      timeoutMs?: number;
      onLine?: (stream: "stdout" | "stderr", line: string) => void;
    },
  ): Promise<NodeCommandResult>;
  /**
   * Starts a command inside the node in a process group of its own (see {@link NodeProcess});
   * output piped.
   */
  spawn(argv: string[], opts?: { env?: Record<string, string> }): NodeProcess;
  /** Runs `ctr` (namespace `k8s.io`) against the node's containerd. */
  ctr(args: string[]): Promise<string>;
  /** A unit's log so far. */
  log(unit: string): Promise<string>;
  /** Tears the node down (see the module documentation); throws if the host was touched. */
  close(): Promise<void>;
}

/** A process started with {@link TestNode.spawn}. */
export type NodeProcess = GroupProcess;

let counter = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The host PID of the (single) child of `pid` (the process `unshare`/`nsenter` forked). */
async function childPid(pid: number, deadlineMs = 10_000): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    try {
      const text = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`);
      const first = text.trim().split(/\s+/)[0];
      if (first) return Number(first);
    } catch {
      // not yet (or gone)
    }
    await sleep(10);
  }
  throw new Error(`process ${pid} forked no child within ${deadlineMs} ms`);
}

/** Mount points of the host's mount namespace (ours), unescaped. */
async function hostMountPoints(): Promise<string[]> {
  const text = await Deno.readTextFile("/proc/self/mountinfo");
  return text.split("\n").filter(Boolean).map((l) =>
    l.split(" ")[4].replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)))
  );
}

/** The cgroup v1 hierarchies (and the v2 one of a hybrid setup) mounted on the host. */
async function cgroupHierarchies(): Promise<string[]> {
  const text = await Deno.readTextFile("/proc/self/mountinfo");
  const out: string[] = [];
  for (const line of text.split("\n").filter(Boolean)) {
    const [pre, post] = line.split(" - ");
    const fstype = post?.split(" ")[0];
    if (fstype === "cgroup" || fstype === "cgroup2") out.push(pre.split(" ")[4]);
  }
  return out;
}

async function removeCgroupTree(path: string): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    throw e;
  }
  for (const e of entries) if (e.isDirectory) await removeCgroupTree(`${path}/${e.name}`);
  for (let i = 0;; i++) {
    try {
      await Deno.remove(path);
      return;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return;
      if (i >= 50) throw new Error(`cannot remove cgroup ${path}: ${e}`);
      await sleep(100);
    }
  }
}

/** The whole text of `stream`, handing each complete line to `onLine` as it arrives. */
async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let from = 0;
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    for (let nl = text.indexOf("\n", from); nl >= 0; nl = text.indexOf("\n", from)) {
      onLine(text.slice(from, nl));
      from = nl + 1;
    }
  }
  text += decoder.decode();
  if (from < text.length) onLine(text.slice(from));
  return text;
}

/** `/dev/null` must stay the host's character device 1:3 (see real-node-facts.md). */
export async function assertDevNullIntact(): Promise<void> {
  const st = await Deno.lstat("/dev/null");
  if (!st.isCharDevice || st.rdev !== ((1 << 8) | 3)) {
    throw new Error(`/dev/null is no longer the 1:3 character device: ${JSON.stringify(st)}`);
  }
}

/** The host's values of {@link KUBELET_SYSCTLS}. */
export async function readKubeletSysctls(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const s of KUBELET_SYSCTLS) out[s] = (await Deno.readTextFile(`/proc/sys/${s}`)).trim();
  return out;
}

/**
 * Host-wide settings a node's software could change from inside its namespaces: the kernel's
 * conntrack table size (kube-proxy sizes it; `nf_conntrack_max` is read-only outside the
 * host's network namespace, but the module's `hashsize` is one for the whole kernel).
 */
const HOST_WIDE_FILES: readonly string[] = [
  "/proc/sys/net/netfilter/nf_conntrack_max",
  "/sys/module/nf_conntrack/parameters/hashsize",
];

/** Host paths a node's kubelet, containerd, CNI plugins or kubeadm write if they leak. */
const HOST_NODE_PATHS: readonly string[] = [
  "/etc/kubernetes",
  "/etc/cni/net.d",
  "/var/lib/kubelet",
  "/var/lib/etcd",
  "/var/lib/containerd",
  "/var/lib/cni",
  "/var/log/pods",
  "/var/log/containers",
  "/run/containerd",
  "/run/nri",
  "/run/kubernetes",
];

/**
 * What a node must leave as it found on the host: the kubelet's sysctls, the host-wide files
 * above, whether each of the node paths above exists, and the kubelet's default cgroups
 * (`kubepods` at the top of each hierarchy).
 */
export async function readHostState(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [s, v] of Object.entries(await readKubeletSysctls())) out[`/proc/sys/${s}`] = v;
  for (const f of HOST_WIDE_FILES) {
    out[f] = (await Deno.readTextFile(f).catch(() => "(absent)")).trim();
  }
  const paths = [...HOST_NODE_PATHS];
  for (const h of await cgroupHierarchies()) paths.push(`${h}/kubepods`, `${h}/kubepods.slice`);
  for (const p of paths) {
    out[p] = await Deno.lstat(p).then(() => "exists", () => "absent");
  }
  return out;
}

/** The entries of `after` that differ from `before`, as `key: before -> after` lines. */
function changedEntries(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys({ ...before, ...after })
    .filter((k) => before[k] !== after[k])
    .map((k) => `${k}: ${before[k]} -> ${after[k]}`);
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The node's first process: mounts, hostname, then reaps orphans until killed. */
function initScript(dir: string, name: string, ip: string): string {
  const q = shellQuote;
  const lines = [
    "set -eu",
    ...["etc", "var"].map((top) =>
      `mount -t overlay overlay -o lowerdir=/${top},upperdir=${
        q(`${dir}/.overlay/${top}/upper`)
      },workdir=${q(`${dir}/.overlay/${top}/work`)} /${top}`
    ),
    ...DIR_BINDS.map(([node, sub]) =>
      `mkdir -p ${q(node)} && mount --bind ${q(`${dir}/${sub}`)} ${q(node)}`
    ),
    ...FILE_BINDS.map(([node, sub]) =>
      `mkdir -p "$(dirname ${q(node)})" && touch ${q(node)} && mount --bind ${q(`${dir}/${sub}`)} ${
        q(node)
      }`
    ),
    ...KUBELET_SYSCTLS.map((s) =>
      `mount --bind ${q(`${dir}/.sysctl/${s.replaceAll("/", ".")}`)} ${q(`/proc/sys/${s}`)}`
    ),
    `hostname ${q(name)}`,
    "echo 1 > /proc/sys/net/ipv4/ip_forward",
    `printf '%s %s\\n' ${q(ip)} ${q(name)} >> /etc/hosts`,
    // The host's name servers are unreachable from the node: make lookups fail at once
    // (nothing listens on port 53 of the node's address) instead of stalling ~10 s each.
    `printf 'nameserver %s\\n' ${q(ip)} > /etc/resolv.conf`,
    `: > ${q(`${dir}/.ready`)}`,
    // PID 1 of the node: bash reaps adopted orphans (exited shims) while it waits.
    "while :; do sleep 3600 & wait $! || true; done",
  ];
  return lines.join("\n");
}

/** Creates and boots a node: namespaces, file layout, containerd running, kubelet enabled. */
export async function createNode(opts: NodeOptions = {}): Promise<TestNode> {
  await removeStaleNodes();
  const n = ++counter;
  const name = `kts-${Deno.pid}-${n}`;
  const ctrdBin = await containerdBinDir();
  const sysctlsBefore = await readKubeletSysctls();
  const hostBefore = await readHostState();
  await assertDevNullIntact();
  const dir = await Deno.makeTempDir({ prefix: `${name}-` });
  const cgroupRoot = `/${name}`;
  const cleanups: (() => Promise<void>)[] = [];
  const tmpfsMounts: string[] = [];
  let ns: NetNamespace | undefined;
  let init: Deno.ChildProcess | undefined;
  let services: ServiceManager | undefined;
  let control: { close: () => Promise<void> } | undefined;

  const hostPath = (nodePath: string): string => {
    const p = nodePath.replace(/^\/var\/run(\/|$)/, "/run$1");
    for (const [node, sub] of [...FILE_BINDS, ...DIR_BINDS]) {
      if (p === node) return `${dir}/${sub}`;
      if (p.startsWith(`${node}/`)) return `${dir}/${sub}${p.slice(node.length)}`;
    }
    throw new Error(`${nodePath} is not under one of the node's own directories`);
  };

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    const errors: string[] = [];
    const attempt = async (what: string, f: () => Promise<void>) => {
      try {
        await f();
      } catch (e) {
        errors.push(`${what}: ${e instanceof Error ? e.message : e}`);
      }
    };
    if (services) await attempt("stopping units", () => services!.stopAll());
    if (control) await attempt("closing systemctl socket", () => control!.close());
    if (init) {
      await attempt("killing the node", async () => {
        try {
          init!.kill("SIGKILL");
        } catch {
          // already gone
        }
        await init!.status;
      });
    }
    await attempt("waiting for the node's processes", () => waitCgroupsEmpty(cgroupRoot));
    for (const c of cleanups.reverse()) await attempt("cleanup", c);
    for (const m of tmpfsMounts.reverse()) {
      await attempt(`unmounting ${m}`, () => sh(["umount", m]).then(() => {}));
    }
    if (ns) await attempt("removing the network namespace", () => ns!.close());
    await attempt("removing the node directory", async () => {
      const mounted = (await hostMountPoints()).filter((m) => m === dir || m.startsWith(`${dir}/`));
      if (mounted.length > 0) {
        throw new Error(`still mounted on the host, directory kept: ${mounted.join(", ")}`);
      }
      await Deno.remove(dir, { recursive: true });
    });
    await attempt("/dev/null", assertDevNullIntact);
    await attempt("host state", async () => {
      const changed = changedEntries(hostBefore, await readHostState());
      if (changed.length > 0) throw new Error(`changed while the node ran: ${changed.join("; ")}`);
    });
    await attempt("network namespace", async () => {
      if (ns && await Deno.lstat(`/run/netns/${ns.name}`).then(() => true, () => false)) {
        throw new Error(`/run/netns/${ns.name} is still there`);
      }
    });
    await attempt("cgroups", async () => {
      for (const h of await cgroupHierarchies()) {
        if (await Deno.lstat(`${h}${cgroupRoot}`).then(() => true, () => false)) {
          throw new Error(`${h}${cgroupRoot} is still there`);
        }
      }
    });
    if (errors.length > 0) throw new Error(`node ${name} tear-down: ${errors.join("; ")}`);
  };

  try {
    // The node's directory.
    for (const [, sub] of DIR_BINDS) await Deno.mkdir(`${dir}/${sub}`, { recursive: true });
    for (const [nodePath, bytes] of Object.entries(opts.tmpfs ?? {})) {
      const sub = DIR_BINDS.find(([n]) => n === nodePath)?.[1];
      if (!sub) throw new Error(`tmpfs: ${nodePath} is not one of the node's own directories`);
      await sh(["mount", "-t", "tmpfs", "-o", `size=${bytes},mode=0755`, "tmpfs", `${dir}/${sub}`]);
      tmpfsMounts.push(`${dir}/${sub}`);
    }
    for (const [, sub] of FILE_BINDS) {
      await Deno.mkdir(`${dir}/${sub}`.replace(/\/[^/]+$/, ""), { recursive: true });
      await Deno.writeTextFile(`${dir}/${sub}`, "");
    }
    for (const top of ["etc", "var"]) {
      for (const d of ["upper", "work"]) {
        await Deno.mkdir(`${dir}/.overlay/${top}/${d}`, { recursive: true });
      }
    }
    await Deno.mkdir(`${dir}/.sysctl`);
    for (const [s, v] of Object.entries(sysctlsBefore)) {
      await Deno.writeTextFile(`${dir}/.sysctl/${s.replaceAll("/", ".")}`, `${v}\n`);
    }
    for (const d of ["bin", "logs", "tmp", "run/kts-node", "var/lib/kubelet/device-plugins"]) {
      await Deno.mkdir(`${dir}/${d}`, { recursive: true });
    }
    await Deno.symlink(`${opts.kubeletBinDir ?? await nodeBinDir()}/kubelet`, `${dir}/bin/kubelet`);
    for (const b of ["containerd", "ctr", "containerd-shim-runc-v2"]) {
      await Deno.symlink(`${ctrdBin}/${b}`, `${dir}/bin/${b}`);
    }
    for (const [name, target] of Object.entries(opts.bins ?? {})) {
      await Deno.symlink(target, `${dir}/bin/${name}`);
    }
    await Deno.writeTextFile(
      `${dir}/bin/systemctl`,
      `#!/bin/sh\nexec ${
        shellQuote(Deno.execPath())
      } run --no-config --no-lock --quiet --allow-all ${
        shellQuote(`${repoRoot}/tests/support/node_systemctl.ts`)
      } "$@"\n`,
      { mode: 0o755 },
    );

    // cgroupRoot in every hierarchy (cpuset needs its cpus and mems filled in).
    for (const h of await cgroupHierarchies()) {
      const cg = `${h}${cgroupRoot}`;
      await Deno.mkdir(cg);
      cleanups.push(() => removeCgroupTree(cg));
      for (const f of ["cpuset.cpus", "cpuset.mems"]) {
        const parent = await Deno.readTextFile(`${h}/${f}`).catch(() => undefined);
        if (parent !== undefined) await Deno.writeTextFile(`${cg}/${f}`, parent);
      }
    }

    ns = await createNetNamespace();
    await Deno.writeTextFile(
      `${dir}/etc/default/kubelet`,
      `KUBELET_EXTRA_ARGS="${machineKubeletFlags({ ip: ns.address, cgroupRoot }).join(" ")}"\n`,
    );
    // setpriv: if the test process dies, the node dies with it (unshare's --kill-child then
    // kills the node's PID 1, and with it every process of the node).
    init = new Deno.Command("setpriv", {
      args: [
        "--pdeathsig",
        "KILL",
        "--",
        "nsenter",
        `--net=/run/netns/${ns.name}`,
        "--",
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--uts",
        "--pid",
        "--fork",
        "--kill-child",
        "--mount-proc",
        "--",
        "bash",
        "-c",
        initScript(dir, name, ns.address),
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const initErr = new Response(init.stderr).text();
    const initPid = await childPid(init.pid);
    for (let i = 0;; i++) {
      if (await Deno.stat(`${dir}/.ready`).then(() => true, () => false)) break;
      const exited = await Promise.race([
        init.status.then(() => true),
        sleep(50).then(() => false),
      ]);
      if (exited || i > 400) throw new Error(`node ${name} did not boot: ${await initErr}`);
    }

    const nodeEnv = {
      PATH: `${dir}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      HOME: Deno.env.get("HOME") ?? "/root",
      TMPDIR: `${dir}/tmp`,
      KTS_NODE_SYSTEMCTL_SOCKET: "/run/kts-node/systemctl.sock",
      LANG: "C.UTF-8",
    };
    const enter = ["-t", String(initPid), "--net", "--mount", "--uts", "--pid", "--"];

    const spawnUnit = async (
      unit: string,
      argv: string[],
      env: Record<string, string>,
    ): Promise<UnitProcess> => {
      const logPath = `${dir}/logs/${unit}.log`;
      await Deno.writeTextFile(
        logPath,
        `--- start ${new Date().toISOString()}: ${argv.join(" ")}\n`,
        { append: true },
      );
      const child = new Deno.Command("nsenter", {
        args: [...enter, ...argv],
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      // Each chunk written as it comes: piping into the file's `writable` held a daemon's
      // output until it exited (containerd's log stayed empty while it ran).
      const log = await Deno.open(logPath, { append: true });
      const piped = (async () => {
        for await (const chunk of mergeStreams(child.stdout, child.stderr)) {
          for (let off = 0; off < chunk.length;) off += await log.write(chunk.subarray(off));
        }
      })().catch(() => {}).finally(() => log.close());
      const pid = await childPid(child.pid).catch(() => undefined);
      return {
        exited: child.status.then(async (s) => {
          await piped;
          return s.code;
        }),
        kill(signal) {
          if (pid !== undefined) Deno.kill(pid, signal);
          else child.kill(signal);
        },
      };
    };

    const kubeletUnit: UnitSpec = {
      name: "kubelet",
      description: "kubelet: The Kubernetes Node Agent",
      environment: {
        // kubeadm's drop-in (10-kubeadm.conf).
        KUBELET_KUBECONFIG_ARGS:
          "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf",
        KUBELET_CONFIG_ARGS: "--config=/var/lib/kubelet/config.yaml",
      },
      environmentFiles: ["-/var/lib/kubelet/kubeadm-flags.env", "-/etc/default/kubelet"],
      execStart: [
        `${dir}/bin/kubelet`,
        "$KUBELET_KUBECONFIG_ARGS",
        "$KUBELET_CONFIG_ARGS",
        "$KUBELET_KUBEADM_ARGS",
        "$KUBELET_EXTRA_ARGS",
      ],
      restartSecMs: opts.kubeletRestartMs ?? 2_000,
      enabled: true,
    };
    await Deno.writeTextFile(
      `${dir}/containerd.toml`,
      containerdConfig({
        socket: "/run/containerd/containerd.sock",
        root: "/var/lib/containerd",
        state: "/run/containerd",
        cniConfDir: "/etc/cni/net.d",
        registryConfigDir: opts.registryConfigDir,
      }, PAUSE_IMAGE),
    );
    const containerdUnit: UnitSpec = {
      name: "containerd",
      description: "containerd container runtime",
      environment: {},
      environmentFiles: [],
      execStart: [`${dir}/bin/containerd`, "--config", `${dir}/containerd.toml`],
      restartSecMs: 2_000,
      enabled: true,
    };
    services = new ServiceManager({
      readFile: (p) => Deno.readTextFile(hostPath(p)).catch(() => undefined),
      spawn: spawnUnit,
      defaultPath: nodeEnv.PATH,
      listFiles: async (p) => {
        try {
          return (await Array.fromAsync(Deno.readDir(hostPath(p)))).filter((e) => e.isFile)
            .map((e) => e.name);
        } catch {
          return [];
        }
      },
    }, [containerdUnit, kubeletUnit]);
    const server = services.serve(`${dir}/run/kts-node/systemctl.sock`);
    control = server;
    await server.ready;

    const criSocketOnHost = `${dir}/run/containerd/containerd.sock`;
    await services.start("containerd");
    for (let i = 0;; i++) {
      try {
        (await Deno.connect({ transport: "unix", path: criSocketOnHost })).close();
        break;
      } catch {
        if (i > 300) {
          throw new Error(
            `containerd did not start:\n${await Deno.readTextFile(`${dir}/logs/containerd.log`)}`,
          );
        }
        await sleep(100);
      }
    }

    const node: TestNode = {
      name,
      ip: ns.address,
      dir,
      cgroupRoot,
      ns,
      services,
      criSocketOnHost,
      hostPath,
      async files() {
        const out = new Map<string, string>();
        const walk = async (hostDir: string, nodeDir: string) => {
          let entries: Deno.DirEntry[];
          try {
            entries = await Array.fromAsync(Deno.readDir(hostDir));
          } catch (e) {
            if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
              return;
            }
            throw e;
          }
          for (const e of entries) {
            const h = `${hostDir}/${e.name}`;
            const n = `${nodeDir}/${e.name}`;
            // A daemon's temporary file (the kubelet's `.NNN` writes) may vanish between the
            // listing and this: a file gone is not in the listing.
            const st = await Deno.lstat(h).catch((err) => {
              if (err instanceof Deno.errors.NotFound) return undefined;
              throw err;
            });
            if (!st) continue;
            if (st.isDirectory) await walk(h, n);
            else if (st.isCharDevice && st.rdev === 0) out.set(n, "removed"); // overlay whiteout
            else out.set(n, `${st.size} ${st.mtime?.toISOString()}`);
          }
        };
        for (const p of FILES_LISTED) {
          const h = hostPath(p);
          const st = await Deno.lstat(h).catch(() => undefined);
          if (st?.isFile) out.set(p, `${st.size} ${st.mtime?.toISOString()}`);
          else await walk(h, p);
        }
        for (const top of ["etc", "var"]) await walk(`${dir}/.overlay/${top}/upper`, `/${top}`);
        return out;
      },
      async exec(argv, o = {}) {
        const child = new Deno.Command("nsenter", {
          args: [...enter, ...argv],
          env: { ...nodeEnv, ...o.env },
          clearEnv: true,
          stdin: o.stdin === undefined ? "null" : "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        if (o.stdin !== undefined) {
          const w = child.stdin.getWriter();
          await w.write(new TextEncoder().encode(o.stdin));
          await w.close();
        }
        const timer = setTimeout(() => {
          childPid(child.pid, 0).then((p) => Deno.kill(p, "SIGKILL"), () => child.kill("SIGKILL"));
        }, o.timeoutMs ?? 5 * 60_000);
        const [code, stdout, stderr] = await Promise.all([
          child.status.then((s) => s.code),
          readLines(child.stdout, (l) => o.onLine?.("stdout", l)),
          readLines(child.stderr, (l) => o.onLine?.("stderr", l)),
        ]);
        clearTimeout(timer);
        return { code, stdout, stderr };
      },
      spawn: (argv, o = {}) =>
        spawnGroup(["nsenter", ...enter, ...argv], {
          env: { ...nodeEnv, ...o.env },
          clearEnv: true,
        }),
      ctr: (args) =>
        sh([`${ctrdBin}/ctr`, "--address", criSocketOnHost, "--namespace", "k8s.io", ...args]),
      log: (unit) => Deno.readTextFile(`${dir}/logs/${unit}.log`).catch(() => ""),
      close,
    };
    return node;
  } catch (e) {
    await close().catch((c) => console.error(c));
    throw e;
  }
}

/** Interleaves two byte streams into one. */
function mergeStreams(
  a: ReadableStream<Uint8Array>,
  b: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  let open = 2;
  return new ReadableStream({
    start(controller) {
      for (const s of [a, b]) {
        (async () => {
          for await (const chunk of s) controller.enqueue(chunk);
          if (--open === 0) controller.close();
        })().catch((e) => controller.error(e));
      }
    },
  });
}

const alive = (pid: string) => Deno.stat(`/proc/${pid}`).then(() => true, () => false);

/**
 * Removes what nodes of test processes that died before tearing them down left behind: their
 * `kts-<pid>-<n>` cgroups (rmdir only), network namespaces and directories (only when nothing
 * is mounted under them). Their processes died with them (PID namespace, `--pdeathsig`).
 */
async function removeStaleNodes(): Promise<void> {
  const stale = (name: string) => {
    const m = /^kts-(\d+)-\d+(?:-[0-9a-f]+)?$/.exec(name);
    return m && Number(m[1]) !== Deno.pid ? m[1] : undefined;
  };
  for (const h of await cgroupHierarchies()) {
    for await (const e of Deno.readDir(h)) {
      const pid = stale(e.name);
      if (e.isDirectory && pid && !(await alive(pid))) {
        await removeCgroupTree(`${h}/${e.name}`).catch(() => {});
      }
    }
  }
  for (const line of (await sh(["ip", "netns", "list"], false)).split("\n")) {
    const name = line.split(" ")[0];
    const pid = stale(name);
    if (pid && !(await alive(pid))) await sh(["ip", "netns", "del", name], false);
  }
  const mounts = await hostMountPoints();
  for await (const e of Deno.readDir("/tmp")) {
    const pid = stale(e.name);
    if (!e.isDirectory || !pid || (await alive(pid))) continue;
    const dir = `/tmp/${e.name}`;
    if (!(await Deno.stat(`${dir}/.overlay`).then(() => true, () => false))) continue;
    if (mounts.some((m) => m === dir || m.startsWith(`${dir}/`))) continue;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Every cgroup directory of the node, in every hierarchy, each parent before its children. */
async function* nodeCgroups(cgroupRoot: string): AsyncGenerator<string> {
  for (const h of await cgroupHierarchies()) {
    const stack = [`${h}${cgroupRoot}`];
    while (stack.length > 0) {
      const cg = stack.pop()!;
      let entries: Deno.DirEntry[];
      try {
        entries = await Array.fromAsync(Deno.readDir(cg));
      } catch {
        continue;
      }
      yield cg;
      for (const e of entries) if (e.isDirectory) stack.push(`${cg}/${e.name}`);
    }
  }
}

/**
 * Waits until no process is left in the node's cgroups (its containers). After 5 s it thaws
 * every freezer cgroup of the node: runc freezes a container's cgroup while it updates it, and a
 * process frozen when the node was killed keeps its SIGKILL pending until thawed (seen once: a
 * container of a BestEffort Pod left FROZEN at a fleet's tear-down).
 */
async function waitCgroupsEmpty(cgroupRoot: string): Promise<void> {
  const started = Date.now();
  let thawed = false;
  for await (const cg of nodeCgroups(cgroupRoot)) {
    while ((await Deno.readTextFile(`${cg}/cgroup.procs`).catch(() => "")).trim() !== "") {
      if (Date.now() > started + 15_000) throw new Error(`processes left in ${cg}`);
      if (!thawed && Date.now() > started + 5_000) {
        thawed = true;
        for await (const f of nodeCgroups(cgroupRoot)) {
          await Deno.writeTextFile(`${f}/freezer.state`, "THAWED", { create: false })
            .catch(() => {}); // only the freezer hierarchy has the file
        }
      }
      await sleep(100);
    }
  }
}
