/**
 * The node's container runtime, reached through its CRI socket: preflight asks whether it is
 * up and pulls images; reset removes the Kubernetes Pods.
 *
 * @module
 */

/** A container runtime reached through its CRI socket. */
export interface ContainerRuntime {
  /** The CRI endpoint (`unix:///var/run/containerd/containerd.sock`). */
  readonly socket: string;
  /** Opens a connection to the socket; rejects when nothing answers there. */
  connect(): Promise<void>;
  /** Rejects when the runtime reports it is not ready. */
  isRunning(): Promise<void>;
  /** Whether the image is present locally. */
  imageExists(image: string): Promise<boolean>;
  /** Pulls an image; rejects on failure. */
  pullImage(image: string): Promise<void>;
  /** The runtime's configured sandbox (pause) image, when it can tell. */
  sandboxImage(): Promise<string | undefined>;
  /** IDs of the Kubernetes-managed Pod sandboxes. */
  listKubePods(): Promise<string[]>;
  /** Stops and removes Pod sandboxes (with their containers). */
  removePods(ids: readonly string[]): Promise<void>;
}
