/**
 * The narrow view of the machine that preflight checks (and `reset`) read through.
 *
 * Two kinds of paths exist. **Node files** (`/etc/kubernetes/...`, `/var/lib/etcd`, certificate
 * files) are what kubeadm writes; the runtime resolves them under `--rootfs`. **System files**
 * (`/proc/...`, `/sys/...`, `/boot/config-*`) are kernel interfaces of the running machine and
 * are never mapped. Everything else (ports, processes, services, DNS, environment) is about the
 * running machine too. A test supplies a fake; the Deno CLI supplies
 * `runtime/host/preflight_host.ts`.
 *
 * @module
 */
import type { ContainerRuntime } from "../host/container_runtime.ts";

export type { ContainerRuntime };

/** Read access to kubeadm's files on the node (paths resolved under `--rootfs`). */
export interface NodeFiles {
  /** File content; `undefined` when the path does not exist or is not a regular file. */
  read(path: string): Promise<Uint8Array | undefined>;
  /** Directory entry names; `undefined` when the path does not exist or is not a directory. */
  list(path: string): Promise<string[] | undefined>;
  /** Whether anything (file, directory, resolvable symlink) exists at the path (Go's `os.Stat`). */
  exists(path: string): Promise<boolean>;
}

/** A service manager (upstream's `initsystem.InitSystem`): systemd or OpenRC. */
export interface InitSystem {
  /** `systemd` or `openrc`. */
  readonly name: string;
  /** The command that enables a service, as shown to the user. */
  enableCommand(service: string): string;
  /** Whether the service unit is defined. */
  serviceExists(service: string): Promise<boolean>;
  /** Whether the service starts on boot. */
  serviceIsEnabled(service: string): Promise<boolean>;
  /** Whether the service is running (or activating). */
  serviceIsActive(service: string): Promise<boolean>;
  /** Stops a service; rejects with the command's failure (`exit status 5`). */
  serviceStop(service: string): Promise<void>;
}

/** PEM material for a TLS client. */
export interface TlsClientMaterial {
  /** The CA bundle the server must chain to: the only roots trusted (none given: none). */
  caPem?: string;
  /** Client certificate chain. */
  certPem?: string;
  /** Client private key. */
  keyPem?: string;
}

/** A plain HTTP(S) response, body already read. */
export interface HttpResult {
  status: number;
  /** `200 OK`, as Go prints `Response.Status`. */
  statusText: string;
  body: string;
}

/** Everything a preflight check may look at. */
export interface PreflightHost {
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
  /** Whether a TCP listener can be opened on `:<port>` (all addresses). */
  isPortFree(port: number): Promise<boolean>;
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
