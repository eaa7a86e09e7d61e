/**
 * External-CA mode detection (upstream `UsingExternalCA`, `UsingExternalFrontProxyCA`,
 * `UsingExternalEtcdCA`): a CA whose certificate is present but whose key is not. In that mode
 * kubeadm cannot sign anything with that CA, so every certificate it would sign must already
 * exist, with its key, and verify against the CA.
 *
 * @module
 */
import type { FileReader } from "../host/ports.ts";
import { errorMessage, ExistingFileError } from "../errors.ts";
import { type Certificate, verifyCertChain } from "../pki/cert.ts";
import { keyPath } from "./certlist.ts";
import { fileExists, loadCert, loadCertChain, loadKey } from "./pki_files.ts";

/** One certificate that must exist when its CA is external. */
interface SignedCertCheck {
  baseName: string;
  /** Name used in messages, as upstream words it ("API server"). */
  uxName: string;
}

/**
 * Checks that `<base>.key` loads and `<base>.crt` verifies against the CA (upstream
 * `validateSignedCertWithCA`); throws an {@link ExistingFileError} naming the problem.
 */
export async function validateSignedCertWithCA(
  files: FileReader,
  certDir: string,
  check: SignedCertCheck,
  ca: Certificate,
  now: Date,
): Promise<void> {
  try {
    await loadKey(files, certDir, check.baseName);
  } catch (e) {
    throw new ExistingFileError(`failure loading key for ${check.baseName}: ${errorMessage(e)}`, {
      field: keyPath(certDir, check.baseName),
      cause: e,
    });
  }
  let chain;
  try {
    chain = await loadCertChain(files, certDir, check.baseName);
  } catch (e) {
    throw new ExistingFileError(
      `failure loading certificate for ${check.uxName}: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  try {
    await verifyCertChain(chain.cert, chain.intermediates, ca, now);
  } catch (e) {
    throw new ExistingFileError(
      `certificate ${check.uxName} is not signed by corresponding CA: ${errorMessage(e)}`,
      {
        field: chain.path,
        cause: e,
      },
    );
  }
}

async function usingExternal(
  files: FileReader,
  certDir: string,
  caBaseName: string,
  caUxName: string,
  leaves: SignedCertCheck[],
  now: Date,
): Promise<boolean> {
  let ca: Certificate;
  try {
    ca = await loadCert(files, certDir, caBaseName);
  } catch {
    return false;
  }
  if (!ca.isCA) {
    throw new ExistingFileError(`certificate ${caUxName} is not a CA`, {
      field: `${certDir}/${caBaseName}.crt`,
    });
  }
  if (await fileExists(files, keyPath(certDir, caBaseName))) return false;
  for (const leaf of leaves) await validateSignedCertWithCA(files, certDir, leaf, ca, now);
  return true;
}

/** True when `ca.crt` exists without `ca.key`; then apiserver and kubelet-client certs must verify. */
export function usingExternalCA(files: FileReader, certDir: string, now: Date): Promise<boolean> {
  return usingExternal(files, certDir, "ca", "CA", [
    { baseName: "apiserver", uxName: "API server" },
    { baseName: "apiserver-kubelet-client", uxName: "API server kubelet client" },
  ], now);
}

/** True when `front-proxy-ca.crt` exists without its key; then front-proxy-client must verify. */
export function usingExternalFrontProxyCA(
  files: FileReader,
  certDir: string,
  now: Date,
): Promise<boolean> {
  return usingExternal(files, certDir, "front-proxy-ca", "front-proxy CA", [
    { baseName: "front-proxy-client", uxName: "front-proxy client" },
  ], now);
}

/** True when `etcd/ca.crt` exists without its key; then every etcd-signed cert must verify. */
export function usingExternalEtcdCA(
  files: FileReader,
  certDir: string,
  now: Date,
): Promise<boolean> {
  return usingExternal(files, certDir, "etcd/ca", "etcd CA", [
    { baseName: "apiserver-etcd-client", uxName: "apiserver etcd client" },
    { baseName: "etcd/server", uxName: "etcd server" },
    { baseName: "etcd/peer", uxName: "etcd peer" },
    { baseName: "etcd/healthcheck-client", uxName: "etcd health-check client" },
  ], now);
}
