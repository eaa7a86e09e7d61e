/**
 * Strategic-merge metadata of the objects kubeadm patches: a v1 Pod (static Pods), an apps/v1
 * Deployment (CoreDNS), an apps/v1 DaemonSet (kube-proxy) and a KubeletConfiguration (no merge
 * lists: maps merge, lists replace).
 *
 * Merge keys are upstream's `patchMergeKey` tags from `k8s.io/api`.
 *
 * @module
 */
import type { SmpField, SmpSchema } from "./strategic_merge.ts";

function mergeList(mergeKey: string, schema?: SmpSchema): SmpField {
  return { strategy: "merge", mergeKey, schema };
}

const containerSchema: SmpSchema = {
  fields: {
    ports: mergeList("containerPort"),
    env: mergeList("name"),
    volumeMounts: mergeList("mountPath"),
    volumeDevices: mergeList("devicePath"),
  },
};

const objectMetaSchema: SmpSchema = {
  fields: {
    finalizers: { strategy: "merge" },
    ownerReferences: mergeList("uid"),
  },
};

const podSpecSchema: SmpSchema = {
  fields: {
    volumes: mergeList("name"),
    initContainers: mergeList("name", containerSchema),
    containers: mergeList("name", containerSchema),
    ephemeralContainers: mergeList("name", containerSchema),
    imagePullSecrets: mergeList("name"),
    hostAliases: mergeList("ip"),
    topologySpreadConstraints: mergeList("topologyKey"),
    resourceClaims: mergeList("name"),
    schedulingGates: mergeList("name"),
  },
};

const podStatusSchema: SmpSchema = {
  fields: {
    conditions: mergeList("type"),
    podIPs: mergeList("ip"),
    hostIPs: mergeList("ip"),
    resourceClaimStatuses: mergeList("name"),
  },
};

/** A core/v1 Pod. */
export const podSchema: SmpSchema = {
  fields: {
    metadata: { schema: objectMetaSchema },
    spec: { schema: podSpecSchema },
    status: { schema: podStatusSchema },
  },
};

/** An apps/v1 workload with a Pod template (its template merges like a Pod). */
const podTemplateWorkloadSchema: SmpSchema = {
  fields: {
    metadata: { schema: objectMetaSchema },
    spec: {
      schema: {
        fields: {
          template: {
            schema: {
              fields: { metadata: { schema: objectMetaSchema }, spec: { schema: podSpecSchema } },
            },
          },
        },
      },
    },
    status: { schema: { fields: { conditions: mergeList("type") } } },
  },
};

/** An apps/v1 Deployment. */
export const deploymentSchema: SmpSchema = podTemplateWorkloadSchema;
/** An apps/v1 DaemonSet (same merge keys as a Deployment where kubeadm's patches reach). */
export const daemonSetSchema: SmpSchema = podTemplateWorkloadSchema;

/** A kubelet.config.k8s.io/v1beta1 KubeletConfiguration. */
export const kubeletConfigurationSchema: SmpSchema = {};
