/**
 * A scriptable {@link Machine} for tests. Its defaults describe a healthy node on which
 * every init and join check passes (root, 4 CPUs, 8 GiB, Linux 6.8 with a complete kernel
 * config, cgroup v2, forwarding on, no swap, kubelet v1.37.2 installed and enabled, a CRI
 * runtime answering); each test changes the one thing it is about.
 *
 * @module
 */
import type {
  ContainerRuntime,
  ContainerState,
  PodContainer,
  RuntimeConfig,
} from "../../core/ports/container_runtime.ts";
import type { HttpResult, TlsClientMaterial } from "../../core/ports/http.ts";
import type { InitSystem } from "../../core/ports/services.ts";
import type { NodeFiles, PlannedFile } from "../../core/ports/files.ts";
import type { Machine } from "../../core/ports/machine.ts";
import { DEFAULT_SYS_SPEC } from "../../core/preflight/system/spec.ts";
import { toBytes } from "../../core/text/utf8.ts";
import type { Printer } from "../../core/ports/printer.ts";

/** A kernel config enabling every option the default spec knows. */
export function completeKernelConfig(): string {
  const k = DEFAULT_SYS_SPEC.kernel;
  const all = [...k.required, ...k.requiredCgroupsV1, ...k.requiredCgroupsV2, ...k.optional];
  return [...new Set(all.map((c) => `CONFIG_${c.name}=y`))].join("\n") + "\n";
}

/** In-memory node files: a map of files plus explicit (possibly empty) directories. */
export class FakeNodeFiles implements NodeFiles {
  readonly files = new Map<string, Uint8Array>();
  readonly dirs = new Set<string>();

  /** Adds a file (its parent directories become visible). */
  put(path: string, data: string | Uint8Array = ""): this {
    this.files.set(path, toBytes(data));
    return this;
  }

  /** Adds an empty directory. */
  mkdir(path: string): this {
    this.dirs.add(path);
    return this;
  }

  #isDir(path: string): boolean {
    if (this.dirs.has(path)) return true;
    const prefix = `${path}/`;
    return [...this.files.keys(), ...this.dirs].some((p) => p.startsWith(prefix));
  }

  read(path: string): Promise<Uint8Array | undefined> {
    return Promise.resolve(this.files.get(path));
  }

  list(path: string): Promise<string[] | undefined> {
    if (!this.#isDir(path)) return Promise.resolve(undefined);
    const prefix = `${path}/`;
    const names = new Set<string>();
    for (const p of [...this.files.keys(), ...this.dirs]) {
      if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split("/")[0]);
    }
    return Promise.resolve([...names].sort());
  }

  exists(path: string): Promise<boolean> {
    return Promise.resolve(this.files.has(path) || this.#isDir(path));
  }

  /** Writes a planned file (so the same store serves as a workflow's {@link FileSystem}). */
  write(file: PlannedFile): Promise<void> {
    this.files.set(file.path, toBytes(file.data));
    return Promise.resolve();
  }
}

/** A scriptable service manager. */
export class FakeInitSystem implements InitSystem {
  /** `systemd` (the default) or `openrc`. */
  constructor(readonly name = "systemd") {}
  /** Services that exist → { enabled, active }. */
  readonly services = new Map<string, { enabled: boolean; active: boolean }>([
    ["kubelet", { enabled: true, active: false }],
  ]);
  /** Error thrown by `serviceStop`, if any. */
  stopError?: Error;
  /** Services stopped, in order. */
  readonly stopped: string[] = [];
  /** Services restarted, in order. */
  readonly restarted: string[] = [];

  enableCommand(service: string): string {
    return `systemctl enable ${service}.service`;
  }
  serviceExists(service: string): Promise<boolean> {
    return Promise.resolve(this.services.has(service));
  }
  serviceInstalled(service: string): Promise<boolean> {
    return this.serviceExists(service);
  }
  serviceIsEnabled(service: string): Promise<boolean> {
    return Promise.resolve(this.services.get(service)?.enabled ?? false);
  }
  serviceIsActive(service: string): Promise<boolean> {
    return Promise.resolve(this.services.get(service)?.active ?? false);
  }
  serviceStop(service: string): Promise<void> {
    this.stopped.push(service);
    return this.stopError ? Promise.reject(this.stopError) : Promise.resolve();
  }
  serviceRestart(service: string): Promise<void> {
    this.restarted.push(service);
    return Promise.resolve();
  }
  /** Reloads so far. */
  reloads = 0;
  /** Properties `unitProperties` answers, by unit. */
  readonly properties = new Map<string, Record<string, string>>();
  serviceEnableNow(unit: string): Promise<void> {
    this.services.set(unit, { enabled: true, active: true });
    return Promise.resolve();
  }
  serviceDisableNow(unit: string): Promise<void> {
    this.services.delete(unit);
    return Promise.resolve();
  }
  reload(): Promise<void> {
    this.reloads++;
    return Promise.resolve();
  }
  unitProperties(unit: string, names: readonly string[]): Promise<Record<string, string>> {
    const all = this.properties.get(unit) ?? {};
    return Promise.resolve(
      Object.fromEntries(names.filter((n) => n in all).map((n) => [n, all[n]])),
    );
  }
}

/** A scriptable container runtime. */
export class FakeContainerRuntime implements ContainerRuntime {
  readonly socket: string;
  /** Error from `connect` (nothing answering), if any. */
  connectError?: Error;
  /** Error from `isRunning`, if any. */
  runningError?: Error;
  /** Images present locally. */
  readonly images = new Set<string>();
  /** Images that fail to pull → error text. */
  readonly pullErrors = new Map<string, string>();
  /** Images pulled, in order. */
  readonly pulled: string[] = [];
  sandbox?: string;
  /** What `runtimeConfig` reports (`undefined`: the call is not implemented). */
  config?: RuntimeConfig = { cgroupDriver: "systemd" };
  /** Error from `runtimeConfig` (a failing call), if any. */
  configError?: Error;
  /** Pod sandboxes present. */
  pods: string[] = [];
  /** Pod sandboxes removed. */
  readonly removed: string[] = [];
  /** The containers of each Pod, by `namespace/name`, oldest first. */
  readonly podContainers = new Map<string, PodContainer[]>();
  /** Containers stopped, with their timeouts. */
  readonly stopped: { id: string; timeoutSeconds: number }[] = [];
  /**
   * The kubelet's part: when a Pod's last container has exited, the state of the next attempt
   * it starts (seen by the next list), or `undefined` to start none yet.
   */
  startNext: (pod: string, previous: PodContainer) => ContainerState | undefined = () => "running";
  /** The time containers are created at (ms since the epoch). */
  now: () => number = () => 0;

  constructor(socket: string) {
    this.socket = socket;
  }
  connect(): Promise<void> {
    return this.connectError ? Promise.reject(this.connectError) : Promise.resolve();
  }
  isRunning(): Promise<void> {
    return this.runningError ? Promise.reject(this.runningError) : Promise.resolve();
  }
  runtimeConfig(): Promise<RuntimeConfig | undefined> {
    return this.configError ? Promise.reject(this.configError) : Promise.resolve(this.config);
  }
  imageExists(image: string): Promise<boolean> {
    return Promise.resolve(this.images.has(image));
  }
  pullImage(image: string): Promise<void> {
    const err = this.pullErrors.get(image);
    if (err) return Promise.reject(new Error(`failed to pull image ${image}: ${err}`));
    this.pulled.push(image);
    this.images.add(image);
    return Promise.resolve();
  }
  sandboxImage(): Promise<string | undefined> {
    return Promise.resolve(this.sandbox);
  }
  listKubePods(): Promise<string[]> {
    return Promise.resolve([...this.pods]);
  }
  removePods(ids: readonly string[]): Promise<void> {
    this.removed.push(...ids);
    this.pods = this.pods.filter((p) => !ids.includes(p));
    return Promise.resolve();
  }
  /** Runs a Pod's container (attempt 0), as the kubelet does for a new Pod. */
  runPod(namespace: string, name: string, container: string, uid = `uid-${name}`): void {
    this.podContainers.set(`${namespace}/${name}`, [
      {
        id: `${uid}-${container}-0`,
        name: container,
        attempt: 0,
        state: "running",
        createdAt: this.now(),
      },
    ]);
  }
  listPodContainers(namespace: string, name: string): Promise<PodContainer[]> {
    const key = `${namespace}/${name}`;
    const list = this.podContainers.get(key) ?? [];
    const last = list.at(-1);
    if (last?.state === "exited") {
      const state = this.startNext(key, last);
      if (state) {
        const attempt = last.attempt + 1;
        const id = `${last.id.slice(0, last.id.lastIndexOf("-"))}-${attempt}`;
        list.push({ ...last, id, attempt, state, createdAt: this.now() });
      }
    }
    return Promise.resolve(structuredClone(list));
  }
  stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    this.stopped.push({ id, timeoutSeconds });
    for (const list of this.podContainers.values()) {
      for (const c of list) if (c.id === id) c.state = "exited";
    }
    return Promise.resolve();
  }
}

/** The fake host. */
export class FakeMachine implements Machine {
  uidValue = 0;
  cpus = 4;
  memMiB: number | Error = 8192;
  readonly files = new FakeNodeFiles();
  readonly systemFiles = new Map<string, Uint8Array>();
  kernel: string | Error = "6.8.0-45-generic";
  os = "Linux";
  cgroup: 1 | 2 | Error = 2;
  readonly executables = new Set(["losetup", "mount", "cp", "kubelet", "systemctl"]);
  kubeletOutput: string | Error = "Kubernetes v1.37.2\n";
  readonly busyPorts = new Set<number>();
  /** Addresses that are not on this host: listening on them fails. */
  readonly foreignAddresses = new Set<string>();
  init: FakeInitSystem | undefined = new FakeInitSystem();
  /** Name → addresses; a missing name fails with `no such host`. */
  readonly dns = new Map<string, string[]>();
  readonly envVars: Record<string, string> = {};
  readonly runtimes = new Map<string, FakeContainerRuntime>();
  /** Answers `httpGet`; default: connection refused. */
  http: (url: string, tls: TlsClientMaterial) => HttpResult | Error = () =>
    new Error("connection refused");
  /** Every `httpGet` call. */
  readonly httpCalls: { url: string; tls: TlsClientMaterial }[] = [];
  /** Every `sleep` call. */
  readonly sleeps: number[] = [];

  constructor() {
    this.setSystemFile("/proc/sys/net/ipv4/ip_forward", "1\n");
    this.setSystemFile("/proc/sys/net/ipv6/conf/default/forwarding", "1\n");
    this.setSystemFile("/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
    this.setSystemFile("/boot/config-6.8.0-45-generic", completeKernelConfig());
    this.setSystemFile(
      "/sys/fs/cgroup/cgroup.controllers",
      "cpuset cpu io memory hugetlb pids rdma misc\n",
    );
    this.setSystemFile(
      "/proc/cgroups",
      "#subsys_name\thierarchy\tnum_cgroups\tenabled\n" +
        ["cpuset", "cpu", "cpuacct", "blkio", "memory", "devices", "freezer", "pids", "hugetlb"]
          .map((c, i) => `${c}\t${i + 1}\t1\t1`).join("\n") +
        "\n",
    );
  }

  /** Sets a kernel-interface file. */
  setSystemFile(path: string, data: string | Uint8Array): this {
    this.systemFiles.set(path, toBytes(data));
    return this;
  }

  /** The runtime behind a socket (created answering and healthy on first use). */
  runtime(socket: string): FakeContainerRuntime {
    let rt = this.runtimes.get(socket);
    if (!rt) {
      rt = new FakeContainerRuntime(socket);
      this.runtimes.set(socket, rt);
    }
    return rt;
  }

  uid(): Promise<number> {
    return Promise.resolve(this.uidValue);
  }
  numCPU(): Promise<number> {
    return Promise.resolve(this.cpus);
  }
  memTotalMiB(): Promise<number> {
    return this.memMiB instanceof Error
      ? Promise.reject(this.memMiB)
      : Promise.resolve(this.memMiB);
  }
  readSystemFile(path: string): Promise<Uint8Array | undefined> {
    return Promise.resolve(this.systemFiles.get(path));
  }
  kernelRelease(): Promise<string> {
    return this.kernel instanceof Error
      ? Promise.reject(this.kernel)
      : Promise.resolve(this.kernel);
  }
  osName(): Promise<string> {
    return Promise.resolve(this.os);
  }
  cgroupVersion(): Promise<1 | 2> {
    return this.cgroup instanceof Error
      ? Promise.reject(this.cgroup)
      : Promise.resolve(this.cgroup);
  }
  lookPath(command: string): Promise<string | undefined> {
    return Promise.resolve(this.executables.has(command) ? `/usr/bin/${command}` : undefined);
  }
  kubeletVersionOutput(): Promise<string> {
    return this.kubeletOutput instanceof Error
      ? Promise.reject(this.kubeletOutput)
      : Promise.resolve(this.kubeletOutput);
  }
  isPortFree(port: number, address?: string): Promise<boolean> {
    if (address !== undefined && this.foreignAddresses.has(address)) return Promise.resolve(false);
    return Promise.resolve(!this.busyPorts.has(port));
  }
  initSystem(): Promise<InitSystem | undefined> {
    return Promise.resolve(this.init);
  }
  lookupHost(name: string): Promise<string[]> {
    const hit = this.dns.get(name);
    return hit
      ? Promise.resolve(hit)
      : Promise.reject(new Error(`lookup ${name} on 10.0.0.53:53: no such host`));
  }
  env(name: string): string | undefined {
    return this.envVars[name];
  }
  containerRuntime(socket: string): ContainerRuntime {
    return this.runtime(socket);
  }
  httpGet(url: string, tls: TlsClientMaterial): Promise<HttpResult> {
    this.httpCalls.push({ url, tls });
    const r = this.http(url, tls);
    return r instanceof Error ? Promise.reject(r) : Promise.resolve(r);
  }
  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    return Promise.resolve();
  }
}

/** A {@link Printer} that records stdout and stderr lines (and their interleaving). */
export class CapturePrinter implements Printer {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  /** Both streams in order, stderr lines prefixed `E: `. */
  readonly all: string[] = [];

  info(line: string): void {
    this.stdout.push(line);
    this.all.push(line);
  }
  warn(line: string): void {
    this.stderr.push(line);
    this.all.push(`E: ${line}`);
  }
}
