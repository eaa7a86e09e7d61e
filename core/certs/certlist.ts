/**
 * kubeadm's certificate inventory as data (upstream `phases/certs/certlist.go`): every CA and
 * leaf kubeadm creates, who signs it, its subject, usages and SANs, and the `init phase certs`
 * sub-phases with their help text.
 *
 * The list is ordered CA-first, each CA followed by the leaves it signs; that order is the
 * creation (and log) order.
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import { parseDuration } from "../text/duration.ts";
import { CERT_BACKDATE_MS, Component, Identity } from "../constants.ts";
import { KubeadmError } from "../errors.ts";
import { isDNS1123Subdomain, isWildcardDNS1123Subdomain } from "../net/dns_name.ts";
import { parseHostPort } from "../net/host_port.ts";
import { canonicalIP, parseIP } from "../net/ip.ts";
import { apiServerVirtualIP } from "../net/service_ip.ts";
import type { CertConfig } from "../pki/cert.ts";
import type { ExtKeyUsage } from "../pki/extensions.ts";

/** Names of the certificates (and of their `init phase certs` sub-phases). */
export type CertName =
  | "ca"
  | "apiserver"
  | "apiserver-kubelet-client"
  | "front-proxy-ca"
  | "front-proxy-client"
  | "etcd-ca"
  | "etcd-server"
  | "etcd-peer"
  | "etcd-healthcheck-client"
  | "apiserver-etcd-client";

/** Which SAN rule a certificate uses. */
export type AltNamesRule = "apiserver" | "etcd-server" | "etcd-peer";

/** One certificate kubeadm manages. */
export interface CertSpec {
  /** Phase/command name, e.g. `etcd-server`. */
  name: CertName;
  /** Human description used in help texts, e.g. `certificate for serving etcd`. */
  longName: string;
  /** File base name under the certificates dir, e.g. `etcd/server`. */
  baseName: string;
  /** Name of the signing CA; undefined for CAs. */
  caName?: CertName;
  /** Fixed CommonName (ignored when {@link cnIsNodeName}). */
  commonName: string;
  /** The CommonName is the node name (etcd server/peer). */
  cnIsNodeName?: boolean;
  organization: readonly string[];
  usages: readonly ExtKeyUsage[];
  altNames?: AltNamesRule;
  /** The static Pods that load this leaf (to restart after it is renewed). */
  readers?: readonly string[];
}

/** File names upstream uses in the certificates dir. */
export const PkiFile = {
  saPrivateKey: "sa.key",
  saPublicKey: "sa.pub",
  saBaseName: "sa",
} as const;

/** The full inventory in upstream's order (`GetDefaultCertList`). */
export const KUBEADM_CERTS: readonly CertSpec[] = [
  {
    name: "ca",
    longName: "self-signed Kubernetes CA to provision identities for other Kubernetes components",
    baseName: "ca",
    commonName: "kubernetes",
    organization: [],
    usages: [],
  },
  {
    name: "apiserver",
    longName: "certificate for serving the Kubernetes API",
    baseName: "apiserver",
    caName: "ca",
    commonName: "kube-apiserver",
    organization: [],
    usages: ["serverAuth"],
    altNames: "apiserver",
    readers: [Component.apiServer],
  },
  {
    name: "apiserver-kubelet-client",
    longName: "certificate for the API server to connect to kubelet",
    baseName: "apiserver-kubelet-client",
    caName: "ca",
    commonName: Identity.apiServerKubeletClientUser,
    // kubeadm v1.37: no O=kubeadm:cluster-admins; the kubeadm:apiserver-kubelet-client
    // ClusterRoleBinding grants the kubelet API instead.
    organization: [],
    usages: ["clientAuth"],
    readers: [Component.apiServer],
  },
  {
    name: "front-proxy-ca",
    longName: "self-signed CA to provision identities for front proxy",
    baseName: "front-proxy-ca",
    commonName: "front-proxy-ca",
    organization: [],
    usages: [],
  },
  {
    name: "front-proxy-client",
    longName: "certificate for the front proxy client",
    baseName: "front-proxy-client",
    caName: "front-proxy-ca",
    commonName: "front-proxy-client",
    organization: [],
    usages: ["clientAuth"],
    readers: [Component.apiServer],
  },
  {
    name: "etcd-ca",
    longName: "self-signed CA to provision identities for etcd",
    baseName: "etcd/ca",
    commonName: "etcd-ca",
    organization: [],
    usages: [],
  },
  {
    name: "etcd-server",
    longName: "certificate for serving etcd",
    baseName: "etcd/server",
    caName: "etcd-ca",
    commonName: "",
    cnIsNodeName: true,
    organization: [],
    // etcd also requires clientAuth on its serving certificate.
    usages: ["serverAuth", "clientAuth"],
    altNames: "etcd-server",
    readers: [Component.etcd],
  },
  {
    name: "etcd-peer",
    longName: "certificate for etcd nodes to communicate with each other",
    baseName: "etcd/peer",
    caName: "etcd-ca",
    commonName: "",
    cnIsNodeName: true,
    organization: [],
    usages: ["serverAuth", "clientAuth"],
    altNames: "etcd-peer",
    readers: [Component.etcd],
  },
  {
    name: "etcd-healthcheck-client",
    longName: "certificate for liveness probes to healthcheck etcd",
    baseName: "etcd/healthcheck-client",
    caName: "etcd-ca",
    commonName: "kube-etcd-healthcheck-client",
    organization: [],
    usages: ["clientAuth"],
  },
  {
    name: "apiserver-etcd-client",
    longName: "certificate the apiserver uses to access etcd",
    baseName: "apiserver-etcd-client",
    caName: "etcd-ca",
    commonName: "kube-apiserver-etcd-client",
    organization: [],
    usages: ["clientAuth"],
    readers: [Component.apiServer],
  },
];

/** Certificates needed with external etcd (`GetCertsWithoutEtcd`). */
export const CERTS_WITHOUT_ETCD: readonly CertSpec[] = KUBEADM_CERTS.filter((c) =>
  c.name !== "etcd-ca" && c.caName !== "etcd-ca"
);

/** The inventory for a configuration: all certificates, or the external-etcd subset. */
export function certListFor(cfg: ResolvedConfig): readonly CertSpec[] {
  return cfg.cluster.etcd.external ? CERTS_WITHOUT_ETCD : KUBEADM_CERTS;
}

/** Looks a certificate up by name; throws for unknown names. */
export function certSpec(name: string): CertSpec {
  const spec = KUBEADM_CERTS.find((c) => c.name === name);
  if (!spec) throw new KubeadmError(`unknown certificate ${JSON.stringify(name)}`, { value: name });
  return spec;
}

/** The CA spec that signs a leaf, or undefined for CAs. */
export function caSpecOf(spec: CertSpec): CertSpec | undefined {
  return spec.caName ? certSpec(spec.caName) : undefined;
}

/** SANs of a certificate, before de-duplication. */
export interface AltNames {
  dnsNames: string[];
  ips: string[];
}

/** Upstream's warning for a SAN that is neither an IP nor a DNS name. */
function invalidSANWarning(san: string, certName: string): string {
  return `[certificates] WARNING: '${san}' was not added to the '${certName}' SAN, because it is not a valid IP or RFC-1123 compliant DNS entry`;
}

/** Sorts user SANs into IPs and (wildcard) DNS names; warns about and drops the rest. */
function appendSANs(
  alt: AltNames,
  sans: readonly string[] | undefined,
  certName: string,
  warn: (line: string) => void,
): void {
  for (const san of sans ?? []) {
    const ip = canonicalIP(san);
    if (ip) alt.ips.push(ip);
    else if (isDNS1123Subdomain(san) || isWildcardDNS1123Subdomain(san)) alt.dnsNames.push(san);
    else warn(invalidSANWarning(san, certName));
  }
}

function advertiseIP(cfg: ResolvedConfig): string {
  const addr = cfg.init.localAPIEndpoint.advertiseAddress;
  const ip = canonicalIP(addr);
  if (!ip) {
    throw new KubeadmError(
      `error parsing LocalAPIEndpoint AdvertiseAddress ${addr}: is not a valid textual representation of an IP address`,
      { field: "localAPIEndpoint.advertiseAddress", value: addr },
    );
  }
  return ip;
}

/** apiserver SANs (upstream `GetAPIServerAltNames`). */
export function apiServerAltNames(
  cfg: ResolvedConfig,
  warn: (line: string) => void = () => {},
): AltNames {
  const advertise = advertiseIP(cfg);
  const vip = apiServerVirtualIP(cfg.cluster.networking.serviceSubnet);
  const alt: AltNames = {
    dnsNames: [
      cfg.init.nodeRegistration.name,
      "kubernetes",
      "kubernetes.default",
      "kubernetes.default.svc",
      `kubernetes.default.svc.${cfg.cluster.networking.dnsDomain}`,
    ],
    ips: [vip, advertise],
  };
  const cpe = cfg.cluster.controlPlaneEndpoint;
  if (cpe) {
    let host: string;
    try {
      host = parseHostPort(cpe).host;
    } catch (e) {
      throw new KubeadmError(
        `error parsing cluster controlPlaneEndpoint ${JSON.stringify(cpe)}: ${
          e instanceof Error ? e.message : e
        }`,
        { field: "controlPlaneEndpoint", value: cpe, cause: e },
      );
    }
    const ip = parseIP(host);
    if (ip) alt.ips.push(canonicalIP(host)!);
    else alt.dnsNames.push(host);
  }
  appendSANs(alt, cfg.cluster.apiServer.certSANs, "apiserver", warn);
  return alt;
}

/** etcd server/peer SANs (upstream `GetEtcdAltNames` / `GetEtcdPeerAltNames`). */
export function etcdAltNames(
  cfg: ResolvedConfig,
  which: "server" | "peer",
  warn: (line: string) => void = () => {},
): AltNames {
  const alt: AltNames = {
    dnsNames: [cfg.init.nodeRegistration.name, "localhost"],
    ips: [advertiseIP(cfg), "127.0.0.1", "::1"],
  };
  const local = cfg.cluster.etcd.local;
  if (local) {
    if (which === "server") appendSANs(alt, local.serverCertSANs, "etcd/server", warn);
    else appendSANs(alt, local.peerCertSANs, "etcd/peer", warn);
  }
  return alt;
}

/** The SANs a certificate should carry for this configuration (empty for CAs and clients). */
function altNamesFor(
  spec: CertSpec,
  cfg: ResolvedConfig,
  warn: (line: string) => void = () => {},
): AltNames {
  switch (spec.altNames) {
    case "apiserver":
      return apiServerAltNames(cfg, warn);
    case "etcd-server":
      return etcdAltNames(cfg, "server", warn);
    case "etcd-peer":
      return etcdAltNames(cfg, "peer", warn);
    default:
      return { dnsNames: [], ips: [] };
  }
}

function durationMs(text: string, field: string): number {
  try {
    return parseDuration(text);
  } catch (e) {
    throw new KubeadmError(`invalid duration ${JSON.stringify(text)} for ${field}`, {
      field,
      value: text,
      cause: e,
    });
  }
}

/**
 * The full certificate config for this run (upstream `KubeadmCert.GetConfig`): CN (node name
 * for etcd server/peer), O, usages, SANs, NotBefore = start − 5 min, NotAfter = start +
 * (ca)CertificateValidityPeriod.
 */
export function certConfigFor(
  spec: CertSpec,
  cfg: ResolvedConfig,
  startTime: Date,
  warn: (line: string) => void = () => {},
): CertConfig {
  const alt = altNamesFor(spec, cfg, warn);
  const validity = spec.caName
    ? durationMs(cfg.cluster.certificateValidityPeriod, "certificateValidityPeriod")
    : durationMs(cfg.cluster.caCertificateValidityPeriod, "caCertificateValidityPeriod");
  return {
    commonName: spec.cnIsNodeName ? cfg.init.nodeRegistration.name : spec.commonName,
    organization: [...spec.organization],
    usages: [...spec.usages],
    dnsNames: alt.dnsNames,
    ips: alt.ips,
    notBefore: new Date(startTime.getTime() - CERT_BACKDATE_MS),
    notAfter: new Date(startTime.getTime() + validity),
  };
}

/** One `init phase certs` sub-phase. */
export interface CertSubPhase {
  name: string;
  short: string;
  long: string;
}

const IF_BOTH_EXIST =
  "If both files already exist, kubeadm skips the generation step and existing files will be used.";

/** Help text of the `sa` sub-phase. */
const SA_LONG_DESCRIPTION =
  "Generate the private key for signing service account tokens along with its public key, and save them into\n" +
  `sa.key and sa.pub files.\n\n${IF_BOTH_EXIST}`;

/**
 * "Default SANs are ..." as upstream computes it for help: defaults with advertise address
 * 127.0.0.1 and no node name, names and IPs in configuration order (no de-duplication).
 */
function defaultSANDescription(spec: CertSpec): string {
  let alt: AltNames;
  switch (spec.altNames) {
    case "apiserver":
      alt = {
        dnsNames: [
          "kubernetes",
          "kubernetes.default",
          "kubernetes.default.svc",
          "kubernetes.default.svc.cluster.local",
        ],
        ips: ["10.96.0.1", "127.0.0.1"],
      };
      break;
    case "etcd-server":
    case "etcd-peer":
      alt = { dnsNames: ["localhost"], ips: ["127.0.0.1", "127.0.0.1", "::1"] };
      break;
    default:
      return "";
  }
  return `\n\nDefault SANs are ${[...alt.dnsNames, ...alt.ips].join(", ")}`;
}

/** The `init phase certs` sub-phases (without `all`), in upstream's order, with help texts. */
export const CERT_SUB_PHASES: readonly CertSubPhase[] = [
  ...KUBEADM_CERTS.map((c) => ({
    name: c.name,
    short: `Generate the ${c.longName}`,
    long:
      `Generate the ${c.longName}, and save them into ${c.baseName}.crt and ${c.baseName}.key files.${
        defaultSANDescription(c)
      }\n\n${IF_BOTH_EXIST}`,
  })),
  {
    name: "sa",
    short: "Generate a private key for signing service account tokens along with its public key",
    long: SA_LONG_DESCRIPTION,
  },
];
