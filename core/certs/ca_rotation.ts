/**
 * Rotating the cluster CA (`kubeadm certs rotate-ca`, beyond upstream, whose documentation
 * describes it as a manual procedure, node by node: "Manual Rotation of CA Certificates"). The
 * rotation goes through stages, each a phase of `core/phases/rotate_ca/`, each read back from
 * the files it wrote so that a killed run resumes where it stopped:
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
 * Only the cluster CA (`ca`) rotates today; `front-proxy-ca` and `etcd-ca` are refused by name.
 *
 * @module
 */
import type { CryptoPort } from "../ports/crypto.ts";
import type { PlannedFile } from "../ports/files.ts";
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

/** The CAs `certs rotate-ca --ca` names, and whether this version rotates them. */
export const ROTATABLE_CAS = { "ca": true, "front-proxy-ca": false, "etcd-ca": false } as const;

/** The folder of `certificatesDir` a rotation keeps its CAs in while it runs. */
export const ROTATION_DIR = "ca-rotation";
/** The old CA's certificate and key, kept until `finish`. */
export const OLD_CA = `${ROTATION_DIR}/old-ca`;
/** The new CA's certificate and key. */
export const NEW_CA = `${ROTATION_DIR}/new-ca`;
/** The one certificate the controller-manager signs with while `ca.crt` is a bundle (`.crt`). */
export const SIGNER_CERT = `${ROTATION_DIR}/signer`;
/**
 * The file a phase writes when it completed (its stage's files alone cannot say whether every
 * reader was restarted): `ca-rotation/<phase>.done`.
 */
export function doneMarker(phase: "trust" | "reissue"): string {
  return `${ROTATION_DIR}/${phase}.done`;
}

/** The {@link doneMarker} file of a phase, to write when it completed. */
export function doneMarkerFile(pki: PkiDirectory, phase: "trust" | "reissue"): PlannedFile {
  return { path: pki.path(doneMarker(phase)), data: "", mode: KEY_FILE_MODE, kind: "other" };
}

/** The Node annotation listing the CA pins a node's kubelet trusts (comma-separated). */
export const TRUST_ANNOTATION = "kubeadm.kubernetes.io/ca-rotation-trust";
/**
 * The Node annotation of a control plane naming the last rotate-ca phase it completed and the
 * new CA's pin (`trust:sha256:…`, `reissue:sha256:…`): `reissue` waits for every control plane's
 * `trust`, `finish` for every one's `reissue`.
 */
export const CONTROL_PLANE_ANNOTATION = "kubeadm.kubernetes.io/ca-rotation-control-plane";
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

/** Refuses a `--ca` this version does not rotate, before anything is read. */
export function checkRotatableCA(name: string): void {
  if (!(name in ROTATABLE_CAS)) {
    throw new KubeadmError(`--ca: unknown certificate authority "${name}"`, {
      field: "--ca",
      value: name,
      hint: `valid values: ${Object.keys(ROTATABLE_CAS).join(", ")}`,
    });
  }
  if (!ROTATABLE_CAS[name as keyof typeof ROTATABLE_CAS]) {
    throw new KubeadmError(
      `--ca: rotating the ${name} certificate authority is not supported yet`,
      {
        field: "--ca",
        value: name,
        hint: 'only the cluster CA ("ca") rotates in this version',
      },
    );
  }
}

function sameCert(a: Certificate, b: Certificate): boolean {
  return a.der.length === b.der.length && a.der.every((v, i) => v === b.der[i]);
}

/** Whether `certs` is exactly `expected`, in order. */
function isExactly(certs: readonly Certificate[], expected: readonly Certificate[]): boolean {
  return certs.length === expected.length && certs.every((c, i) => sameCert(c, expected[i]));
}

/**
 * Reads the rotation's stage from the certificates directory (see the module documentation).
 * Throws, naming `ca.crt`, when it matches no stage (edited by hand, or another tool's).
 */
export async function rotationState(pki: PkiDirectory): Promise<RotationState> {
  const current = await pki.readCerts("ca");
  if (!(await pki.hasCert(NEW_CA))) {
    return { stage: "none", oldCA: current[0], trustDone: false, reissueDone: false };
  }
  const oldCA = await pki.loadCert(OLD_CA);
  const newCA = await pki.loadCert(NEW_CA);
  const trustDone = await pki.has(doneMarker("trust"));
  const reissueDone = await pki.has(doneMarker("reissue"));
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
      pki.certPath("ca")
    } is neither the old CA, the new one nor a bundle of both as a rotation writes them`,
    {
      field: pki.certPath("ca"),
      hint: `compare it with ${pki.certPath(OLD_CA)} and ${
        pki.certPath(NEW_CA)
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

/** `ca.crt` as a stage has it. */
export function caBundleFile(pki: PkiDirectory, bundle: readonly Certificate[]): PlannedFile {
  return { ...pki.certFile("ca", [...bundle]), keepExistingMode: true };
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

/** Every step of a rotation of the cluster CA, in order. */
export function caRotationSteps(): RotationStep[] {
  return [
    {
      phase: "prepare",
      on: "first control plane",
      does:
        `generate the new CA (or take --ca-cert/--ca-key) and keep it with the old one in <certificatesDir>/${ROTATION_DIR}/ (copy that folder to the other control planes, or give each the same --ca-cert/--ca-key)`,
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
        `once every control plane ran reissue and every kubelet's client certificate is the new CA's: trust only the new CA in ca.crt, the kubeconfig files and cluster-info, put --cluster-signing-cert-file back, restart the control plane, delete the kubeadm-certs Secret (upload the certificates again for later joins), remove ${ROTATION_DIR}/ with the old key`,
    },
    {
      phase: "node",
      on: "every node",
      does: "trust only the new CA in kubelet.conf (and ca.crt on workers), restart the kubelet",
    },
  ];
}
