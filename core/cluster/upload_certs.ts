/**
 * Sharing the control-plane CA material through the cluster (upstream `phases/copycerts`):
 * `upload-certs` encrypts the shared certificate and key files with the certificate key into
 * Secret `kube-system/kubeadm-certs`, owned by a fresh 2-hour "proxy" bootstrap token so the
 * garbage collector deletes it when the token expires; `download-certs` (join
 * `--control-plane`) decrypts them back into files.
 *
 * @module
 */
import type { Secret } from "kubernetes-types/core/v1.d.ts";
import type { Role, RoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { generateToken, parseToken, tokenSecretName } from "../bootstraptoken/token.ts";
import type { BootstrapToken, ExternalEtcd } from "../config/types.ts";
import { Identity } from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { FileReader, PlannedFile } from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import type { RandomSource } from "../ports/random.ts";
import type { KubeClient } from "../kube/client.ts";
import { isNotFound } from "../kube/status.ts";
import type { CryptoPort } from "../ports/crypto.ts";
import { decodePem } from "../pki/pem.ts";
import { base64Decode, base64Encode } from "../text/base64.ts";
import { updateOrCreateTokens } from "./bootstrap_token.ts";
import { decryptBytes, encryptBytes, parseCertificateKey } from "./cert_cipher.ts";
import { getOneObjectRole, groupSubject, roleBinding } from "./rbac.ts";

/** The Secret holding the encrypted certificates. */
const KUBEADM_CERTS_SECRET = "kubeadm-certs";
/** Role and RoleBinding that let bootstrap tokens read it. */
const KUBEADM_CERTS_ROLE = "kubeadm:kubeadm-certs";
/** Lifetime of the proxy token (and so of the Secret). */
const CERT_TOKEN_TTL = "2h0m0s";
/** Description of the proxy token. */
const PROXY_TOKEN_DESCRIPTION = "Proxy for managing TTL for the kubeadm-certs secret";

const KUBE_SYSTEM = "kube-system";

/** A shared file: its name (key source) and where it lives on disk. */
export interface SharedCertFile {
  /** `ca.crt`, `etcd/ca.key`, `external-etcd.crt`, ... */
  name: string;
  /** Absolute path (empty for an unset external-etcd file). */
  path: string;
}

function join(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, "")}/${name}`;
}

/**
 * The files shared between control-plane nodes: the CA, front-proxy CA and service-account
 * keys, plus the etcd CA (stacked etcd) or the external etcd client files.
 */
export function sharedCertFiles(
  certificatesDir: string,
  externalEtcd?: ExternalEtcd,
): SharedCertFile[] {
  const files = ["ca.crt", "ca.key", "front-proxy-ca.crt", "front-proxy-ca.key", "sa.pub", "sa.key"]
    .map((name) => ({ name, path: join(certificatesDir, name) }));
  if (!externalEtcd) {
    files.push({ name: "etcd/ca.crt", path: join(certificatesDir, "etcd/ca.crt") });
    files.push({ name: "etcd/ca.key", path: join(certificatesDir, "etcd/ca.key") });
  } else {
    files.push({ name: "external-etcd-ca.crt", path: externalEtcd.caFile ?? "" });
    files.push({ name: "external-etcd.crt", path: externalEtcd.certFile ?? "" });
    files.push({ name: "external-etcd.key", path: externalEtcd.keyFile ?? "" });
  }
  return files;
}

/** The Secret data key of a shared file (`etcd/ca.crt` → `etcd-ca.crt`). */
function secretKeyFor(name: string): string {
  return name.replaceAll("/", "-");
}

/** A new proxy token: 2h TTL, the fixed description, no usages and no groups. */
function proxyToken(random: RandomSource): BootstrapToken {
  return {
    token: generateToken(random),
    description: PROXY_TOKEN_DESCRIPTION,
    ttl: CERT_TOKEN_TTL,
  };
}

/** Secret `kube-system/kubeadm-certs` with the encrypted data, controlled by the token Secret. */
function kubeadmCertsSecret(
  encrypted: Readonly<Record<string, Uint8Array>>,
  owner: { name: string; uid: string },
): Secret {
  const data: Record<string, string> = {};
  for (const key of Object.keys(encrypted).sort()) data[key] = base64Encode(encrypted[key]);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: KUBEADM_CERTS_SECRET,
      namespace: KUBE_SYSTEM,
      ownerReferences: [{
        apiVersion: "v1",
        kind: "Secret",
        name: owner.name,
        uid: owner.uid,
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    data,
  };
}

/** Role `kube-system/kubeadm:kubeadm-certs`: get secret `kubeadm-certs`. */
function kubeadmCertsRole(): Role {
  return getOneObjectRole(KUBE_SYSTEM, KUBEADM_CERTS_ROLE, "secrets", KUBEADM_CERTS_SECRET);
}

/** Its RoleBinding → the default bootstrap-token group. */
function kubeadmCertsRoleBinding(): RoleBinding {
  return roleBinding(KUBE_SYSTEM, KUBEADM_CERTS_ROLE, [
    groupSubject(Identity.bootstrapDefaultGroup),
  ]);
}

/**
 * Reads and encrypts the shared files. A missing file is stored as an empty value (external
 * etcd without TLS, external CA without `ca.key`), as upstream does.
 */
async function encryptSharedFiles(
  files: FileReader,
  shared: readonly SharedCertFile[],
  key: Uint8Array,
  random: RandomSource,
  crypto: CryptoPort,
): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for (const f of shared) {
    const content = f.path ? await files.read(f.path) : undefined;
    out[secretKeyFor(f.name)] = content === undefined
      ? new Uint8Array(0)
      : await encryptBytes(content, key, random, crypto);
  }
  return out;
}

/** Input of {@link uploadCerts}. */
export interface UploadCertsInput {
  /** Reads the files to upload. */
  files: FileReader;
  /** `certificatesDir`, e.g. `/etc/kubernetes/pki`. */
  certificatesDir: string;
  /** `etcd.external`, when the cluster uses external etcd. */
  externalEtcd?: ExternalEtcd;
  /** The certificate key (64 hex characters). Secret. */
  certificateKey: string;
  random: RandomSource;
  /** The cipher's implementation. */
  crypto: CryptoPort;
  /** Reference time for the proxy token's expiration. */
  now: Date;
  /** `--skip-certificate-key-print`. */
  skipCertificateKeyPrint?: boolean;
}

/**
 * The `upload-certs` phase: creates the proxy token, encrypts the shared files into the
 * `kubeadm-certs` Secret owned by it, creates the read RBAC, then prints the key (unless told
 * not to).
 */
export async function uploadCerts(
  client: KubeClient,
  input: UploadCertsInput,
  out: Printer,
): Promise<void> {
  out.info(
    `[upload-certs] Storing the certificates in Secret "${KUBEADM_CERTS_SECRET}" in the "${KUBE_SYSTEM}" Namespace`,
  );
  const key = parseCertificateKey(input.certificateKey);
  const token = proxyToken(input.random);
  try {
    await updateOrCreateTokens(client, [token], input.now, { failIfExists: true });
  } catch (e) {
    throw new KubeadmError(`error creating token: ${errorMessage(e)}`, { cause: e });
  }
  const encrypted = await encryptSharedFiles(
    input.files,
    sharedCertFiles(input.certificatesDir, input.externalEtcd),
    key,
    input.random,
    input.crypto,
  );
  const ownerName = tokenSecretName(parseToken(token.token!).id);
  let owner: Secret;
  try {
    owner = await client.get<Secret>({ kind: "Secret", namespace: KUBE_SYSTEM, name: ownerName });
  } catch (e) {
    throw new KubeadmError(`error to get token reference: ${errorMessage(e)}`, { cause: e });
  }
  await client.createOrUpdate(
    kubeadmCertsSecret(encrypted, { name: ownerName, uid: owner.metadata?.uid ?? "" }),
  );
  await client.createOrUpdate(kubeadmCertsRole());
  await client.createOrUpdate(kubeadmCertsRoleBinding());
  if (!input.skipCertificateKeyPrint) {
    out.info(`[upload-certs] Using certificate key:\n${input.certificateKey}`);
  }
}

/** Decrypts every non-empty entry of the Secret; any failure fails the whole lot. */
async function decryptSecretData(
  secret: Secret,
  key: Uint8Array,
  crypto: CryptoPort,
): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for (const [name, value] of Object.entries(secret.data ?? {})) {
    const bytes = base64Decode(value);
    out[name] = bytes.length > 0 ? await decryptBytes(bytes, key, crypto) : new Uint8Array(0);
  }
  return out;
}

/** How a downloaded entry is written: private keys 0600, certificates and public keys 0644. */
export function plannedFileFor(path: string, data: Uint8Array): PlannedFile {
  const types = decodePem(data).map((b) => b.type);
  if (types.some((t) => t.endsWith("PRIVATE KEY"))) return { path, data, mode: 0o600, kind: "key" };
  if (types.includes("CERTIFICATE")) return { path, data, mode: 0o644, kind: "certificate" };
  if (types.some((t) => t.endsWith("PUBLIC KEY"))) {
    return { path, data, mode: 0o644, kind: "public-key" };
  }
  throw new KubeadmError("unknown data found in Secret entry", { field: path });
}

/** Input of {@link downloadCerts}. */
export interface DownloadCertsInput {
  /** The certificate key (64 hex characters). Secret. */
  certificateKey: string;
  /** Where the files go (`certificatesDir`). */
  certificatesDir: string;
  /** `etcd.external`, when the cluster uses external etcd (files go to its paths). */
  externalEtcd?: ExternalEtcd;
  /** The cipher's implementation. */
  crypto: CryptoPort;
}

/**
 * The `download-certs` step of `join --control-plane`: fetches and decrypts `kubeadm-certs` and
 * returns the files to write (empty entries are skipped). Nothing is returned on any error.
 */
export async function downloadCerts(
  client: KubeClient,
  input: DownloadCertsInput,
  out: Printer,
): Promise<PlannedFile[]> {
  out.info(
    `[download-certs] Downloading the certificates in Secret "${KUBEADM_CERTS_SECRET}" in the "${KUBE_SYSTEM}" Namespace`,
  );
  const key = parseCertificateKey(input.certificateKey);
  let secret: Secret;
  try {
    secret = await client.get<Secret>({
      kind: "Secret",
      namespace: KUBE_SYSTEM,
      name: KUBEADM_CERTS_SECRET,
    });
  } catch (e) {
    if (isNotFound(e)) {
      throw new KubeadmError(
        `error downloading the secret: Secret "${KUBEADM_CERTS_SECRET}" was not found in the "${KUBE_SYSTEM}" Namespace. This Secret might have expired. Please, run \`kubeadm init phase upload-certs --upload-certs\` on a control plane to generate a new one`,
        { cause: e },
      );
    }
    throw new KubeadmError(`error downloading the secret: ${errorMessage(e)}`, { cause: e });
  }
  let data: Record<string, Uint8Array>;
  try {
    data = await decryptSecretData(secret, key, input.crypto);
  } catch (e) {
    throw new KubeadmError(`error decoding secret data with provided key: ${errorMessage(e)}`, {
      cause: e,
      hint: "check that --certificate-key is the key printed by `kubeadm init --upload-certs`",
    });
  }
  const planned: PlannedFile[] = [];
  for (const f of sharedCertFiles(input.certificatesDir, input.externalEtcd)) {
    const content = data[secretKeyFor(f.name)];
    if (content === undefined) {
      throw new KubeadmError(
        `the Secret does not include the required certificate or key - name: ${f.name}, path: ${f.path}`,
      );
    }
    if (content.length === 0) continue;
    planned.push(plannedFileFor(f.path, content));
  }
  return planned;
}
