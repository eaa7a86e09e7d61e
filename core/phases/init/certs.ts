/**
 * `kubeadm init phase certs`: the certificates dir line, then each certificate of the tree
 * (`core/certs/tree.ts`) as its own sub-phase.
 *
 * @module
 */
import { KUBECONFIG_SPECS, kubeconfigSpec } from "../../kubeconfig/specs.ts";
import type { KubeconfigFileContext } from "../../kubeconfig/files.ts";
import { keyPoolFor } from "../../pki/key_pool.ts";
import { CERT_SUB_PHASES, certListFor } from "../../certs/certlist.ts";
import {
  certificateDirLine,
  type CertTreeContext,
  checkExistingCerts,
  ensureCert,
  prefetchKeys as prefetchTreeKeys,
} from "../../certs/tree.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

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

/** The kubeconfig files (by name: `admin`, ...) this run's kubeconfig sub-phases create or reuse. */
export function plannedKubeconfigs(data: InitData): string[] {
  return KUBECONFIG_SPECS.map((s) => s.name).filter((name) => !skipped(data, "kubeconfig", name));
}

/**
 * Starts generating, concurrently, every key this run will create: certificates whose files
 * are absent, `sa.key` when absent, and (unless the kubeconfig phase is skipped) the client keys
 * of absent kubeconfig files.
 */
export async function prefetchKeys(data: InitData): Promise<void> {
  await prefetchTreeKeys(certTree(data), {
    certs: plannedCerts(data),
    kubeconfigs: plannedKubeconfigs(data).map((name) => kubeconfigSpec(name).fileName),
    kubeconfigDir: data.kubeconfigDir,
  });
}

/**
 * The `certs` phase's own step: prints `[certs] Using certificateDir folder "<dir>"`, refuses
 * every existing file the run's certs and kubeconfig sub-phases would refuse (before any of
 * them writes), and starts the concurrent key generation for the sub-phases that follow.
 */
export async function runCertsHeader(data: InitData): Promise<void> {
  data.out.info(certificateDirLine(data));
  const generated = await checkExistingCerts(certTree(data), plannedCerts(data));
  const kubeconfigs = plannedKubeconfigs(data);
  // The kubeconfig modules are loaded only when a kubeconfig sub-phase will run: `init phase
  // certs` alone has none to check (and the check of none does nothing).
  if (kubeconfigs.length > 0) {
    const { checkExistingKubeconfigs } = await import("../../kubeconfig/files.ts");
    await checkExistingKubeconfigs(kubeconfigTree(data), kubeconfigs, generated.has("ca"));
  }
  await prefetchKeys(data);
}

/** The kubeconfig files as this run sees them: signed by the tree's `ca`. */
export function kubeconfigTree(data: InitData): KubeconfigFileContext {
  return { ...certTree(data), kubeconfigDir: data.kubeconfigDir };
}

/** Runs one `init phase certs <name>` sub-phase (`ca`, `apiserver`, ..., `sa`). */
export function runCert(data: InitData, name: string): Promise<void> {
  return ensureCert(certTree(data), name);
}

/** What every certificate's command takes. */
const CERT_INPUTS = ["certificatesDir", "config", "dryRun", "kubernetesVersion"] as const;
/** The apiserver certificate (and `all`) also take the inputs of its SANs. */
const APISERVER_CERT_INPUTS = [
  ...CERT_INPUTS,
  "advertiseAddress",
  "certSANs",
  "controlPlaneEndpoint",
  "serviceSubnet",
  "dnsDomain",
] as const;

/** `init phase certs`: one sub-phase per certificate of the tree (`certs/certlist.ts`). */
export const certsPhase: Phase<InitData> = {
  name: "certs",
  short: "Certificate generation",
  run: runCertsHeader,
  phases: [
    {
      name: "all",
      short: "Generate all certificates",
      runAllSiblings: true,
      inputs: APISERVER_CERT_INPUTS,
    },
    ...CERT_SUB_PHASES.map((c): Phase<InitData> => ({
      name: c.name,
      short: c.short,
      long: c.long,
      run: (data) => runCert(data, c.name),
      inputs: c.name === "apiserver" ? APISERVER_CERT_INPUTS : CERT_INPUTS,
    })),
  ],
};
