/**
 * The kube-proxy addon as kubeadm 1.37 installs it (upstream `phases/addons/proxy`):
 * ConfigMap `kube-proxy` (keys `config.conf` and `kubeconfig.conf`), DaemonSet `kube-proxy`,
 * ServiceAccount `kube-proxy`, ClusterRoleBinding `kubeadm:node-proxier` and the Role and
 * RoleBinding `kube-proxy` that let bootstrap tokens read the ConfigMap, all in `kube-system`.
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import type { DaemonSet } from "kubernetes-types/apps/v1.d.ts";
import type { ConfigMap, EnvVar, ServiceAccount } from "kubernetes-types/core/v1.d.ts";
import type { ClusterRoleBinding, Role, RoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { Identity } from "../constants.ts";
import type { Printer } from "../ports/printer.ts";
import type { KubeClient } from "../kube/client.ts";
import { signConfigMap } from "../cluster/component_config_hash.ts";
import {
  clusterRoleBinding,
  getOneObjectRole,
  groupSubject,
  roleBinding,
  serviceAccountSubject,
} from "../cluster/rbac.ts";

const KUBE_SYSTEM = "kube-system";
/** ConfigMap, DaemonSet, ServiceAccount, Role and RoleBinding name. */
const KUBE_PROXY_NAME = "kube-proxy";
/** Key of the KubeProxyConfiguration in the ConfigMap. */
const KUBE_PROXY_CONFIG_KEY = "config.conf";
/** Key of the in-cluster kubeconfig in the ConfigMap. */
const KUBE_PROXY_KUBECONFIG_KEY = "kubeconfig.conf";
/** ClusterRoleBinding granting the node-proxier role. */
const NODE_PROXIER_BINDING = "kubeadm:node-proxier";
/** The built-in ClusterRole for kube-proxy. */
const NODE_PROXIER_ROLE = "system:node-proxier";

/** The kubeconfig kube-proxy uses in the cluster (service-account token and CA). */
function kubeProxyKubeconfig(controlPlaneEndpoint: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
    server: ${controlPlaneEndpoint}
  name: default
contexts:
- context:
    cluster: default
    namespace: default
    user: default
  name: default
current-context: default
users:
- name: default
  user:
    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token`;
}

/** Input of {@link kubeProxyConfigMap}. */
export interface KubeProxyConfigMapInput {
  /** The KubeProxyConfiguration YAML. */
  kubeProxyConfigurationYaml: string;
  /** Control-plane endpoint URL, e.g. `https://10.0.0.1:6443`. */
  controlPlaneEndpoint: string;
  /** Whether the user supplied the KubeProxyConfiguration (then it is not checksummed). */
  userSupplied: boolean;
  /** What computes the checksum. */
  crypto: Hashing;
}

/**
 * ConfigMap `kube-system/kube-proxy` (label `app: kube-proxy`). Both values are literal blocks
 * with their final newline stripped, as upstream's `|-` template yields.
 */
export async function kubeProxyConfigMap(input: KubeProxyConfigMapInput): Promise<ConfigMap> {
  const cm: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: KUBE_PROXY_NAME, namespace: KUBE_SYSTEM, labels: { app: KUBE_PROXY_NAME } },
    data: {
      [KUBE_PROXY_KUBECONFIG_KEY]: kubeProxyKubeconfig(input.controlPlaneEndpoint),
      [KUBE_PROXY_CONFIG_KEY]: input.kubeProxyConfigurationYaml.replace(/\n+$/, ""),
    },
  };
  return input.userSupplied ? cm : await signConfigMap(cm, input.crypto);
}

/**
 * The host's `*_proxy` variables (any case, non-empty) as container env, sorted by name — the
 * way upstream propagates proxy settings into kube-proxy.
 */
export function proxyEnvVars(env: Readonly<Record<string, string>>): EnvVar[] {
  return Object.entries(env)
    .filter(([name, value]) => name.toLowerCase().endsWith("_proxy") && value !== "")
    .map(([name, value]) => ({ name, value }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** DaemonSet `kube-system/kube-proxy`. */
export function kubeProxyDaemonSet(
  image: string,
  proxyEnv: Readonly<Record<string, string>> = {},
): DaemonSet {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: {
      labels: { "k8s-app": KUBE_PROXY_NAME },
      name: KUBE_PROXY_NAME,
      namespace: KUBE_SYSTEM,
    },
    spec: {
      selector: { matchLabels: { "k8s-app": KUBE_PROXY_NAME } },
      updateStrategy: { type: "RollingUpdate" },
      template: {
        metadata: { labels: { "k8s-app": KUBE_PROXY_NAME } },
        spec: {
          priorityClassName: "system-node-critical",
          containers: [{
            name: KUBE_PROXY_NAME,
            image,
            imagePullPolicy: "IfNotPresent",
            command: [
              "/usr/local/bin/kube-proxy",
              `--config=/var/lib/kube-proxy/${KUBE_PROXY_CONFIG_KEY}`,
              "--hostname-override=$(NODE_NAME)",
            ],
            securityContext: { privileged: true },
            volumeMounts: [
              { mountPath: "/var/lib/kube-proxy", name: "kube-proxy" },
              { mountPath: "/run/xtables.lock", name: "xtables-lock" },
              { mountPath: "/lib/modules", name: "lib-modules", readOnly: true },
            ],
            env: [
              { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
              ...proxyEnvVars(proxyEnv),
            ],
          }],
          hostNetwork: true,
          serviceAccountName: KUBE_PROXY_NAME,
          volumes: [
            { name: "kube-proxy", configMap: { name: KUBE_PROXY_NAME } },
            {
              name: "xtables-lock",
              hostPath: { path: "/run/xtables.lock", type: "FileOrCreate" },
            },
            { name: "lib-modules", hostPath: { path: "/lib/modules" } },
          ],
          tolerations: [{ operator: "Exists" }],
          nodeSelector: { "kubernetes.io/os": "linux" },
        },
      },
    },
    // Upstream sends the typed object, whose status counters have no omitempty.
    status: {
      currentNumberScheduled: 0,
      desiredNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
    },
  };
}

/** ServiceAccount `kube-system/kube-proxy`. */
function kubeProxyServiceAccount(): ServiceAccount {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: KUBE_PROXY_NAME, namespace: KUBE_SYSTEM },
  };
}

/** ClusterRoleBinding `kubeadm:node-proxier` → `system:node-proxier`, SA `kube-system/kube-proxy`. */
function nodeProxierBinding(): ClusterRoleBinding {
  return clusterRoleBinding(NODE_PROXIER_BINDING, NODE_PROXIER_ROLE, [
    serviceAccountSubject(KUBE_SYSTEM, KUBE_PROXY_NAME),
  ]);
}

/** Role `kube-system/kube-proxy`: get configmap `kube-proxy`. */
function kubeProxyRole(): Role {
  return getOneObjectRole(KUBE_SYSTEM, KUBE_PROXY_NAME, "configmaps", KUBE_PROXY_NAME);
}

/** RoleBinding `kube-system/kube-proxy` → the default bootstrap-token group. */
function kubeProxyRoleBinding(): RoleBinding {
  return roleBinding(KUBE_SYSTEM, KUBE_PROXY_NAME, [groupSubject(Identity.bootstrapDefaultGroup)]);
}

/** Input of {@link ensureKubeProxy}. */
export interface KubeProxyInput extends KubeProxyConfigMapInput {
  /** The kube-proxy image (`manifests/images.ts` `kubernetesImage`). */
  image: string;
  /** Host environment; its `*_proxy` variables are passed to kube-proxy. */
  proxyEnv?: Readonly<Record<string, string>>;
  /** Applies the `kubeproxydaemonset` patches of `--patches` (v1.37) to the DaemonSet. */
  patchDaemonSet?: (ds: DaemonSet) => DaemonSet | Promise<DaemonSet>;
}

/** The kube-proxy DaemonSet for a configuration, patched when asked. */
async function patchedDaemonSet(input: KubeProxyInput): Promise<DaemonSet> {
  const daemonSet = kubeProxyDaemonSet(input.image, input.proxyEnv);
  return input.patchDaemonSet ? await input.patchDaemonSet(daemonSet) : daemonSet;
}

/**
 * What `init phase addon kube-proxy --print-manifest` prints, in upstream's order:
 * ServiceAccount, ClusterRoleBinding, Role, RoleBinding, ConfigMap, DaemonSet (patched, with no
 * `status`).
 */
export async function kubeProxyManifests(input: KubeProxyInput): Promise<object[]> {
  const { status: _, ...daemonSet } = await patchedDaemonSet(input);
  return [
    kubeProxyServiceAccount(),
    nodeProxierBinding(),
    kubeProxyRole(),
    kubeProxyRoleBinding(),
    await kubeProxyConfigMap(input),
    daemonSet,
  ];
}

/**
 * Installs or updates kube-proxy: ConfigMap, DaemonSet, ServiceAccount, ClusterRoleBinding, Role
 * and RoleBinding, sent in upstream's order but at once (upstream waits for each answer).
 */
export async function ensureKubeProxy(
  client: KubeClient,
  input: KubeProxyInput,
  out: Printer,
): Promise<void> {
  await client.createOrUpdateAll([
    await kubeProxyConfigMap(input),
    await patchedDaemonSet(input),
    kubeProxyServiceAccount(),
    nodeProxierBinding(),
    kubeProxyRole(),
    kubeProxyRoleBinding(),
  ]);
  out.info("[addons] Applied essential addon: kube-proxy");
}
