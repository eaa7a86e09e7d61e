/**
 * The running machine as the core sees it: its facts (user, CPUs, memory, kernel, cgroups,
 * ports, DNS, environment), kubeadm's files on it, its service manager and container runtime.
 *
 * Two kinds of paths exist. **Node files** (`/etc/kubernetes/...`, `/var/lib/etcd`, certificate
 * files) are what kubeadm writes; the runtime resolves them under `--rootfs`. **System files**
 * (`/proc/...`, `/sys/...`, `/boot/config-*`) are kernel interfaces of the running machine and
 * are never mapped. Everything else (ports, processes, services, DNS, environment) is about the
 * running machine too. A test supplies a fake; the Deno CLI supplies `adapters/deno/machine.ts`.
 *
 * @module
 */
import type { ContainerRuntime } from "./container_runtime.ts";
import type { HttpResult, TlsClientMaterial } from "./http.ts";
import type { NodeFiles } from "./files.ts";
import type { InitSystem } from "./services.ts";

/** The machine: what preflight checks look at, and what reset needs to know about it. */
export interface Machine {
  /** The process's real user ID (Go's `os.Getuid`). */
  uid(): Promise<number>;
  /** CPUs this process may run on (Go's `runtime.NumCPU`: the scheduler affinity mask). */
  numCPU(): Promise<number>;
  /** Total usable RAM in MiB (`sysinfo` totalram × unit). */
  memTotalMiB(): Promise<number>;
  /** kubeadm's files, under `--rootfs`. */
  readonly files: NodeFiles;
  /** A kernel-interface file (`/proc`, `/sys`, `/boot`); `undefined` when absent. Never mapped. */
  readSystemFile(path: string): Promise<Uint8Array | undefined>;
  /** `uname -r`. */
  kernelRelease(): Promise<string>;
  /** `uname -s` (`Linux`). */
  osName(): Promise<string>;
  /** 2 when `/sys/fs/cgroup` is a cgroup2 mount, else 1; rejects when it cannot be inspected. */
  cgroupVersion(): Promise<1 | 2>;
  /** The path of an executable found in `$PATH` (Go's `exec.LookPath`), or `undefined`. */
  lookPath(command: string): Promise<string | undefined>;
  /**
   * Output of `kubelet --version`; rejects with `cannot execute 'kubelet --version': <why>`.
   */
  kubeletVersionOutput(): Promise<string>;
  /**
   * Whether a TCP listener can be opened on `<address>:<port>`, or on `:<port>` (all addresses)
   * without an address. Any failure to listen counts as "not free" (as upstream's check).
   */
  isPortFree(port: number, address?: string): Promise<boolean>;
  /** The service manager, or `undefined` when none is supported. */
  initSystem(): Promise<InitSystem | undefined>;
  /** Addresses a name resolves to (hosts file, then DNS); rejects with Go-style `lookup` text. */
  lookupHost(name: string): Promise<string[]>;
  /** An environment variable of the process. */
  env(name: string): string | undefined;
  /** The container runtime behind a CRI endpoint. */
  containerRuntime(socket: string): ContainerRuntime;
  /** GET over HTTP(S); rejects on transport failure (connection, TLS, timeout). */
  httpGet(url: string, tls: TlsClientMaterial, timeoutMs: number): Promise<HttpResult>;
  /** Waits; lets tests skip upstream's retry pauses. */
  sleep(ms: number): Promise<void>;
}
