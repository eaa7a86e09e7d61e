/**
 * The real machine as a {@link Machine}: Linux `/proc` and `/sys`, `$PATH`, TCP
 * listeners, systemd/OpenRC, DNS, the environment, the CRI socket, HTTPS with client
 * certificates (the Deno adapters' one transport factory: only the given CA is trusted).
 *
 * kubeadm's own files are read under `--rootfs`; kernel interfaces (`/proc`, `/sys`, `/boot`)
 * and everything else are the running machine's.
 *
 * @module
 */
import type { ContainerRuntime } from "../../core/ports/container_runtime.ts";
import type { HttpResult, TlsClientMaterial } from "../../core/ports/http.ts";
import type { InitSystem } from "../../core/ports/services.ts";
import type { Machine } from "../../core/ports/machine.ts";
import { errorMessage } from "../../core/errors.ts";
import { RootedNodeFiles } from "./files.ts";
import { criSocketPath } from "./cri/endpoint.ts";
import { resolveInRootSync } from "./fs/rooted_path.ts";
import { deferred, type MethodNames } from "./host/deferred.ts";

/** The container runtime's methods (its CRI client is loaded on the first call). */
const CONTAINER_RUNTIME_METHODS: MethodNames<Omit<ContainerRuntime, "socket">> = {
  connect: true,
  isRunning: true,
  runtimeConfig: true,
  imageExists: true,
  pullImage: true,
  sandboxImage: true,
  listKubePods: true,
  removePods: true,
  listPodContainers: true,
  stopContainer: true,
};

// Process execution, init-system detection and the CRI client load when first used.
const exec = () => import("./host/exec.ts");

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

function statusField(status: string | undefined, field: string): string | undefined {
  return status?.split("\n").find((l) => l.startsWith(`${field}:`))?.slice(field.length + 1)
    .trim();
}

/** Counts the CPUs in a list such as `0-3,8,10-11`. */
export function countCPUList(list: string): number {
  let n = 0;
  for (const part of list.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [a, b] = part.split("-").map(Number);
    n += b === undefined ? 1 : b - a + 1;
  }
  return n;
}

/** Decodes the octal escapes (`\040`) the kernel uses in mount tables. */
export function unescapeMountPath(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** Parses `/etc/hosts` text: the addresses listed for `name` (case-insensitive). */
export function hostsFileAddresses(text: string, name: string): string[] {
  const out: string[] = [];
  const wanted = name.toLowerCase();
  for (const raw of text.split("\n")) {
    const fields = raw.replace(/#.*/, "").trim().split(/\s+/);
    if (fields.length < 2) continue;
    if (fields.slice(1).some((h) => h.toLowerCase() === wanted)) out.push(fields[0]);
  }
  return out;
}

/**
 * The CRI endpoint to dial for `endpoint` as the node names it: under a `--rootfs` other than
 * `/`, its socket inside that root (symlinks resolved inside it), as upstream dials it from
 * inside its `chroot`, never the running machine's runtime. Endpoints that are no `unix://`
 * socket are left to the CRI client's own error.
 */
export function criEndpointInRoot(root: string, endpoint: string): string {
  if (root.replace(/\/+$/, "") === "") return endpoint;
  let path: string;
  try {
    path = criSocketPath(endpoint);
  } catch {
    return endpoint;
  }
  return `unix://${resolveInRootSync(root, path)}`;
}

/** Options of {@link DenoMachine}. */
export interface DenoMachineOptions {
  /** `--rootfs` (default `/`). */
  root?: string;
  /** Replaces init-system detection (tests: never touch the machine's services). */
  initSystem?: () => Promise<InitSystem | undefined>;
  /** Replaces the CRI runtime factory. */
  containerRuntime?: (socket: string) => ContainerRuntime;
}

/** The running machine. */
export class DenoMachine implements Machine {
  readonly files: RootedNodeFiles;
  readonly #initSystem: () => Promise<InitSystem | undefined>;
  readonly #containerRuntime: (socket: string) => ContainerRuntime;

  constructor(opts: DenoMachineOptions = {}) {
    this.files = new RootedNodeFiles(opts.root ?? "/");
    this.#initSystem = opts.initSystem ??
      (async () => await (await import("./services.ts")).detectInitSystem());
    const root = opts.root ?? "/";
    this.#containerRuntime = opts.containerRuntime ??
      ((s) =>
        deferred(
          () =>
            import("./container_runtime.ts").then((m) =>
              new m.CriSocketRuntime(criEndpointInRoot(root, s))
            ),
          CONTAINER_RUNTIME_METHODS,
          { socket: s },
        ));
  }

  async uid(): Promise<number> {
    try {
      const uid = Deno.uid();
      if (uid !== null) return uid;
    } catch {
      // no --allow-sys=uid: fall back to /proc
    }
    const real = statusField(await readText("/proc/self/status"), "Uid")?.split(/\s+/)[0];
    if (real === undefined) throw new Error("cannot determine the user ID");
    return Number(real);
  }

  async numCPU(): Promise<number> {
    const list = statusField(await readText("/proc/self/status"), "Cpus_allowed_list");
    if (list) return countCPUList(list);
    return navigator.hardwareConcurrency;
  }

  async memTotalMiB(): Promise<number> {
    const line = (await readText("/proc/meminfo"))?.split("\n").find((l) =>
      l.startsWith("MemTotal:")
    );
    const kb = line ? Number(line.split(/\s+/)[1]) : NaN;
    if (Number.isFinite(kb)) return Math.floor(kb / 1024);
    return Math.floor(Deno.systemMemoryInfo().total / 1024 / 1024);
  }

  async readSystemFile(path: string): Promise<Uint8Array | undefined> {
    try {
      return await Deno.readFile(path);
    } catch (e) {
      // Not being allowed to look is not the same as the file being absent.
      if (e instanceof Deno.errors.NotCapable) throw e;
      return undefined;
    }
  }

  async kernelRelease(): Promise<string> {
    const fromProc = await readText("/proc/sys/kernel/osrelease");
    if (fromProc !== undefined) return fromProc.trim();
    return Deno.osRelease();
  }

  async osName(): Promise<string> {
    const fromProc = await readText("/proc/sys/kernel/ostype");
    if (fromProc !== undefined) return fromProc.trim();
    const os = Deno.build.os;
    return os === "linux" ? "Linux" : os === "darwin" ? "Darwin" : os;
  }

  async cgroupVersion(): Promise<1 | 2> {
    const mountinfo = await readText("/proc/self/mountinfo");
    let fsType: string | undefined;
    for (const line of mountinfo?.split("\n") ?? []) {
      const [pre, post] = line.split(" - ");
      if (post === undefined) continue;
      if (unescapeMountPath(pre.split(" ")[4] ?? "") === "/sys/fs/cgroup") {
        fsType = post.split(" ")[0];
      }
    }
    if (fsType !== undefined) return fsType === "cgroup2" ? 2 : 1;
    try {
      await Deno.stat("/sys/fs/cgroup");
    } catch (e) {
      throw new Error(
        e instanceof Deno.errors.NotFound ? "no such file or directory" : errorMessage(e),
      );
    }
    return 1;
  }

  async lookPath(command: string): Promise<string | undefined> {
    return await (await exec()).lookPath(command);
  }

  /**
   * `kubelet --version`'s output, run once per machine (a run): preflight's `KubeletVersion`
   * and `SystemVerification` both ask, and the kubelet binary costs ~0.15–0.2 s of CPU per
   * start (upstream runs it for each check).
   */
  kubeletVersionOutput(): Promise<string> {
    return this.#kubeletVersion ??= this.#runKubeletVersion();
  }

  #kubeletVersion: Promise<string> | undefined;

  async #runKubeletVersion(): Promise<string> {
    const { exitStatus, lookPath, runCommand } = await exec();
    const what = "cannot execute 'kubelet --version'";
    if ((await lookPath("kubelet")) === undefined) {
      throw new Error(`${what}: executable file not found in $PATH`);
    }
    const r = await runCommand("kubelet", ["--version"], { timeoutMs: 30_000 });
    if (r.code !== 0) throw new Error(`${what}: ${exitStatus(r)}`);
    return r.stdout;
  }

  isPortFree(port: number, address?: string): Promise<boolean> {
    if (address) {
      try {
        Deno.listen({ hostname: address, port, transport: "tcp" }).close();
        return Promise.resolve(true);
      } catch (e) {
        if (e instanceof Deno.errors.NotCapable) return Promise.reject(e);
        // Upstream reports any listen error (address not on this host included) as in use.
        return Promise.resolve(false);
      }
    }
    // Go listens on ":<port>": the IPv6 wildcard (dual-stack), or IPv4's without IPv6.
    for (const hostname of ["::", "0.0.0.0"]) {
      try {
        Deno.listen({ hostname, port, transport: "tcp" }).close();
        return Promise.resolve(true);
      } catch (e) {
        if (e instanceof Deno.errors.AddrInUse) return Promise.resolve(false);
        if (e instanceof Deno.errors.NotCapable) return Promise.reject(e);
      }
    }
    return Promise.resolve(false);
  }

  initSystem(): Promise<InitSystem | undefined> {
    return this.#initSystem();
  }

  async lookupHost(name: string): Promise<string[]> {
    const hosts = hostsFileAddresses((await readText("/etc/hosts")) ?? "", name);
    if (hosts.length > 0) return hosts;
    const ns = (await readText("/etc/resolv.conf"))?.split("\n").map((l) => l.trim().split(/\s+/))
      .find((f) => f[0] === "nameserver")?.[1];
    const where = ns
      ? `lookup ${name} on ${ns.includes(":") ? `[${ns}]` : ns}:53`
      : `lookup ${name}`;
    // The C library's resolver (getaddrinfo, through node:dns, loaded only here), as Go's
    // resolver does it: a name server that refuses (an unreachable port) fails the lookup at
    // once. Deno.resolveDns keeps asking it until its own timeouts (15 s measured).
    const { lookup } = await import("node:dns/promises");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("i/o timeout")), 10_000);
    });
    try {
      const addrs = await Promise.race([lookup(name, { all: true, verbatim: true }), deadline]);
      if (addrs.length > 0) return addrs.map((a) => a.address);
      throw Object.assign(new Error("no address"), { code: "ENODATA" });
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ENOTFOUND" || code === "ENODATA") throw new Error(`${where}: no such host`);
      if (code === "EAI_AGAIN") {
        throw new Error(`${where}: temporary failure in name resolution`);
      }
      throw new Error(`${where}: ${errorMessage(e)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  env(name: string): string | undefined {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  }

  containerRuntime(socket: string): ContainerRuntime {
    return this.#containerRuntime(socket);
  }

  async httpGet(url: string, tls: TlsClientMaterial, timeoutMs: number): Promise<HttpResult> {
    // The HTTPS stack (node:https) loads with the first probe, not with the machine.
    const { createDenoTransport } = await import("./transport.ts");
    const t = createDenoTransport({
      server: new URL(url).origin,
      caPem: tls.caPem,
      certPem: tls.certPem,
      keyPem: tls.keyPem,
    }, { timeoutMs });
    const request = new Request(url);
    try {
      const res = await t.transport(request);
      const body = await res.text();
      return { status: res.status, statusText: `${res.status} ${res.statusText}`.trim(), body };
    } catch (e) {
      const { transportDetail } = await import("./transport/errors.ts");
      throw new Error(transportDetail(e, request));
    } finally {
      t.close();
    }
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}
