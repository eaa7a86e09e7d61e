/**
 * The `kube-public/cluster-info` ConfigMap: its shape, reading it from `kubectl -o yaml|json`
 * text, and checking its JWS signature for a bootstrap token (upstream
 * `validateClusterInfoToken`).
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import {
  CLUSTER_INFO_CONFIGMAP,
  CLUSTER_INFO_KUBECONFIG_KEY,
  JWS_SIGNATURE_KEY_PREFIX,
} from "../constants.ts";
import { DiscoveryError, errorMessage } from "../errors.ts";
import {
  certificateAuthorityPem,
  clusterFromKubeconfig,
  type Kubeconfig,
  type NamedCluster,
} from "../kubeconfig/kubeconfig.ts";
import { parseKubeYaml } from "../yaml/kube_yaml.ts";
import { detachedTokenIsValid } from "./jws.ts";

/** The parts of a ConfigMap discovery reads. */
export interface ClusterInfoConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
  data?: Record<string, string> | null;
  [key: string]: unknown;
}

/** The data key holding the signature for token `tokenId`: `jws-kubeconfig-<id>`. */
export function signatureKey(tokenId: string): string {
  return `${JWS_SIGNATURE_KEY_PREFIX}${tokenId}`;
}

/** Whether the ConfigMap carries a signature key (even empty) for the token id. */
export function hasSignatureFor(cm: ClusterInfoConfigMap, tokenId: string): boolean {
  return cm.data != null && Object.hasOwn(cm.data, signatureKey(tokenId));
}

/** Token ids that have a signature in the ConfigMap, sorted. */
export function signedTokenIds(cm: ClusterInfoConfigMap): string[] {
  return Object.keys(cm.data ?? {}).filter((k) => k.startsWith(JWS_SIGNATURE_KEY_PREFIX))
    .map((k) => k.slice(JWS_SIGNATURE_KEY_PREFIX.length)).sort();
}

/**
 * Reads a cluster-info ConfigMap given as an object or as the YAML/JSON text
 * `kubectl get cm cluster-info -n kube-public -o yaml` (or `-o json`) prints. A `List` with
 * exactly one ConfigMap is accepted too. Throws a plain `Error` describing what is wrong.
 */
export function parseClusterInfo(input: unknown): ClusterInfoConfigMap {
  let value = input;
  if (typeof input === "string") {
    const docs = parseKubeYaml(input, CLUSTER_INFO_CONFIGMAP);
    if (docs.length !== 1) {
      throw new DiscoveryError(`expected one ConfigMap document, found ${docs.length}`);
    }
    value = docs[0].value;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DiscoveryError("expected a ConfigMap object");
  }
  let cm = value as ClusterInfoConfigMap;
  if (cm.kind === "List" && Array.isArray(cm.items)) {
    if (cm.items.length !== 1) {
      throw new DiscoveryError(
        `expected a List with one ConfigMap, found ${cm.items.length} items`,
      );
    }
    cm = cm.items[0] as ClusterInfoConfigMap;
  }
  if (cm.kind !== undefined && cm.kind !== "ConfigMap") {
    throw new DiscoveryError(`expected kind ConfigMap, found ${JSON.stringify(cm.kind)}`);
  }
  if (cm.data !== undefined && cm.data !== null) {
    if (typeof cm.data !== "object" || Array.isArray(cm.data)) {
      throw new DiscoveryError("data: expected a map of strings");
    }
    for (const [k, v] of Object.entries(cm.data)) {
      if (typeof v !== "string") throw new DiscoveryError(`data.${k}: expected a string`);
    }
  }
  return cm;
}

/** {@link parseClusterInfo} that reports failures with their text instead of throwing. */
export function tryParseClusterInfo(
  input: unknown,
): { ok: true; configMap: ClusterInfoConfigMap } | { ok: false; error: string } {
  try {
    return { ok: true, configMap: parseClusterInfo(input) };
  } catch (e) {
    return { ok: false, error: errorMessage(e) };
  }
}

/**
 * Checks the signature of the ConfigMap's kubeconfig for the token and returns the signed
 * kubeconfig text. Throws upstream's errors: no `kubeconfig` key, no signature for the token
 * id, or a signature that does not verify.
 */
export async function validateClusterInfoToken(
  cm: ClusterInfoConfigMap,
  tokenId: string,
  tokenSecret: string,
  crypto: Hashing,
): Promise<string> {
  const kubeconfig = cm.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
  if (!kubeconfig) {
    throw new DiscoveryError(
      `there is no ${CLUSTER_INFO_KUBECONFIG_KEY} key in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap. This API Server isn't set up for token bootstrapping, can't connect`,
    );
  }
  const signature = cm.data?.[signatureKey(tokenId)];
  if (!signature) {
    throw new DiscoveryError(
      `token id ${
        JSON.stringify(tokenId)
      } is invalid for this cluster or it has expired. Use "kubeadm token create" on the control-plane node to create a new valid token`,
    );
  }
  if (!await detachedTokenIsValid(signature, kubeconfig, tokenId, tokenSecret, crypto)) {
    throw new DiscoveryError(
      "failed to verify JWS signature of received cluster info object, can't trust this API Server",
    );
  }
  return kubeconfig;
}

/**
 * The one cluster of a cluster-info kubeconfig, with its CA bundle (PEM, empty when absent).
 * Throws when the kubeconfig defines other than exactly one cluster: with two, the server and
 * CA used could come from one while the pin is checked against the other (upstream picks the
 * pinned CA from whichever cluster its map iteration ends on), and kubeadm's own cluster-info
 * always has one. Also throws, like upstream's `GetClusterFromKubeConfig`, when that cluster is
 * neither unnamed nor the current context's.
 */
export function clusterInfoCluster(config: Kubeconfig): NamedCluster & { caPem: string } {
  const count = (config.clusters ?? []).length;
  if (count !== 1) {
    throw new DiscoveryError(`it must define exactly one cluster, found ${count}`, {
      field: "clusters",
      value: String(count),
      hint:
        "kubeadm's cluster-info kubeconfig has exactly one cluster; this one was not made by kubeadm",
    });
  }
  const named = clusterFromKubeconfig(config);
  return { ...named, caPem: certificateAuthorityPem(named.cluster) };
}
