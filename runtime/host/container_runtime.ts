/**
 * A container runtime reached through its CRI socket.
 *
 * Whether the socket answers is checked with a plain Unix-socket connection. The CRI calls
 * themselves (status, image list and pull, Pod sandbox removal) go through `crictl` when it is
 * installed; without it, those calls fail with a message saying so (kubeadm-ts has no gRPC
 * client of its own).
 *
 * @module
 */
import type { ContainerRuntime } from "../../core/host/containers.ts";
import { errorMessage } from "../../core/errors.ts";
import { lookPath, runCommand } from "./exec.ts";

/** The socket path of a `unix://` (or bare path) CRI endpoint; throws for other schemes. */
export function criSocketPath(endpoint: string): string {
  if (endpoint.startsWith("/")) return endpoint;
  const m = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(endpoint);
  if (!m) throw new Error(`invalid CRI endpoint ${JSON.stringify(endpoint)}`);
  if (m[1] !== "unix") throw new Error(`protocol ${JSON.stringify(m[1])} not supported`);
  return m[2];
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

/** A CRI endpoint driven through a socket probe and `crictl`. */
export class CriSocketRuntime implements ContainerRuntime {
  readonly socket: string;

  constructor(socket: string) {
    this.socket = socket;
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

  async #crictl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    if ((await lookPath("crictl")) === undefined) {
      throw new Error(
        "crictl not found in $PATH: kubeadm-ts talks to the container runtime through crictl",
      );
    }
    return await runCommand("crictl", ["--runtime-endpoint", this.socket, ...args], {
      timeoutMs: 5 * 60_000,
    });
  }

  async isRunning(): Promise<void> {
    // Without crictl, a socket that accepts connections is taken as a running runtime.
    if ((await lookPath("crictl")) === undefined) return;
    const r = await this.#crictl(["info"]);
    if (r.code !== 0) {
      throw new Error(`output: ${r.stdout.trim()}${r.stderr.trim()}, error: exit status ${r.code}`);
    }
  }

  async imageExists(image: string): Promise<boolean> {
    return (await this.#crictl(["inspecti", image])).code === 0;
  }

  async pullImage(image: string): Promise<void> {
    const r = await this.#crictl(["pull", image]);
    if (r.code !== 0) throw new Error((r.stderr || r.stdout).trim() || `exit status ${r.code}`);
  }

  async sandboxImage(): Promise<string | undefined> {
    const r = await this.#crictl(["info"]);
    if (r.code !== 0) return undefined;
    try {
      const info = JSON.parse(r.stdout);
      const image = info?.config?.sandboxImage ?? info?.config?.sandbox_image;
      return typeof image === "string" ? image : undefined;
    } catch {
      return undefined;
    }
  }

  async listKubePods(): Promise<string[]> {
    const r = await this.#crictl(["pods", "-q"]);
    if (r.code !== 0) throw new Error((r.stderr || r.stdout).trim() || `exit status ${r.code}`);
    return r.stdout.split(/\s+/).filter((s) => s !== "");
  }

  async removePods(ids: readonly string[]): Promise<void> {
    const errors: string[] = [];
    for (const id of ids) {
      for (const verb of ["stopp", "rmp"]) {
        const r = await this.#crictl([verb, id]);
        if (r.code !== 0) {
          errors.push(
            `failed to ${verb === "stopp" ? "stop" : "remove"} running Pod ${id}: ${
              (r.stderr || r.stdout).trim()
            }`,
          );
          break;
        }
      }
    }
    if (errors.length > 0) throw new Error(errors.join("; "));
  }
}
