/**
 * What `kubeadm certs renew` and `check-expiration` handle (upstream renewal `Manager`'s
 * handlers): every leaf certificate of the inventory and every kubeconfig with a
 * `renewLongName`, named by the certificate (`apiserver`) or the file (`admin.conf`), sorted
 * by name, and the CAs. Data only, so the command line can list them without loading the PKI.
 *
 * @module
 */
import { type CertName, type CertSpec, certSpec, KUBEADM_CERTS } from "./certlist.ts";
import { KUBECONFIG_SPECS } from "../kubeconfig/specs.ts";

/** Where a renewable certificate lives. */
export type RenewSource =
  | { kind: "pki"; baseName: string }
  | { kind: "kubeconfig"; fileName: string };

/** One certificate `kubeadm certs renew` handles (upstream `CertificateRenewHandler`). */
export interface RenewTarget {
  /** Sub-command name: the certificate (`apiserver`) or the kubeconfig file (`admin.conf`). */
  name: string;
  /** Description used in help and messages (`certificate for serving the Kubernetes API`). */
  longName: string;
  source: RenewSource;
  /** Name of the signing CA (`ca`, `front-proxy-ca`, `etcd-ca`). */
  caName: CertName;
  /** Base name of the signing CA's files (`ca`, `front-proxy-ca`, `etcd/ca`). */
  caBaseName: string;
  /** The static Pods that load the file. */
  readers: readonly string[];
}

/** Orders named entries by name, as Go's `sort.Slice` on names does. */
export const byName = <T extends { name: string }>(a: T, b: T): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

function isEtcdSigned(spec: CertSpec): boolean {
  return spec.name === "etcd-ca" || spec.caName === "etcd-ca";
}

/**
 * Every renewal target, sorted by name (upstream builds its sub-commands from this list),
 * or, with `externalEtcd`, those of a cluster with external etcd.
 */
export function renewTargets(externalEtcd = false): RenewTarget[] {
  const certs = KUBEADM_CERTS.filter((s) => s.caName && !(externalEtcd && isEtcdSigned(s))).map(
    (s): RenewTarget => {
      const ca = certSpec(s.caName!);
      return {
        name: s.name,
        longName: s.longName,
        source: { kind: "pki", baseName: s.baseName },
        caName: ca.name,
        caBaseName: ca.baseName,
        readers: s.readers ?? [],
      };
    },
  );
  const ca = certSpec("ca");
  const kubeconfigs = KUBECONFIG_SPECS.filter((k) => k.renewLongName).map((k): RenewTarget => ({
    name: k.fileName,
    longName: k.renewLongName!,
    source: { kind: "kubeconfig", fileName: k.fileName },
    caName: ca.name,
    caBaseName: ca.baseName,
    readers: k.readers ?? [],
  }));
  return [...certs, ...kubeconfigs].sort(byName);
}

/** The CAs `check-expiration` reports, sorted by name (without etcd-ca for external etcd). */
export function caTargets(externalEtcd = false): CertSpec[] {
  return KUBEADM_CERTS.filter((s) => !s.caName && !(externalEtcd && isEtcdSigned(s))).sort(
    byName,
  );
}
