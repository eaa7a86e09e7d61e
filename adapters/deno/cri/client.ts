/**
 * A CRI v1 client for the calls kubeadm makes: `Version`, `Status` and `RuntimeConfig` on the
 * runtime service; `ImageStatus` and `PullImage` on the image service; `ListPodSandbox`,
 * `StopPodSandbox` and `RemovePodSandbox` for reset; `ListContainers` and `StopContainer` for
 * restarting a static Pod's container in place. No `crictl` involved.
 *
 * Deadlines follow upstream kubeadm's CRI use: 2 s per call (`defaultTimeout`), except image
 * pulls, which upstream leaves unbounded and this client bounds by {@link PULL_TIMEOUT_MS}, and
 * container stops, given their stop timeout on top (as the kubelet's CRI client does).
 *
 * @module
 */
import {
  type CgroupDriver,
  type ContainerInfo,
  type ContainerState,
  decodeEmptyResponse,
  decodeImageStatusResponse,
  decodeListContainersResponse,
  decodeListPodSandboxResponse,
  decodePullImageResponse,
  decodeRuntimeConfigResponse,
  decodeStatusResponse,
  decodeVersionResponse,
  encodeImageStatusRequest,
  encodeListContainersRequest,
  encodeListPodSandboxRequest,
  encodePodSandboxIdRequest,
  encodePullImageRequest,
  encodeRuntimeConfigRequest,
  encodeStatusRequest,
  encodeStopContainerRequest,
  encodeVersionRequest,
  type ImageInfo,
  type PodSandbox,
  type RuntimeConfigInfo,
  type RuntimeStatusInfo,
  type VersionInfo,
} from "./messages.ts";
import { CriCallError, CriConnection, type CriConnectionOptions } from "./transport.ts";

export type {
  CgroupDriver,
  ContainerInfo,
  ContainerState,
  ImageInfo,
  PodSandbox,
  RuntimeConfigInfo,
  RuntimeStatusInfo,
  VersionInfo,
};
export { CriCallError };

/** Deadline of every call but image pulls (upstream kubeadm's `defaultTimeout`). */
export const CALL_TIMEOUT_MS = 2_000;
/**
 * What a `StopContainer` call may take beyond its timeout: the kill and the runtime's clean-up
 * after it (over 2 s on a node loaded to 17 per core, where a 5 s stop of kube-apiserver failed).
 */
export const STOP_KILL_MS = 20_000;

/** Deadline of one image pull. */
export const PULL_TIMEOUT_MS = 15 * 60_000;

const RUNTIME = "runtime.v1.RuntimeService";
const IMAGES = "runtime.v1.ImageService";

/** Options of {@link CriClient.open}. */
export interface CriClientOptions extends CriConnectionOptions {
  /** Deadline of each call but pulls, in ms (default {@link CALL_TIMEOUT_MS}). */
  callTimeoutMs?: number;
  /** Deadline of each pull, in ms (default {@link PULL_TIMEOUT_MS}). */
  pullTimeoutMs?: number;
}

/** A client of one runtime's CRI socket. Close it when done. */
export class CriClient {
  readonly #conn: CriConnection;
  readonly #callMs: number;
  readonly #pullMs: number;

  private constructor(conn: CriConnection, opts: CriClientOptions) {
    this.#conn = conn;
    this.#callMs = opts.callTimeoutMs ?? CALL_TIMEOUT_MS;
    this.#pullMs = opts.pullTimeoutMs ?? PULL_TIMEOUT_MS;
  }

  /** A client of `endpoint`; the socket is dialled by the first call. */
  static async open(endpoint: string, opts: CriClientOptions = {}): Promise<CriClient> {
    return new CriClient(await CriConnection.open(endpoint, opts), opts);
  }

  /** Runs `use` with a client of `endpoint`, closing it afterwards. */
  static async with<T>(
    endpoint: string,
    use: (client: CriClient) => Promise<T>,
    opts: CriClientOptions = {},
  ): Promise<T> {
    const client = await CriClient.open(endpoint, opts);
    try {
      return await use(client);
    } finally {
      client.close();
    }
  }

  /** The endpoint this client talks to. */
  get endpoint(): string {
    return this.#conn.endpoint;
  }

  /** `Version`: the runtime's name and versions. */
  async version(): Promise<VersionInfo> {
    const res = await this.#conn.unary(
      `${RUNTIME}/Version`,
      encodeVersionRequest("v1"),
      this.#callMs,
    );
    return decodeVersionResponse(res);
  }

  /** `Status`: the runtime's conditions; with `verbose`, also its `info` map. */
  async status(verbose = false): Promise<RuntimeStatusInfo> {
    const res = await this.#conn.unary(
      `${RUNTIME}/Status`,
      encodeStatusRequest(verbose),
      this.#callMs,
    );
    return decodeStatusResponse(res);
  }

  /**
   * `RuntimeConfig`: the runtime's cgroup driver. Rejects with a {@link CriCallError} coded
   * `Unimplemented` when the runtime predates the call (KEP-4033).
   */
  async runtimeConfig(): Promise<RuntimeConfigInfo> {
    const res = await this.#conn.unary(
      `${RUNTIME}/RuntimeConfig`,
      encodeRuntimeConfigRequest(),
      this.#callMs,
    );
    return decodeRuntimeConfigResponse(res);
  }

  /** `ImageStatus`: the image, or `undefined` when the runtime does not have it. */
  async imageStatus(image: string): Promise<ImageInfo | undefined> {
    const res = await this.#conn.unary(
      `${IMAGES}/ImageStatus`,
      encodeImageStatusRequest(image, false),
      this.#callMs,
    );
    return decodeImageStatusResponse(res);
  }

  /**
   * `PullImage`: resolves with the image reference the runtime reports. A failure with the
   * `Unknown` code rejects with the runtime's message alone, as upstream's CRI client does.
   */
  async pullImage(image: string): Promise<string> {
    let res: Uint8Array;
    try {
      res = await this.#conn.unary(
        `${IMAGES}/PullImage`,
        encodePullImageRequest(image),
        this.#pullMs,
      );
    } catch (e) {
      if (e instanceof CriCallError && e.code === "Unknown") {
        throw new Error(e.details, { cause: e });
      }
      throw e;
    }
    const ref = decodePullImageResponse(res);
    if (ref === "") throw new Error(`imageRef of image ${JSON.stringify(image)} is not set`);
    return ref;
  }

  /** `ListPodSandbox`: every Pod sandbox, unfiltered. */
  async listPodSandbox(): Promise<PodSandbox[]> {
    const res = await this.#conn.unary(
      `${RUNTIME}/ListPodSandbox`,
      encodeListPodSandboxRequest(),
      this.#callMs,
    );
    return decodeListPodSandboxResponse(res);
  }

  /** `StopPodSandbox`: stops the sandbox's containers and tears down its network. */
  async stopPodSandbox(id: string): Promise<void> {
    const res = await this.#conn.unary(
      `${RUNTIME}/StopPodSandbox`,
      encodePodSandboxIdRequest(id),
      this.#callMs,
    );
    decodeEmptyResponse("StopPodSandboxResponse", res);
  }

  /** `RemovePodSandbox`: removes a stopped sandbox with its containers. */
  async removePodSandbox(id: string): Promise<void> {
    const res = await this.#conn.unary(
      `${RUNTIME}/RemovePodSandbox`,
      encodePodSandboxIdRequest(id),
      this.#callMs,
    );
    decodeEmptyResponse("RemovePodSandboxResponse", res);
  }

  /** `ListContainers`: the containers carrying every one of `labels` (all of them: `{}`). */
  async listContainers(labels: Record<string, string>): Promise<ContainerInfo[]> {
    const res = await this.#conn.unary(
      `${RUNTIME}/ListContainers`,
      encodeListContainersRequest(labels),
      this.#callMs,
    );
    return decodeListContainersResponse(res);
  }

  /**
   * `StopContainer`: the runtime signals the container to stop and kills it after
   * `timeoutSeconds`; the call's deadline is that and {@link STOP_KILL_MS} (the kill and the
   * runtime's clean-up, which a loaded node stretches) on top of the usual one.
   */
  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    const res = await this.#conn.unary(
      `${RUNTIME}/StopContainer`,
      encodeStopContainerRequest(id, timeoutSeconds),
      this.#callMs + timeoutSeconds * 1000 + STOP_KILL_MS,
    );
    decodeEmptyResponse("StopContainerResponse", res);
  }

  /** Closes the connection. */
  close(): void {
    this.#conn.close();
  }
}
