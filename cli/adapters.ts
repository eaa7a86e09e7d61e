/**
 * The adapters of the command line, chosen here once for every command. Time, randomness and
 * crypto are the web platform's (`adapters/web/`, WebCrypto from `adapters/crypto/`, RSA keys
 * made by `adapters/deno/rsa_keygen.ts`); the node is this machine under `--rootfs`, through
 * the Deno adapters (`adapters/deno/`: its files, the node host with its machine, services,
 * container runtime, health probes and etcd client, the HTTPS transport); a `--dry-run` plans instead of changing anything, on the offline adapters
 * (`adapters/offline/`: the recording file system, the dry-run transport). A test hands its
 * own node through {@link CommandDeps.node}.
 *
 * Start-up stays cheap: the crypto port, the node host, the network stack and the offline
 * machinery load on first use (every module a process loads costs it time and memory).
 *
 * @module
 */
import type { Clock, Sleep } from "../core/ports/clock.ts";
import type { CryptoPort } from "../core/ports/crypto.ts";
import type { FileSystem, PlanningFileSystem, PlanningOverlay } from "../core/ports/files.ts";
import type { NodeHost } from "../core/ports/node.ts";
import type { RandomSource } from "../core/ports/random.ts";
import type {
  ConnectionParams,
  TransportFactory,
  TransportLimits,
} from "../core/ports/transport.ts";
import type { JoinPorts } from "../core/phases/join/data.ts";
import { realSleep, systemClock } from "../adapters/web/clock.ts";
import { webRandom } from "../adapters/web/random.ts";
import type { HostFileSystem } from "../adapters/deno/files.ts";
import { deferred } from "../adapters/deno/host/deferred.ts";
import type { DenoNodeHostOptions } from "../adapters/deno/node.ts";
import type { DenoTransport } from "../adapters/deno/transport.ts";
import type { DryRunOptions, DryRunTransport } from "../adapters/offline/transport.ts";
import type { CommandDeps } from "./workflow_command.ts";

/** The ports every run takes from the platform. */
export interface PlatformPorts {
  clock: Clock;
  sleep: Sleep;
  random: RandomSource;
  crypto: CryptoPort;
}

/**
 * WebCrypto, with the Deno adapters' RSA key generation (`adapters/deno/crypto.ts`), its key
 * code loaded when a run first makes, reads, checks or hashes something.
 */
const webCrypto: CryptoPort = deferred(
  () => import("../adapters/deno/crypto.ts").then((m) => m.denoCryptoPort),
  {
    generateKeyPair: true,
    importPrivateKey: true,
    verify: true,
    sealAesGcm: true,
    openAesGcm: true,
    digest: true,
    hmac: true,
  },
  { name: "webcrypto", deterministic: false },
);

/** The platform's clock, sleep, CSPRNG and WebCrypto. */
export const platform: PlatformPorts = {
  clock: systemClock,
  sleep: realSleep,
  random: webRandom,
  crypto: webCrypto,
};

/** The node's real files under `rootfs` (`/`: this machine's). */
export async function nodeFiles(rootfs = "/"): Promise<HostFileSystem> {
  const { HostFileSystem } = await import("../adapters/deno/files.ts");
  return new HostFileSystem(rootfs);
}

/** Planning overlays of the offline adapters (what a dry run writes to), loaded on first use. */
export async function planningOverlay(): Promise<PlanningOverlay> {
  const { RecordingFileSystem } = await import("../adapters/offline/files.ts");
  return (base) => new RecordingFileSystem(base);
}

/** The files of a run: the node's, and in a dry run the planning overlay over them. */
export interface RunFiles {
  /** The node's real files under `--rootfs`. */
  host: HostFileSystem;
  /** What the run writes to: `host`, or `recording` in a dry run. */
  files: FileSystem;
  /** A dry run's planned writes. */
  recording?: PlanningFileSystem;
}

/** The files of a run under `rootfs`, planned instead of written when `dryRun`. */
export async function runFiles(rootfs: string, dryRun: boolean): Promise<RunFiles> {
  const host = await nodeFiles(rootfs);
  if (!dryRun) return { host, files: host };
  const recording = (await planningOverlay())(host);
  return { host, files: recording, recording };
}

/**
 * The node under `rootfs`: the test's when it hands one, else this machine through the Deno
 * adapters (`options` tune its etcd client).
 */
export async function nodeHost(
  rootfs: string,
  deps: CommandDeps,
  options: Omit<DenoNodeHostOptions, "root"> = {},
): Promise<NodeHost> {
  if (deps.node) return deps.node(rootfs);
  const { DenoNodeHost } = await import("../adapters/deno/node.ts");
  return new DenoNodeHost({ root: rootfs, ...options });
}

/**
 * A transport to one API server on Deno's HTTPS stack (loaded on first use), trusting exactly
 * the CA of `params`; `close()` releases its connections.
 */
export async function connectTransport(
  params: ConnectionParams,
  limits?: TransportLimits,
): Promise<DenoTransport> {
  const { createDenoTransport } = await import("../adapters/deno/transport.ts");
  return createDenoTransport(params, limits);
}

/** The transports of a run: Deno's, each loaded on its first request; `close` releases them. */
export function lazyTransports(): { transportFor: TransportFactory; close(): void } {
  const made: Promise<{ close(): void }>[] = [];
  return {
    transportFor(params, limits) {
      const t = connectTransport(params, limits);
      made.push(t);
      return async (request, perRequest) => (await t).transport(request, perRequest);
    },
    close: () => {
      for (const t of made.splice(0)) void t.then((x) => x.close());
    },
  };
}

/** The dry-run transport (an API server in memory that prints and keeps every write). */
export async function dryRunTransport(options: DryRunOptions): Promise<DryRunTransport> {
  const { createDryRunTransport } = await import("../adapters/offline/transport.ts");
  return createDryRunTransport(options);
}

/**
 * Join's network: discovery and API client transports (each trusting exactly the CA given,
 * discovery with its own bounds), `https://` discovery URLs verified against the host's CA
 * bundle, and the host's files discovery reads.
 */
export async function joinNetwork(): Promise<Omit<JoinPorts, "preflight">> {
  const { clientTransport, discoveryTransport, fetchDiscoveryUrl } = await import(
    "../adapters/deno/transport.ts"
  );
  return {
    transportFor: discoveryTransport,
    clientTransportFor: clientTransport,
    hostFiles: await nodeFiles("/"),
    fetchUrl: fetchDiscoveryUrl,
  };
}
