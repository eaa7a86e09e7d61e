/**
 * Rotating a CA of the cluster (`kubeadm certs rotate-ca --ca <name>`, beyond upstream, whose
 * documentation describes it as a manual procedure, node by node: "Manual Rotation of CA
 * Certificates"). The rotation goes through stages, each a phase of `core/phases/rotate_ca/`,
 * each read back from the files it wrote so that a killed run resumes where it stopped. For the
 * cluster CA (`ca`):
 *
 * | stage      | `ca.crt`     | `ca.key` | signs (controller-manager)        | kubeconfigs, cluster-info |
 * | ---------- | ------------ | -------- | --------------------------------- | ------------------------- |
 * | `none`     | old          | old      | `ca.crt`                          | old                       |
 * | `prepared` | old          | old      | `ca.crt`                          | old                       |
 * | `trusted`  | old, new     | old      | `ca-rotation/signer.crt` (old)    | old, new                  |
 * | `signed`   | new, old     | new      | `ca-rotation/signer.crt` (new)    | new, old                  |
 * | `finished` | new          | new      | `ca.crt`                          | new                       |
 *
 * `trust` and `reissue` also write `ca-rotation/<phase>.done` when every reader was restarted.
 * `prepare` keeps the old CA and the new one in `<certificatesDir>/ca-rotation/`; `trust` makes
 * every reader trust both (the first certificate of a bundle is always the signing one: the
 * controller-manager's signer takes a single certificate, so it reads `signer.crt` while
 * `ca.crt` is a bundle); `reissue` switches the signing key and re-issues every leaf and
 * kubeconfig the CA signs; `node` (on every node) takes the trust the cluster publishes in
 * cluster-info and a kubelet client certificate from the current signer; `finish` drops the old
 * CA and removes `ca-rotation/`. A node says how far it got in two annotations of its Node,
 * which `reissue` and `finish` wait for on every node before they start.
 *
 * The front-proxy CA (`front-proxy-ca`) goes through the same stages in its own folder
 * (`front-proxy-ca-rotation/`) with `front-proxy-ca.crt`/`.key`; only the control plane reads
 * it (kube-apiserver's and the controller-manager's `--requestheader-client-ca-file`, published
 * by the API server in `kube-system/extension-apiserver-authentication` for aggregated API
 * servers) and only kubeadm signs with it (`front-proxy-client`), so it has no signer file, no
 * kubeconfig and nothing for the nodes to do. The etcd CA (`etcd-ca`, stacked etcd) likewise, in
 * `etcd-ca-rotation/` with `etcd/ca.crt`/`.key`: etcd (`--trusted-ca-file`,
 * `--peer-trusted-ca-file`) and kube-apiserver (`--etcd-cafile`) read it, and the leaves it
 * signs are etcd's server, peer and healthcheck-client certificates and
 * `apiserver-etcd-client`; etcd restarts last, with the quorum checks of every restart.
 *
 * @module
 */
import type { CryptoPort } from "../ports/crypto.ts";
import type { PlannedFile } from "../ports/files.ts";
import { Component } from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import {
  type Certificate,
  encodeCertificatePEM,
  keyMatchesCertificate,
  parseCertificatesPEM,
} from "../pki/cert.ts";
import { type KeyPair, parsePrivateKeyPEM } from "../pki/keys.ts";
import { certificatePin } from "../pki/pin.ts";
import { utf8 } from "../text/utf8.ts";
import {
  embedData,
  embeddedText,
  type Kubeconfig,
  type KubeconfigCluster,
  lookupContext,
  parseKubeconfig,
  serializeKubeconfig,
} from "../kubeconfig/kubeconfig.ts";
import { type CertAndKey, KEY_FILE_MODE, type PkiDirectory } from "./pki_dir.ts";
import { renewTargets } from "./renew_targets.ts";

/** A CA `certs rotate-ca --ca` names: its files, its rotation folder, who reads it. */
export interface RotatedCA {
  /** The `--ca` value and certificate name (`ca`, `front-proxy-ca`, `etcd-ca`). */
  name: "ca" | "front-proxy-ca" | "etcd-ca";
  /** Base name of its files in the certificates directory. */
  baseName: string;
  /** The folder of `certificatesDir` the rotation keeps its CAs in while it runs. */
  dir: string;
  /** The static Pods that read its certificate (restarted at each stage). */
  readers: readonly string[];
  /**
   * The key of `kube-system/extension-apiserver-authentication` under which the API server
   * publishes the CA it reads (adding to what the ConfigMap holds, never removing); none for a
   * CA only the control plane's own components use.
   */
  published?: "client-ca-file" | "requestheader-client-ca-file";
  /**
   * Whether every node takes part (the cluster CA: kubelets, kubeconfigs, cluster-info, the
   * controller-manager's signer, every Pod's `kube-root-ca.crt`); else the control plane only.
   */
  clusterWide: boolean;
}

/** The cluster CA. */
export const CLUSTER_CA: RotatedCA = {
  name: "ca",
  baseName: "ca",
  dir: "ca-rotation",
  readers: [Component.apiServer, Component.controllerManager],
  published: "client-ca-file",
  clusterWide: true,
};

/** The front-proxy CA (aggregated API servers trust the requests the API server proxies). */
export const FRONT_PROXY_CA: RotatedCA = {
  name: "front-proxy-ca",
  baseName: "front-proxy-ca",
  dir: "front-proxy-ca-rotation",
  readers: [Component.apiServer, Component.controllerManager],
  published: "requestheader-client-ca-file",
  clusterWide: false,
};

/** The etcd CA of a stacked etcd (a cluster with external etcd holds no key of it). */
export const ETCD_CA: RotatedCA = {
  name: "etcd-ca",
  baseName: "etcd/ca",
  dir: "etcd-ca-rotation",
  readers: [Component.apiServer, Component.etcd],
  clusterWide: false,
};

/** The CAs `certs rotate-ca --ca` names. */
const CAS: Record<string, RotatedCA> = {
  "ca": CLUSTER_CA,
  "front-proxy-ca": FRONT_PROXY_CA,
  "etcd-ca": ETCD_CA,
};

/** The `--ca` flag naming `ca` in a command to run (` --ca front-proxy-ca`; none for `ca`). */
export function caFlag(ca: RotatedCA): string {
  return ca.name === "ca" ? "" : ` --ca ${ca.name}`;
}

/** The old CA's certificate and key in a rotation's folder, kept until `finish`. */
export function oldCAPath(ca: RotatedCA): string {
  return `${ca.dir}/old-ca`;
}
/** The new CA's certificate and key in a rotation's folder. */
export function newCAPath(ca: RotatedCA): string {
  return `${ca.dir}/new-ca`;
}
/**
 * The one certificate the controller-manager signs with while `ca.crt` is a bundle (`.crt`;
 * the cluster CA only).
 */
export const SIGNER_CERT = `${CLUSTER_CA.dir}/signer`;
/**
 * The file a phase writes when it completed (its stage's files alone cannot say whether every
 * reader was restarted): `<dir>/<phase>.done`.
 */
export function doneMarker(ca: RotatedCA, phase: "trust" | "reissue"): string {
  return `${ca.dir}/${phase}.done`;
}

/** The {@link doneMarker} file of a phase, to write when it completed. */
export function doneMarkerFile(
  pki: PkiDirectory,
  ca: RotatedCA,
  phase: "trust" | "reissue",
): PlannedFile {
  return { path: pki.path(doneMarker(ca, phase)), data: "", mode: KEY_FILE_MODE, kind: "other" };
}

/** The Node annotation listing the CA pins a node's kubelet trusts (comma-separated). */
export const TRUST_ANNOTATION = "kubeadm.kubernetes.io/ca-rotation-trust";
/**
 * The Node annotation of a control plane naming the last rotate-ca phase it completed for `ca`
 * and the new CA's pin (`trust:sha256:…`, `reissue:sha256:…`, `finish:sha256:…`): `reissue`
 * waits for every control plane's `trust`, `finish` for every one's `reissue`, and the last
 * `finish` cuts the old CA out of what the API servers publish.
 */
export function controlPlaneAnnotation(ca: RotatedCA): string {
  return `kubeadm.kubernetes.io/${ca.name}-rotation-control-plane`;
}
/** The Node annotation naming the CA pin that signed the kubelet's client certificate. */
export const CLIENT_CA_ANNOTATION = "kubeadm.kubernetes.io/ca-rotation-client-ca";

/** The stages of a rotation, in order (see the module documentation). */
export type RotationStage = "none" | "prepared" | "trusted" | "signed" | "finished";

/** What the files say about a rotation. */
export interface RotationState {
  stage: RotationStage;
  /** The CA being replaced (from `ca-rotation/`; `ca.crt`'s when none runs). */
  oldCA: Certificate;
  /** The CA replacing it, once prepared. */
  newCA?: Certificate;
  /** Whether `trust` completed (its readers restarted). */
  trustDone: boolean;
  /** Whether `reissue` completed. */
  reissueDone: boolean;
}

/** The CA `--ca` names; refuses an unknown one, before anything is read. */
export function rotatedCA(name: string): RotatedCA {
  if (!Object.hasOwn(CAS, name)) {
    throw new KubeadmError(`--ca: unknown certificate authority "${name}"`, {
      field: "--ca",
      value: name,
      hint: `valid values: ${Object.keys(CAS).join(", ")}`,
    });
  }
  return CAS[name];
}

function sameCert(a: Certificate, b: Certificate): boolean {
  return a.der.length === b.der.length && a.der.every((v, i) => v === b.der[i]);
}

/** Whether `certs` is exactly `expected`, in order. */
function isExactly(certs: readonly Certificate[], expected: readonly Certificate[]): boolean {
  return certs.length === expected.length && certs.every((c, i) => sameCert(c, expected[i]));
}

/**
 * Reads the stage of `ca`'s rotation from the certificates directory (see the module
 * documentation). Throws, naming the CA's certificate file, when it matches no stage (edited by
 * hand, or another tool's).
 */
export async function rotationState(
  pki: PkiDirectory,
  ca: RotatedCA = CLUSTER_CA,
): Promise<RotationState> {
  const current = await pki.readCerts(ca.baseName);
  if (!(await pki.hasCert(newCAPath(ca)))) {
    return { stage: "none", oldCA: current[0], trustDone: false, reissueDone: false };
  }
  const oldCA = await pki.loadCert(oldCAPath(ca));
  const newCA = await pki.loadCert(newCAPath(ca));
  const trustDone = await pki.has(doneMarker(ca, "trust"));
  const reissueDone = await pki.has(doneMarker(ca, "reissue"));
  const at = (stage: RotationStage): RotationState => ({
    stage,
    oldCA,
    newCA,
    trustDone,
    reissueDone,
  });
  if (isExactly(current, [oldCA])) return at("prepared");
  if (isExactly(current, [oldCA, newCA])) return at("trusted");
  if (isExactly(current, [newCA, oldCA])) return at("signed");
  if (isExactly(current, [newCA])) return at("finished");
  throw new KubeadmError(
    `${
      pki.certPath(ca.baseName)
    } is neither the old CA, the new one nor a bundle of both as a rotation writes them`,
    {
      field: pki.certPath(ca.baseName),
      hint: `compare it with ${pki.certPath(oldCAPath(ca))} and ${
        pki.certPath(newCAPath(ca))
      }; put back the one the cluster uses, then run again`,
    },
  );
}

/** The trust bundle of a stage: the signing CA first. */
export function trustBundle(stage: RotationStage, oldCA: Certificate, newCA: Certificate) {
  switch (stage) {
    case "none":
    case "prepared":
      return [oldCA];
    case "trusted":
      return [oldCA, newCA];
    case "signed":
      return [newCA, oldCA];
    case "finished":
      return [newCA];
  }
}

/**
 * Checks a CA brought with `--ca-cert`/`--ca-key` (or read back from `ca-rotation/`): a CA
 * certificate, its key, not the CA in use. Throws naming the flag.
 */
export async function checkNewCA(
  pair: CertAndKey,
  current: Certificate,
  flags = { cert: "--ca-cert", key: "--ca-key" },
): Promise<void> {
  if (!pair.cert.isCA) {
    throw new KubeadmError("the new CA certificate is not a certificate authority", {
      field: flags.cert,
      hint: "give a certificate with basicConstraints CA:TRUE and keyCertSign",
    });
  }
  if (!(await keyMatchesCertificate(pair.key, pair.cert))) {
    throw new KubeadmError(
      `the key of ${flags.key} does not match the certificate of ${flags.cert}`,
      {
        field: flags.key,
        hint: "give the private key the new CA certificate was made for",
      },
    );
  }
  if (sameCert(pair.cert, current)) {
    throw new KubeadmError("the new CA is the CA the cluster uses now", {
      field: flags.cert,
      hint: "give another CA, or none to have one generated",
    });
  }
}

/** Parses a `--ca-cert`/`--ca-key` pair, naming the flag whose file does not parse. */
export async function parseNewCA(
  certPEM: Uint8Array,
  keyPEM: Uint8Array,
  crypto: CryptoPort,
  paths: { cert: string; key: string },
): Promise<CertAndKey> {
  let cert: Certificate;
  try {
    cert = parseCertificatesPEM(certPEM)[0];
  } catch (e) {
    throw new KubeadmError(`${paths.cert} holds no certificate: ${errorMessage(e)}`, {
      field: "--ca-cert",
      cause: e,
    });
  }
  let key: KeyPair;
  try {
    key = await parsePrivateKeyPEM(utf8(keyPEM), crypto, paths.key);
  } catch (e) {
    throw new KubeadmError(`${paths.key} holds no usable private key: ${errorMessage(e)}`, {
      field: "--ca-key",
      cause: e,
    });
  }
  return { cert, key };
}

/** The CA's certificate file (`ca.crt`, `front-proxy-ca.crt`) as a stage has it. */
export function caBundleFile(
  pki: PkiDirectory,
  ca: RotatedCA,
  bundle: readonly Certificate[],
): PlannedFile {
  return { ...pki.certFile(ca.baseName, [...bundle]), keepExistingMode: true };
}

/** `signer.crt`: the single certificate the controller-manager signs with. */
export function signerFile(pki: PkiDirectory, signer: Certificate): PlannedFile {
  return pki.certFile(SIGNER_CERT, signer);
}

/** Files of the rotation folder holding a CA pair (key first, as kubeadm writes pairs). */
export async function caPairFiles(
  pki: PkiDirectory,
  baseName: string,
  pair: CertAndKey,
): Promise<PlannedFile[]> {
  return [
    await pki.keyFile(baseName, pair.key),
    pki.certFile(baseName, pair.cert),
  ];
}

/**
 * The name of the cluster a kubeconfig's trust is read from and written to: the current
 * context's, else the only one (cluster-info's kubeconfig has a cluster and no context).
 */
function trustedClusterName(config: Kubeconfig): string | undefined {
  const { context } = lookupContext(config);
  if (context) return context.cluster ?? "";
  return config.clusters.length === 1 ? config.clusters[0].name ?? "" : undefined;
}

/** The cluster a kubeconfig's trust is read from and set on (see `trustedClusterName`). */
export function trustedCluster(config: Kubeconfig): KubeconfigCluster | undefined {
  const name = trustedClusterName(config);
  return config.clusters.find((c) => (c.name ?? "") === name)?.cluster;
}

/** The PEM of a kubeconfig's cluster CA (see `trustedClusterName`), or `undefined`. */
export function kubeconfigTrust(config: Kubeconfig): string | undefined {
  const data = trustedCluster(config)?.["certificate-authority-data"];
  return data ? embeddedText(data) : undefined;
}

/**
 * A kubeconfig's text with its cluster's `certificate-authority-data` (the current context's,
 * else the only cluster's) set to `bundle`, or `undefined` when it already holds exactly that.
 * Throws naming `source` when the file names no cluster.
 */
export function kubeconfigWithTrust(
  text: string,
  bundle: readonly Certificate[],
  source: string,
): string | undefined {
  const config = parseKubeconfig(text, source, { clientcmd: true });
  const name = trustedClusterName(config);
  if (name === undefined || !config.clusters.some((c) => (c.name ?? "") === name)) {
    throw new KubeadmError(`${source} names no cluster to set the CA of`, { field: source });
  }
  const pem = encodeCertificatePEM([...bundle]);
  if (kubeconfigTrust(config) === pem) return undefined;
  const next: Kubeconfig = {
    ...config,
    clusters: config.clusters.map((c) =>
      (c.name ?? "") === name
        ? { ...c, cluster: { ...c.cluster, "certificate-authority-data": embedData(pem) } }
        : c
    ),
  };
  return serializeKubeconfig(next, { nullEmptyLists: true });
}

/** The pins of a bundle, as the trust annotation lists them. */
export async function bundlePins(
  bundle: readonly Certificate[],
  crypto: CryptoPort,
): Promise<string[]> {
  return await Promise.all(bundle.map((c) => certificatePin(c, crypto)));
}

/** One step of a rotation, as `--dry-run` prints it and the library returns it. */
export interface RotationStep {
  /** The phase (`kubeadm certs rotate-ca phase <phase>`). */
  phase: string;
  /** Where it runs. */
  on: "first control plane" | "every control plane" | "every node";
  /** What it does. */
  does: string;
}

/** Every step of a rotation of `ca`, in order. */
export function caRotationSteps(ca: RotatedCA = CLUSTER_CA): RotationStep[] {
  if (!ca.clusterWide) return controlPlaneRotationSteps(ca);
  return [
    {
      phase: "prepare",
      on: "first control plane",
      does:
        `generate the new CA (or take --ca-cert/--ca-key) and keep it with the old one in <certificatesDir>/${ca.dir}/ (copy that folder to the other control planes, or give each the same --ca-cert/--ca-key)`,
    },
    {
      phase: "trust",
      on: "every control plane",
      does:
        "make ca.crt, the kubeconfig files and cluster-info trust old and new (old first, it still signs); point the controller-manager's --cluster-signing-cert-file at signer.crt; restart kube-apiserver, kube-controller-manager, kube-scheduler and the kubelet; wait for kube-root-ca.crt to carry both CAs and restart kube-proxy and CoreDNS onto it",
    },
    {
      phase: "node",
      on: "every node",
      does:
        "take the trust cluster-info publishes into kubelet.conf (and ca.crt on workers), restart the kubelet, record it on the Node",
    },
    {
      phase: "reissue",
      on: "every control plane",
      does:
        "once every control plane ran trust and every Node trusts the new CA: sign with the new CA (ca.key, signer.crt, ca.crt new first), re-issue apiserver, apiserver-kubelet-client and every kubeconfig's client certificate with it, restart the control plane in order, publish the new order in cluster-info",
    },
    {
      phase: "node",
      on: "every node",
      does:
        "request a kubelet client certificate from the new signer (the kubelet's own CSR, approved by the cluster's node auto-approval), switch the kubelet to it, record it on the Node",
    },
    {
      phase: "finish",
      on: "every control plane",
      does:
        `once every control plane ran reissue and every kubelet's client certificate is the new CA's: trust only the new CA in ca.crt, the kubeconfig files and cluster-info, put --cluster-signing-cert-file back, restart the control plane; the last control plane sets client-ca-file of extension-apiserver-authentication to the new CA alone (the API server only adds to it); delete the kubeadm-certs Secret (upload the certificates again for later joins), remove ${ca.dir}/ with the old key`,
    },
    {
      phase: "node",
      on: "every node",
      does: "trust only the new CA in kubelet.conf (and ca.crt on workers), restart the kubelet",
    },
  ];
}

/** The steps of a CA only the control plane reads (`front-proxy-ca`, `etcd-ca`): no node takes part. */
function controlPlaneRotationSteps(ca: RotatedCA): RotationStep[] {
  const crt = `${ca.baseName}.crt`;
  const readers = ca.readers.join(" and ");
  const leaves = renewTargets().filter((t) => t.caBaseName === ca.baseName).map((t) => t.name)
    .join(", ");
  const where = ca.published &&
    `kube-system/extension-apiserver-authentication's ${ca.published} (what aggregated API servers verify the API server's proxied requests with)`;
  return [
    {
      phase: "prepare",
      on: "first control plane",
      does:
        `generate the new ${ca.name} (or take --ca-cert/--ca-key) and keep it with the old one in <certificatesDir>/${ca.dir}/ (copy that folder to the other control planes, or give each the same --ca-cert/--ca-key)`,
    },
    {
      phase: "trust",
      on: "every control plane",
      does:
        `make ${crt} trust old and new (old first, it still signs ${leaves}); restart ${readers}${
          where ? `; wait for ${where} to carry both` : ""
        }`,
    },
    {
      phase: "reissue",
      on: "every control plane",
      does:
        `once every control plane ran trust: sign with the new CA (${ca.baseName}.key, ${crt} new first), re-issue ${leaves} with it, restart ${readers}`,
    },
    {
      phase: "finish",
      on: "every control plane",
      does:
        `once every control plane ran reissue: trust only the new CA in ${crt}, restart ${readers}; ${
          where
            ? `the last control plane sets ${ca.published} of extension-apiserver-authentication to the new CA alone (the API server only adds to it); `
            : ""
        }delete the kubeadm-certs Secret (upload the certificates again for later joins), remove ${ca.dir}/ with the old key`,
    },
  ];
}
