/**
 * A control-plane node's PKI in memory: what `kubeadm init phase certs all` and
 * `init phase kubeconfig all` write (ECDSA P-256 keys, for speed), for tests of the day-2
 * certificate commands.
 *
 * @module
 */
import type { ResolvedConfig } from "../../core/config/types.ts";
import { initWorkflow } from "../../core/phases/init/workflow.ts";
import { runWorkflow } from "../../core/workflow/runner.ts";
import { initDataFixture } from "./init_data_fixture.ts";
import { seededRandom } from "./fixed_random.ts";
import type { MemoryFileSystem } from "./memory_fs.ts";

/** Certificates dir of the fixture. */
export const PKI_DIR = "/etc/kubernetes/pki";
/** Kubeconfig dir of the fixture. */
export const KUBECONFIG_DIR = "/etc/kubernetes";
/** When the fixture's files were made. */
export const PKI_CREATED = new Date("2026-01-10T08:00:00Z");

/** Options of {@link pkiFixture}. */
export interface PkiFixtureOptions {
  /** Edits the configuration before the files are made. */
  edit?: (cfg: ResolvedConfig) => void;
  /** Made at this time (default {@link PKI_CREATED}). */
  at?: Date;
}

/** The files and the configuration they were made with. */
export async function pkiFixture(
  opts: PkiFixtureOptions = {},
): Promise<{ files: MemoryFileSystem; cfg: ResolvedConfig }> {
  const f = initDataFixture();
  f.data.cfg.cluster.encryptionAlgorithm = "ECDSA-P256";
  opts.edit?.(f.data.cfg);
  const at = opts.at ?? PKI_CREATED;
  f.data.startTime = at;
  f.data.clock = { now: () => at };
  f.data.random = seededRandom(7);
  await runWorkflow(initWorkflow(), f.data, { only: "certs/all" });
  await runWorkflow(initWorkflow(), f.data, { only: "kubeconfig/all" });
  return { files: f.files, cfg: f.data.cfg };
}
