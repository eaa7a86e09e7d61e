/**
 * The CoreDNS addon as kubeadm 1.37 installs it (upstream `phases/addons/dns`): ConfigMap
 * `coredns` with the Corefile, ClusterRole and ClusterRoleBinding `system:coredns`,
 * ServiceAccount `coredns`, Deployment `coredns` and Service `kube-dns` at the 10th address of
 * the service CIDR, all in `kube-system`.
 *
 * @module
 */
import type { Deployment } from "kubernetes-types/apps/v1.d.ts";
import type { ConfigMap, Service, ServiceAccount } from "kubernetes-types/core/v1.d.ts";
import type { ClusterRole, ClusterRoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { clusterDNSIPOrUndefined } from "../net/service_ip.ts";
import { CONTROL_PLANE_LABEL } from "../constants.ts";
import { KubeadmError } from "../errors.ts";
import type { Printer } from "../ports/printer.ts";
import { type KubeClient, settledInOrder } from "../kube/client.ts";
import { isAlreadyExists, isInvalid } from "../kube/status.ts";
import { clusterRole, clusterRoleBinding, serviceAccountSubject } from "../cluster/rbac.ts";

const KUBE_SYSTEM = "kube-system";
/** Deployment, ConfigMap and ServiceAccount name. */
const COREDNS_NAME = "coredns";
/** ClusterRole and ClusterRoleBinding name. */
const COREDNS_CLUSTER_ROLE = "system:coredns";
/** The DNS Service name. */
const KUBE_DNS_SERVICE = "kube-dns";
/** Label selecting the DNS pods. */
const KUBE_DNS_LABEL = { "k8s-app": "kube-dns" } as const;
/** Replicas at first install. */
const COREDNS_REPLICAS = 2;
/** The Corefile key. */
const COREFILE_KEY = "Corefile";

/** The cluster DNS Service IP: the 10th address of the first service CIDR. */
export function dnsServiceIP(serviceSubnet: string): string {
  const ip = clusterDNSIPOrUndefined(serviceSubnet);
  if (!ip) {
    throw new KubeadmError(
      `unable to get the tenth IP address from service subnet CIDR ${serviceSubnet}`,
      { field: "networking.serviceSubnet", value: serviceSubnet },
    );
  }
  return ip;
}

/** The Corefile for a DNS domain (1.32+ form, with the cache `disable` block). */
export function corefile(dnsDomain: string): string {
  const cache = dnsDomain
    ? `    cache 30 {\n       disable success ${dnsDomain}\n       disable denial ${dnsDomain}\n    }\n`
    : "    cache 30\n";
  return `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes ${dnsDomain} in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
${cache}    loop
    reload
    loadbalance
}
`;
}

/** ConfigMap `kube-system/coredns`. */
function coreDNSConfigMap(dnsDomain: string): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: COREDNS_NAME, namespace: KUBE_SYSTEM },
    data: { [COREFILE_KEY]: corefile(dnsDomain) },
  };
}

/** ClusterRole `system:coredns`. */
export function coreDNSClusterRole(): ClusterRole {
  return clusterRole(COREDNS_CLUSTER_ROLE, [
    {
      apiGroups: [""],
      resources: ["endpoints", "services", "pods", "namespaces"],
      verbs: ["list", "watch"],
    },
    { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
  ]);
}

/** ClusterRoleBinding `system:coredns` → ServiceAccount `kube-system/coredns`. */
function coreDNSClusterRoleBinding(): ClusterRoleBinding {
  return clusterRoleBinding(COREDNS_CLUSTER_ROLE, COREDNS_CLUSTER_ROLE, [
    serviceAccountSubject(KUBE_SYSTEM, COREDNS_NAME),
  ]);
}

/** ServiceAccount `kube-system/coredns`. */
function coreDNSServiceAccount(): ServiceAccount {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: COREDNS_NAME, namespace: KUBE_SYSTEM },
  };
}

/** Deployment `kube-system/coredns` (1.34: named probe ports 8080/8181). */
export function coreDNSDeployment(image: string, replicas: number = COREDNS_REPLICAS): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: COREDNS_NAME, namespace: KUBE_SYSTEM, labels: { ...KUBE_DNS_LABEL } },
    spec: {
      replicas,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
      selector: { matchLabels: { ...KUBE_DNS_LABEL } },
      template: {
        metadata: { labels: { ...KUBE_DNS_LABEL } },
        spec: {
          priorityClassName: "system-cluster-critical",
          serviceAccountName: COREDNS_NAME,
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [{
                weight: 100,
                podAffinityTerm: {
                  labelSelector: {
                    matchExpressions: [{ key: "k8s-app", operator: "In", values: ["kube-dns"] }],
                  },
                  topologyKey: "kubernetes.io/hostname",
                },
              }],
            },
          },
          tolerations: [
            { key: "CriticalAddonsOnly", operator: "Exists" },
            { key: CONTROL_PLANE_LABEL, effect: "NoSchedule" },
          ],
          nodeSelector: { "kubernetes.io/os": "linux" },
          containers: [{
            name: "coredns",
            image,
            imagePullPolicy: "IfNotPresent",
            resources: {
              limits: { memory: "170Mi" },
              requests: { cpu: "100m", memory: "70Mi" },
            },
            args: ["-conf", "/etc/coredns/Corefile"],
            volumeMounts: [{ name: "config-volume", mountPath: "/etc/coredns", readOnly: true }],
            ports: [
              { containerPort: 53, name: "dns", protocol: "UDP" },
              { containerPort: 53, name: "dns-tcp", protocol: "TCP" },
              { containerPort: 9153, name: "metrics", protocol: "TCP" },
              { containerPort: 8080, name: "liveness-probe", protocol: "TCP" },
              { containerPort: 8181, name: "readiness-probe", protocol: "TCP" },
            ],
            livenessProbe: {
              httpGet: { path: "/health", port: "liveness-probe", scheme: "HTTP" },
              initialDelaySeconds: 60,
              timeoutSeconds: 5,
              successThreshold: 1,
              failureThreshold: 5,
            },
            readinessProbe: {
              httpGet: { path: "/ready", port: "readiness-probe", scheme: "HTTP" },
            },
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] },
              readOnlyRootFilesystem: true,
            },
          }],
          dnsPolicy: "Default",
          volumes: [{
            name: "config-volume",
            configMap: { name: COREDNS_NAME, items: [{ key: COREFILE_KEY, path: COREFILE_KEY }] },
          }],
        },
      },
    },
  };
}

/**
 * Service `kube-system/kube-dns`. It carries `resourceVersion: "0"` like upstream's manifest, so
 * the same object works for both create and an unconditional update.
 */
export function kubeDNSService(dnsIP: string): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      labels: {
        ...KUBE_DNS_LABEL,
        "kubernetes.io/cluster-service": "true",
        "kubernetes.io/name": "CoreDNS",
      },
      name: KUBE_DNS_SERVICE,
      namespace: KUBE_SYSTEM,
      annotations: { "prometheus.io/port": "9153", "prometheus.io/scrape": "true" },
      resourceVersion: "0",
    },
    spec: {
      clusterIP: dnsIP,
      ports: [
        { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
        { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
        { name: "metrics", port: 9153, protocol: "TCP", targetPort: 9153 },
      ],
      selector: { ...KUBE_DNS_LABEL },
    },
  };
}

/** Input of {@link ensureCoreDNS}. */
export interface CoreDNSInput {
  /** `networking.dnsDomain`. */
  dnsDomain: string;
  /** `networking.serviceSubnet`. */
  serviceSubnet: string;
  /** The CoreDNS image (`manifests/images.ts` `dnsImage`). */
  image: string;
  /** Applies the `corednsdeployment` patches, if any. */
  patchDeployment?: (d: Deployment) => Deployment | Promise<Deployment>;
}

/** Replicas to use: 2 at first install, the existing count otherwise. */
async function deployedDNSReplicas(client: KubeClient): Promise<number> {
  const items = await client.list<Deployment>("Deployment", {
    namespace: KUBE_SYSTEM,
    labelSelector: "k8s-app=kube-dns",
  });
  if (items.length === 0) return COREDNS_REPLICAS;
  if (items.length > 1) {
    throw new KubeadmError(
      `multiple DNS addon deployments found: [${items.map((d) => d.metadata?.name).join(" ")}]`,
    );
  }
  return items[0].spec?.replicas ?? COREDNS_REPLICAS;
}

/** Every CoreDNS object, built once for installing and for `--print-manifest`. */
interface CoreDNSObjects {
  deployment: Deployment;
  configMap: ConfigMap;
  service: Service;
  clusterRole: ClusterRole;
  clusterRoleBinding: ClusterRoleBinding;
  serviceAccount: ServiceAccount;
}

/** The CoreDNS objects for a configuration (the Deployment patched, when asked). */
async function coreDNSObjects(
  input: CoreDNSInput,
  replicas: number,
): Promise<CoreDNSObjects> {
  let deployment = coreDNSDeployment(input.image, replicas);
  if (input.patchDeployment) deployment = await input.patchDeployment(deployment);
  return {
    deployment,
    configMap: coreDNSConfigMap(input.dnsDomain),
    service: kubeDNSService(dnsServiceIP(input.serviceSubnet)),
    clusterRole: coreDNSClusterRole(),
    clusterRoleBinding: coreDNSClusterRoleBinding(),
    serviceAccount: coreDNSServiceAccount(),
  };
}

/**
 * What `init phase addon coredns --print-manifest` prints, in upstream's order: Deployment,
 * ConfigMap, Service, ClusterRole, ClusterRoleBinding, ServiceAccount (replicas as on a first
 * install: nothing is asked of the cluster).
 */
export async function coreDNSManifests(input: CoreDNSInput): Promise<object[]> {
  const o = await coreDNSObjects(input, COREDNS_REPLICAS);
  return [
    o.deployment,
    o.configMap,
    o.service,
    o.clusterRole,
    o.clusterRoleBinding,
    o.serviceAccount,
  ];
}

/**
 * Installs or updates CoreDNS: the ConfigMap (an existing Corefile that differs from the default
 * is retained), ClusterRole, ClusterRoleBinding and ServiceAccount at once, then the Deployment,
 * then the Service (created; on AlreadyExists or Invalid — IP already allocated — updated).
 * Upstream writes them one after another in that order; a failure is reported as there.
 */
export async function ensureCoreDNS(
  client: KubeClient,
  input: CoreDNSInput,
  out: Printer,
): Promise<void> {
  const replicas = deployedDNSReplicas(client);
  const corefile = client.tryGet<ConfigMap>({
    kind: "ConfigMap",
    namespace: KUBE_SYSTEM,
    name: COREDNS_NAME,
  });
  await settledInOrder([replicas, corefile]);
  const objects = await coreDNSObjects(input, await replicas);
  const existing = await corefile;
  const cm = objects.configMap;
  const current = existing?.data?.[COREFILE_KEY];
  if (existing && current === undefined) {
    throw new KubeadmError("unable to find the CoreDNS Corefile data");
  }
  const keep = current !== undefined && current.trim() !== "" &&
    current.trim() !== cm.data![COREFILE_KEY].trim();
  // The Deployment's Pods need the ServiceAccount: it is written once the rest is.
  await settledInOrder([
    keep ? client.createOrRetain(cm) : client.createOrUpdate(cm),
    client.createOrUpdateAll([
      objects.clusterRole,
      objects.clusterRoleBinding,
      objects.serviceAccount,
    ]),
  ]);
  await client.createOrUpdate(objects.deployment);
  const service = objects.service;
  try {
    await client.create(service);
  } catch (e) {
    if (!isAlreadyExists(e) && !isInvalid(e)) {
      throw new KubeadmError(`unable to create a new DNS service: ${(e as Error).message}`, {
        cause: e,
      });
    }
    try {
      await client.update(service);
    } catch (e2) {
      throw new KubeadmError(`unable to create/update the DNS service: ${(e2 as Error).message}`, {
        cause: e2,
      });
    }
  }
  out.info("[addons] Applied essential addon: CoreDNS");
}
