/**
 * The cluster a plan talks to: kubeadm's dry-run transport (`./transport.ts`), seeded with the
 * objects the cluster already has and recording what a workflow would create, plus the one
 * controller a joining node relies on, the bootstrap signer (it signs `cluster-info` for every
 * signing token).
 *
 * @module
 */
import type { ConfigMap, Secret } from "kubernetes-types/core/v1.d.ts";
import type { KubeObject } from "../../core/kube/client.ts";
import { createDryRunTransport, type DryRunAction, type DryRunOptions } from "./transport.ts";
import type { Transport } from "../../core/ports/transport.ts";
import type { Hashing } from "../../core/ports/crypto.ts";
import { BOOTSTRAP_TOKEN_SECRET_TYPE, tokenFromSecret } from "../../core/bootstraptoken/secret.ts";
import {
  CLUSTER_INFO_CONFIGMAP,
  KUBE_PUBLIC,
  signClusterInfo,
} from "../../core/cluster/cluster_info.ts";

/** An API server in memory: answers from `objects`, records every call. */
export interface OfflineCluster {
  transport: Transport;
  /** Every call made, in order. */
  actions: DryRunAction[];
}

/**
 * An offline cluster that already holds `objects`; its API server reports `serverVersion`
 * (default: this kubeadm's version).
 */
export function offlineCluster(
  objects: readonly KubeObject[] = [],
  serverVersion?: DryRunOptions["serverVersion"],
): OfflineCluster {
  const dry = createDryRunTransport({ objects: structuredClone([...objects]), serverVersion });
  return { transport: dry.transport, actions: dry.actions };
}

function refKey(o: KubeObject): string {
  return `${o.apiVersion}|${o.kind}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`;
}

/**
 * The objects a run created or replaced, in the order first written, each in its last state
 * (patches of objects the run did not create, such as the Node, are not objects of the plan).
 * They are the recorded request bodies themselves (each parsed afresh from the request's JSON),
 * so the caller owns them once the run is over.
 */
export function writtenObjects(actions: readonly DryRunAction[]): KubeObject[] {
  const out = new Map<string, KubeObject>();
  for (const a of actions) {
    if ((a.verb === "create" || a.verb === "update") && a.object) {
      out.set(refKey(a.object), a.object);
    }
  }
  return [...out.values()];
}

function isClusterInfo(o: KubeObject): boolean {
  return o.kind === "ConfigMap" && o.metadata?.namespace === KUBE_PUBLIC &&
    o.metadata?.name === CLUSTER_INFO_CONFIGMAP;
}

/**
 * The cluster as the bootstrap signer leaves it: `cluster-info` signed for every bootstrap
 * token Secret among `objects` that allows signing.
 */
export async function withBootstrapSignatures(
  objects: readonly KubeObject[],
  crypto: Hashing,
): Promise<KubeObject[]> {
  const tokens: string[] = [];
  for (const o of objects) {
    if (o.kind !== "Secret" || (o as Secret).type !== BOOTSTRAP_TOKEN_SECRET_TYPE) continue;
    const t = tokenFromSecret(o as Secret);
    if (t.token && (t.usages ?? []).includes("signing")) tokens.push(t.token);
  }
  return await Promise.all(
    objects.map((o) => isClusterInfo(o) ? signClusterInfo(o as ConfigMap, tokens, crypto) : o),
  );
}
