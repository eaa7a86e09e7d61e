/**
 * One control plane at a time (beyond upstream): a node restarting its control-plane
 * components holds the Lease `kube-system/kubeadm-control-plane-restart`. The scheduled
 * renewals of several control planes fire at about the same time; without the Lease two of them
 * could each see the etcd cluster healthy and restart their members together, which a
 * three-member cluster does not survive.
 *
 * The holder renews the Lease between components; a Lease not renewed within its duration is
 * free (its holder died). A node finding its own name in the Lease takes it over (a run killed
 * and run again). Releasing deletes it only while this node still holds it.
 *
 * @module
 */
import type { Lease } from "kubernetes-types/coordination/v1.d.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { poll } from "../kube/retry.ts";
import { isAlreadyExists, isConflict, isNotFound } from "../kube/status.ts";

/** The Lease's name in `kube-system`. */
export const RESTART_LEASE_NAME = "kubeadm-control-plane-restart";

/** How often a waiting node looks at the Lease again. */
const LEASE_POLL_INTERVAL_MS = 2_000;

/** A held Lease. */
export interface RestartLease {
  /** Extends it by its duration from now. */
  renew(): Promise<void>;
  /** Gives it up (deletes it while this node holds it). */
  release(): Promise<void>;
}

/** Kubernetes' MicroTime text (`2006-01-02T15:04:05.000000Z`). */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function expiresAt(lease: Lease): number {
  const renewed = Date.parse(lease.spec?.renewTime ?? lease.spec?.acquireTime ?? "");
  const seconds = lease.spec?.leaseDurationSeconds ?? 0;
  return Number.isNaN(renewed) ? 0 : renewed + seconds * 1000;
}

/** Options of {@link acquireRestartLease}. */
export interface RestartLeaseOptions {
  client: KubeClient;
  /** This node's name (the holder identity). */
  holder: string;
  /** How long the Lease holds without a renewal. */
  durationMs: number;
  /** How long to wait for another holder to finish. */
  waitMs: number;
  /** Called once when another node holds it. */
  onWait?: (holder: string, until: Date) => void;
}

/**
 * Takes the Lease, waiting up to `waitMs` while another node holds it; throws naming that node
 * when it does not come free.
 */
export async function acquireRestartLease(options: RestartLeaseOptions): Promise<RestartLease> {
  const { client, holder } = options;
  const { clock, sleep } = client.timing;
  const seconds = Math.ceil(options.durationMs / 1000);
  const ref = { kind: "Lease", namespace: "kube-system", name: RESTART_LEASE_NAME };
  const spec = () => {
    const now = microTime(clock.now());
    return {
      holderIdentity: holder,
      leaseDurationSeconds: seconds,
      acquireTime: now,
      renewTime: now,
    };
  };
  let other: Lease | undefined;
  let told = false;
  try {
    await poll<true>(async (window) => {
      const current = await client.tryGet<Lease>(ref, window.limits());
      if (!current) {
        try {
          await client.create<Lease>({
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: { name: RESTART_LEASE_NAME, namespace: "kube-system" },
            spec: spec(),
          }, window.limits());
          return { done: true, value: true };
        } catch (e) {
          if (isAlreadyExists(e)) return { done: false };
          throw e;
        }
      }
      const mine = current.spec?.holderIdentity === holder;
      if (!mine && expiresAt(current) > clock.now().getTime()) {
        other = current;
        if (!told) {
          told = true;
          options.onWait?.(current.spec?.holderIdentity ?? "", new Date(expiresAt(current)));
        }
        return { done: false };
      }
      try {
        await client.update<Lease>(
          { ...current, spec: { ...current.spec, ...spec() } },
          window.limits(),
        );
        return { done: true, value: true };
      } catch (e) {
        if (isConflict(e) || isNotFound(e)) return { done: false };
        throw e;
      }
    }, { clock, sleep, intervalMs: LEASE_POLL_INTERVAL_MS, timeoutMs: options.waitMs });
  } catch (e) {
    if (other === undefined) throw e;
    throw new KubeadmError(
      `control plane ${
        JSON.stringify(other.spec?.holderIdentity)
      } is restarting its components (Lease kube-system/${RESTART_LEASE_NAME}): ${errorMessage(e)}`,
      {
        cause: e,
        hint:
          "wait for it to finish, then run again; a Lease whose holder died frees itself when it expires",
      },
    );
  }
  return {
    async renew() {
      const current = await client.get<Lease>(ref);
      if (current.spec?.holderIdentity !== holder) {
        throw new KubeadmError(
          `lost the Lease kube-system/${RESTART_LEASE_NAME} to ${
            JSON.stringify(current.spec?.holderIdentity)
          }`,
        );
      }
      await client.update<Lease>({
        ...current,
        spec: { ...current.spec, renewTime: microTime(clock.now()) },
      });
    },
    async release() {
      const current = await client.tryGet<Lease>(ref);
      if (!current || current.spec?.holderIdentity !== holder) return;
      try {
        await client.delete(ref, { uid: current.metadata?.uid });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
    },
  };
}
