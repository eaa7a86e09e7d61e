/**
 * The container runtime port: what preflight (`CRI`, `ContainerRuntimeVersion`, `ImagePull`),
 * `config images pull` and reset (`cleanup-node`) ask of the runtime behind a CRI endpoint,
 * after upstream kubeadm's `util/runtime.ContainerRuntime`; and, beyond upstream, the containers
 * of a static Pod and stopping one, for restarting it in place after a certificate renewal. The Deno runtime implements it with
 * a native CRI (gRPC) client (`adapters/deno/container_runtime.ts`); tests use fakes.
 *
 * @module
 */

/** A cgroup driver, as the runtime reports it through the CRI `RuntimeConfig` call. */
export type CgroupDriver = "systemd" | "cgroupfs";

/** What the runtime's `RuntimeConfig` call reports. */
export interface RuntimeConfig {
  /**
   * The runtime's Linux cgroup driver (the kubelet must use the same); absent when the runtime
   * sent no Linux configuration.
   */
  cgroupDriver?: CgroupDriver;
}

/** A container's state (CRI `ContainerState`). */
export type ContainerState = "created" | "running" | "exited" | "unknown";

/** A container of a Pod, as the runtime lists it. */
export interface PodContainer {
  id: string;
  /** Its name in the Pod (`etcd`). */
  name: string;
  /** How many times the kubelet restarted it in this Pod (CRI `attempt`). */
  attempt: number;
  state: ContainerState;
  /** When the runtime created it (ms since the epoch). */
  createdAt: number;
}

/** A container runtime reached through its CRI socket. */
export interface ContainerRuntime {
  /** The CRI endpoint (`unix:///var/run/containerd/containerd.sock`). */
  readonly socket: string;
  /** Opens a connection to the socket; rejects when nothing answers there. */
  connect(): Promise<void>;
  /** Rejects when the runtime cannot be asked or reports `RuntimeReady` false. */
  isRunning(): Promise<void>;
  /**
   * The runtime's `RuntimeConfig` (KEP-4033); `undefined` when the runtime does not implement
   * the call. Rejects for any other failure.
   */
  runtimeConfig(): Promise<RuntimeConfig | undefined>;
  /** Whether the image is present locally (a failing query counts as absent). */
  imageExists(image: string): Promise<boolean>;
  /**
   * Pulls an image; after its attempts rejects with `failed to pull image <image>: <cause>`, as
   * upstream's runtime does (the preflight check and `config images pull` prefix it again).
   */
  pullImage(image: string): Promise<void>;
  /** The runtime's configured sandbox (pause) image, when it can tell. */
  sandboxImage(): Promise<string | undefined>;
  /** IDs of the Pod sandboxes the runtime has. */
  listKubePods(): Promise<string[]>;
  /** Stops and removes Pod sandboxes (with their containers). */
  removePods(ids: readonly string[]): Promise<void>;
  /**
   * The containers (running or not) of the Pods the kubelet runs as `namespace/name`, by the
   * labels it puts on them (`io.kubernetes.pod.namespace`, `io.kubernetes.pod.name`).
   */
  listPodContainers(namespace: string, name: string): Promise<PodContainer[]>;
  /**
   * Stops a container: the runtime signals it and kills it after `timeoutSeconds`. The kubelet
   * then starts it again in the same Pod (restart policy `Always`).
   */
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
}
