/**
 * What every plan shares: the node it is for, the run's ports (clock, entropy, crypto), the
 * files it would write, and how they turn into plain data.
 *
 * A plan runs kubeadm's own workflows (the same phases and domain modules as the CLI) on a
 * recording file system and an offline cluster; nothing touches a disk or a network.
 *
 * @module
 */
import type { Clock } from "../core/ports/clock.ts";
import type { NodeFiles, PlannedFile } from "../core/ports/files.ts";
import type { Printer } from "../core/ports/printer.ts";
import type { RandomSource } from "../core/ports/random.ts";
import { utf8 } from "../core/text/utf8.ts";
import type { CryptoPort } from "../core/ports/crypto.ts";
import { parsePrivateKeyPEM } from "../core/pki/keys.ts";
import { virtualTime } from "../adapters/offline/clock.ts";
import { deterministicCryptoPort } from "../adapters/crypto/noble.ts";
import { systemClock, webCryptoPort, webRandom } from "./adapters.ts";
import type { KeyPool } from "../core/pki/key_pool.ts";

/** One file of a plan: a node path, its POSIX mode and its text. */
export interface PlanFile {
  /** Absolute node path, e.g. `/etc/kubernetes/pki/ca.crt`. */
  path: string;
  /** POSIX mode, e.g. `0o600` (keys, kubeconfigs) or `0o644`. */
  mode: number;
  /** The content (every file kubeadm writes is text: PEM, YAML, env). */
  content: string;
}

/** The machine a plan is for. */
export interface PlanHost {
  /** The node's hostname (its node name unless the configuration sets one). */
  hostname: string;
  /** The address the API server (or a joining control plane) advertises when the config has none. */
  advertiseAddress?: string;
  /**
   * Which of the CA-trust directories kubeadm mounts into control-plane Pods when present exist
   * on the machine (`/etc/pki`, `/usr/share/ca-certificates`, ...). Default: none.
   */
  existingDirs?: readonly string[];
  /** `*_proxy` environment variables copied into control-plane Pods. Default: none. */
  proxyEnv?: Readonly<Record<string, string>>;
  /**
   * Whether systemd-resolved runs there (`resolvConf` in this node's kubelet `config.yaml`, never
   * in the cluster's `kubelet-config`). Default: false.
   */
  systemdResolved?: boolean;
}

/** The ports and inputs every plan takes. */
export interface PlanRunOptions {
  /** The machine the node runs on. */
  host: PlanHost;
  /**
   * Entropy. Given, the plan is reproducible: keys are derived from it and signatures are
   * deterministic (the deterministic crypto port), so the same `random` (e.g.
   * `seededRandom(seed)`) and `clock` give byte-identical plans in every runtime; RSA keys then
   * cannot be generated (use ECDSA, or pass `keys`). Absent: the platform's CSPRNG and
   * WebCrypto, the CLI's choice.
   */
  random?: RandomSource;
  /** The time certificates start from and tokens expire from. Default: the system clock. */
  clock?: Clock;
  /** Overrides the crypto port chosen from `random`. */
  crypto?: CryptoPort;
  /** Files already on the node: reused exactly as kubeadm reuses them (an existing CA, ...). */
  existingFiles?: readonly PlanFile[];
  /**
   * Keys to use instead of generating them, as PEM, by purpose: `cert:<certificate>` (`cert:ca`,
   * `cert:apiserver`, `cert:sa`, ...) or `kubeconfig:<file>` (`kubeconfig:admin.conf`).
   */
  keys?: Readonly<Record<string, string>>;
}

/** The resolved ports of a plan run. */
export interface PlanPorts {
  /** The caller's clock, moved forward by every {@link PlanPorts.sleep}. */
  clock: Clock;
  /**
   * Waits without waiting: a plan never polls a real server, so a retry loop (discovery of a
   * cluster-info that does not verify) runs to its deadline in virtual time and fails.
   */
  sleep: (ms: number) => Promise<void>;
  random: RandomSource;
  crypto: CryptoPort;
  /** kubeadm's progress lines, kept (a plan prints nothing). */
  log: string[];
  out: Printer;
}

/** Resolves a plan's ports: `random` given means the deterministic crypto port. */
export function planPorts(o: Pick<PlanRunOptions, "random" | "clock" | "crypto">): PlanPorts {
  const log: string[] = [];
  return {
    ...virtualTime(o.clock ?? systemClock),
    random: o.random ?? webRandom,
    crypto: o.crypto ?? (o.random ? deterministicCryptoPort : webCryptoPort),
    log,
    out: { info: (l) => log.push(l), warn: (l) => log.push(l) },
  };
}

/** A read-only view of files given as data (the node's existing files). */
export function filesReader(files: readonly PlanFile[] = []): NodeFiles {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const list = (path: string) => {
    const prefix = path.endsWith("/") ? path : `${path}/`;
    const names = [...byPath.keys()].filter((p) => p.startsWith(prefix))
      .map((p) => p.slice(prefix.length).split("/")[0]);
    return Promise.resolve(names.length > 0 ? [...new Set(names)].sort() : undefined);
  };
  return {
    read: (path) => {
      const f = byPath.get(path);
      return Promise.resolve(f ? new TextEncoder().encode(f.content) : undefined);
    },
    list,
    // A file, or a directory holding one.
    exists: async (path) => byPath.has(path) || (await list(path)) !== undefined,
  };
}

/** The files a run planned, as data. */
export function planFiles(planned: readonly PlannedFile[]): PlanFile[] {
  return planned.map((f) => ({
    path: f.path,
    mode: f.mode,
    content: typeof f.data === "string" ? f.data : utf8(f.data),
  }));
}

/** Hands the caller's keys to the run's key pool, imported through the run's crypto port. */
export async function provideKeys(
  pool: KeyPool,
  keys: Readonly<Record<string, string>> | undefined,
  crypto: CryptoPort,
): Promise<void> {
  for (const [id, pem] of Object.entries(keys ?? {})) {
    pool.provide(id, await parsePrivateKeyPEM(pem, crypto, `keys[${JSON.stringify(id)}]`));
  }
}
