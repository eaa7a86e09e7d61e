/**
 * `kubeadm init phase certs`: the certificates dir line, then each certificate of the tree
 * (`core/certs/tree.ts`) as its own sub-phase.
 *
 * @module
 */
import { KUBECONFIG_SPECS } from "../../kubeconfig/specs.ts";
import { keyPoolFor } from "../../pki/key_pool.ts";
import { certListFor } from "../../certs/certlist.ts";
import {
  certificateDirLine,
  type CertTreeContext,
  checkExistingKeyPairs,
  ensureCert,
  prefetchKeys as prefetchTreeKeys,
} from "../../certs/tree.ts";
import type { InitData } from "./data.ts";

/**
 * The certificate tree as this run sees it: `init` builds the cluster's first PKI, so a refused
 * CA or service-account pair may be removed to have it generated again.
 */
export function certTree(data: InitData): CertTreeContext {
  return { ...data, keys: keyPoolFor(data), recovery: "regenerate" };
}

function skipped(data: InitData, phase: string, sub: string): boolean {
  if (data.willRun && !data.willRun(`${phase}/${sub}`)) return true;
  const skip = data.cfg.init.skipPhases ?? [];
  return skip.includes(phase) || skip.includes(`${phase}/${sub}`);
}

/** The certificates (`sa` included) this run's certs sub-phases create or reuse. */
function plannedCerts(data: InitData): string[] {
  return [...certListFor(data.cfg).map((s) => s.name), "sa"]
    .filter((name) => !skipped(data, "certs", name));
}

/**
 * Starts generating, concurrently, every key this run will create: certificates whose files
 * are absent, `sa.key` when absent, and (unless the kubeconfig phase is skipped) the client keys
 * of absent kubeconfig files.
 */
export async function prefetchKeys(data: InitData): Promise<void> {
  const certs = plannedCerts(data);
  const kubeconfigs = data.cfg.init.skipPhases?.includes("kubeconfig")
    ? []
    : KUBECONFIG_SPECS.filter((s) => !skipped(data, "kubeconfig", s.name)).map((s) => s.fileName);
  await prefetchTreeKeys(certTree(data), {
    certs,
    kubeconfigs,
    kubeconfigDir: data.kubeconfigDir,
  });
}

/**
 * The `certs` phase's own step: prints `[certs] Using certificateDir folder "<dir>"`, refuses
 * existing CA and service-account key pairs that do not match (before any sub-phase writes),
 * and starts the concurrent key generation for the sub-phases that follow.
 */
export async function runCertsHeader(data: InitData): Promise<void> {
  data.out.info(certificateDirLine(data));
  await checkExistingKeyPairs(certTree(data), plannedCerts(data));
  await prefetchKeys(data);
}

/** Runs one `init phase certs <name>` sub-phase (`ca`, `apiserver`, ..., `sa`). */
export function runCert(data: InitData, name: string): Promise<void> {
  return ensureCert(certTree(data), name);
}
