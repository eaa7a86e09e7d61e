/**
 * The component-config checksum annotation kubeadm puts on the ConfigMaps of the component
 * configs it generated (kubelet, kube-proxy), so that later runs can tell whether a user edited
 * them: `kubeadm.kubernetes.io/component-config.hash: sha256:<hex>`, the SHA-256 of every
 * `data` value in key order followed by every `binaryData` value in key order.
 *
 * @module
 */
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import type { Hashing } from "../ports/crypto.ts";
import { base64Decode } from "../text/base64.ts";

/** The annotation key. */
export const COMPONENT_CONFIG_HASH_ANNOTATION = "kubeadm.kubernetes.io/component-config.hash";

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `sha256:<hex>` over the ConfigMap's data then binaryData values, each in sorted key order. */
export async function configMapChecksum(cm: ConfigMap, crypto: Hashing): Promise<string> {
  const parts: Uint8Array[] = [];
  const enc = new TextEncoder();
  for (const k of Object.keys(cm.data ?? {}).sort()) parts.push(enc.encode(cm.data![k]));
  for (const k of Object.keys(cm.binaryData ?? {}).sort()) {
    parts.push(base64Decode(cm.binaryData![k]));
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const all = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    all.set(p, off);
    off += p.length;
  }
  return `sha256:${hex(await crypto.digest("SHA-256", all))}`;
}

/** A copy of the ConfigMap annotated with its checksum. */
export async function signConfigMap(cm: ConfigMap, crypto: Hashing): Promise<ConfigMap> {
  const checksum = await configMapChecksum(cm, crypto);
  return {
    ...cm,
    metadata: {
      ...cm.metadata,
      annotations: { ...cm.metadata?.annotations, [COMPONENT_CONFIG_HASH_ANNOTATION]: checksum },
    },
  };
}
