/**
 * The container runtime port ({@link ContainerRuntime}) on a CRI socket, through the native CRI
 * client (`adapters/deno/cri/`), with upstream kubeadm's semantics (`util/runtime`): `RuntimeReady`
 * alone decides whether the runtime runs (not `NetworkReady`); a failing image status counts as
 * an absent image; pulls are tried {@link PULL_IMAGE_ATTEMPTS} times; every sandbox is stopped
 * and removed with up to {@link REMOVE_POD_ATTEMPTS} tries, failures reported together.
 *
 * Each operation opens its own connection and closes it when done.
 *
 * @module
 */
import type {
  ContainerRuntime,
  ContainerState,
  PodContainer,
  RuntimeConfig,
} from "../../core/ports/container_runtime.ts";
import { errorMessage } from "../../core/errors.ts";
import type { CriClient } from "./cri/client.ts";
import { criSocketPath } from "./cri/endpoint.ts";
import { faultInjectionArmed, faultPoint } from "./fault_injection.ts";

/** How often a failed pull is tried (upstream's `PullImageRetry`). */
export const PULL_IMAGE_ATTEMPTS = 5;
/** How often stopping + removing one sandbox is tried (upstream's `RemoveContainerRetry`). */
export const REMOVE_POD_ATTEMPTS = 5;

/** The CRI calls this adapter makes (a {@link CriClient}, or a test's fake). */
export type CriCalls = Pick<
  CriClient,
  | "status"
  | "runtimeConfig"
  | "imageStatus"
  | "pullImage"
  | "listPodSandbox"
  | "stopPodSandbox"
  | "removePodSandbox"
  | "listContainers"
  | "stopContainer"
  | "close"
>;

/** The kubelet's labels on a Pod's containers (`pkg/kubelet/types/labels.go`). */
const POD_NAME_LABEL = "io.kubernetes.pod.name";
const POD_NAMESPACE_LABEL = "io.kubernetes.pod.namespace";

const STATES: Record<string, ContainerState> = {
  CONTAINER_CREATED: "created",
  CONTAINER_RUNNING: "running",
  CONTAINER_EXITED: "exited",
  CONTAINER_UNKNOWN: "unknown",
};

/** Options of {@link CriSocketRuntime}. */
export interface CriSocketRuntimeOptions {
  /** Opens a client of the endpoint (default: {@link CriClient.open}). */
  open?: (endpoint: string) => Promise<CriCalls>;
}

function dialError(path: string, e: unknown): Error {
  const why = e instanceof Deno.errors.NotFound
    ? "no such file or directory"
    : e instanceof Deno.errors.ConnectionRefused
    ? "connection refused"
    : e instanceof Deno.errors.PermissionDenied
    ? "permission denied"
    : errorMessage(e);
  return new Error(`dial unix ${path}: connect: ${why}`);
}

/** Several failures as one error, the way Kubernetes' `errors.NewAggregate` prints them. */
function aggregate(errors: string[]): Error | undefined {
  if (errors.length === 0) return undefined;
  return new Error(errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`);
}

/** A CRI endpoint driven through the native CRI client. */
export class CriSocketRuntime implements ContainerRuntime {
  readonly socket: string;
  readonly #open: (endpoint: string) => Promise<CriCalls>;
  /** Container names by ID, as listed, for the fault point of a stop (fault injection only). */
  readonly #names = new Map<string, string>();

  constructor(socket: string, opts: CriSocketRuntimeOptions = {}) {
    this.socket = socket;
    // The gRPC client (and the Node compatibility layer it needs) loads on the first call, so
    // commands that never reach the runtime do not pay for it.
    this.#open = opts.open ??
      (async (endpoint) => (await import("./cri/client.ts")).CriClient.open(endpoint));
  }

  async #with<T>(use: (client: CriCalls) => Promise<T>): Promise<T> {
    const client = await this.#open(this.socket);
    try {
      return await use(client);
    } finally {
      client.close();
    }
  }

  async connect(): Promise<void> {
    const path = criSocketPath(this.socket);
    let conn: Deno.UnixConn;
    try {
      conn = await Deno.connect({ transport: "unix", path });
    } catch (e) {
      throw dialError(path, e);
    }
    conn.close();
  }

  isRunning(): Promise<void> {
    return this.#with(async (client) => {
      const status = await client.status(false);
      for (const c of status.conditions) {
        if (c.type === "RuntimeReady" && !c.status) {
          throw new Error(
            `container runtime condition "RuntimeReady" is not true. reason: ${c.reason}, message: ${c.message}`,
          );
        }
      }
    });
  }

  runtimeConfig(): Promise<RuntimeConfig | undefined> {
    return this.#with(async (client) => {
      try {
        const cfg = await client.runtimeConfig();
        return cfg.cgroupDriver === undefined ? {} : { cgroupDriver: cfg.cgroupDriver };
      } catch (e) {
        const { CriCallError } = await import("./cri/client.ts");
        if (e instanceof CriCallError && e.code === "Unimplemented") return undefined;
        throw new Error(`failed to call RuntimeConfig gRPC method: ${errorMessage(e)}`, {
          cause: e,
        });
      }
    });
  }

  imageExists(image: string): Promise<boolean> {
    return this.#with(async (client) => {
      try {
        return (await client.imageStatus(image)) !== undefined;
      } catch {
        return false;
      }
    });
  }

  pullImage(image: string): Promise<void> {
    return this.#with(async (client) => {
      let last: unknown;
      for (let i = 0; i < PULL_IMAGE_ATTEMPTS; i++) {
        try {
          await client.pullImage(image);
          return;
        } catch (e) {
          last = e;
        }
      }
      // Named here as upstream's CRIRuntime.PullImage names it; callers add their own prefix.
      throw new Error(`failed to pull image ${image}: ${errorMessage(last)}`, { cause: last });
    });
  }

  async sandboxImage(): Promise<string | undefined> {
    try {
      return await this.#with(async (client) => {
        const config = (await client.status(true)).info["config"];
        if (config === undefined) return undefined;
        const image = JSON.parse(config)?.sandboxImage;
        return typeof image === "string" && image !== "" ? image : undefined;
      });
    } catch {
      return undefined;
    }
  }

  listKubePods(): Promise<string[]> {
    return this.#with(async (client) => {
      try {
        return (await client.listPodSandbox()).map((s) => s.id);
      } catch (e) {
        throw new Error(`failed to list pod sandboxes: ${errorMessage(e)}`, { cause: e });
      }
    });
  }

  listPodContainers(namespace: string, name: string): Promise<PodContainer[]> {
    return this.#with(async (client) => {
      try {
        const list = await client.listContainers({
          [POD_NAMESPACE_LABEL]: namespace,
          [POD_NAME_LABEL]: name,
        });
        if (faultInjectionArmed()) { for (const c of list) this.#names.set(c.id, c.metadata.name); }
        return list.map((c) => ({
          id: c.id,
          name: c.metadata.name,
          attempt: c.metadata.attempt,
          state: STATES[c.state] ?? "unknown",
          createdAt: Number(c.createdAt / 1_000_000n),
        }));
      } catch (e) {
        throw new Error(
          `failed to list the containers of Pod ${namespace}/${name}: ${errorMessage(e)}`,
          { cause: e },
        );
      }
    });
  }

  stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    return this.#with(async (client) => {
      try {
        await client.stopContainer(id, timeoutSeconds);
      } catch (e) {
        throw new Error(`failed to stop container ${id}: ${errorMessage(e)}`, { cause: e });
      }
      faultPoint(`container:stop:${this.#names.get(id) ?? id}`);
    });
  }

  removePods(ids: readonly string[]): Promise<void> {
    return this.#with(async (client) => {
      const errors: string[] = [];
      for (const id of ids) {
        let last: string | undefined;
        for (let i = 0; i < REMOVE_POD_ATTEMPTS; i++) {
          try {
            await client.stopPodSandbox(id);
          } catch (e) {
            last = `failed to stop running pod ${id}: ${errorMessage(e)}`;
            continue;
          }
          try {
            await client.removePodSandbox(id);
          } catch (e) {
            last = `failed to remove pod ${id}: ${errorMessage(e)}`;
            continue;
          }
          last = undefined;
          break;
        }
        if (last !== undefined) errors.push(last);
      }
      const err = aggregate(errors);
      if (err) throw err;
    });
  }
}
