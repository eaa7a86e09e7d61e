/**
 * What a `--dry-run` reports about the files it would have written: the list (path, kind,
 * mode, size), the files themselves under a dry-run directory (`$KUBEADM_<CMD>_DRYRUN_DIR`, else
 * a new temp directory) for the user to examine, and the content of the printable ones
 * (manifests, kubelet configuration, env files; never keys or kubeconfigs). Each call reports
 * only what is new since the last one: `init` reports at wait-control-plane (as upstream) and
 * again at the end when a run stops earlier.
 *
 * @module
 */
import type { PlannedFile, PlanningFileSystem } from "../core/ports/files.ts";
import type { Printer } from "../core/ports/printer.ts";
import { toBytes, utf8 } from "../core/text/utf8.ts";
import { HostFileSystem } from "../adapters/deno/files.ts";
import { canWrite, envGet, makeTempDir } from "../adapters/deno/process.ts";

/** Options of {@link DryRunReport}. */
interface DryRunReportOptions {
  /** `init` or `join`: names the directory's environment variable and temp prefix. */
  command: "init" | "join";
  /** Upstream init also says it wrote the files and why it does not print them. */
  announceWrites: boolean;
}

const PRINTABLE_KINDS = new Set(["manifest", "kubelet-config", "env", "service"]);

/** The dry-run report of one run. */
export class DryRunReport {
  readonly #recording: PlanningFileSystem;
  readonly #out: Printer;
  readonly #options: DryRunReportOptions;
  readonly #reported = new Set<PlannedFile>();
  #dir?: Promise<string | undefined>;

  constructor(recording: PlanningFileSystem, out: Printer, options: DryRunReportOptions) {
    this.#recording = recording;
    this.#out = out;
    this.#options = options;
  }

  #directory(): Promise<string | undefined> {
    return this.#dir ??= (async () => {
      const dir = envGet(`KUBEADM_${this.#options.command.toUpperCase()}_DRYRUN_DIR`);
      if (dir) return dir;
      const tmp = envGet("TMPDIR") ?? "/tmp";
      if (!canWrite(tmp)) return undefined;
      return await makeTempDir(tmp, `kubeadm-${this.#options.command}-dryrun`);
    })();
  }

  /** Reports the planned files not reported yet (nothing when there are none). */
  async report(): Promise<void> {
    const planned = this.#recording.planned.filter((f) => !this.#reported.has(f));
    if (planned.length === 0) return;
    const dir = await this.#directory();
    for (const f of planned) this.#reported.add(f);
    const out = this.#out;
    out.info(`[dryrun] ${planned.length} files would be written:`);
    for (const f of planned) {
      out.info(
        `[dryrun] Would write file "${f.path}" (${f.kind}, mode ${
          f.mode.toString(8).padStart(4, "0")
        }, ${toBytes(f.data).length} bytes)`,
      );
    }
    const sensitive =
      "[dryrun] The certificates or kubeconfig files would not be printed due to their sensitive nature";
    if (dir && canWrite(dir)) {
      // Rooted at the directory: a planned path (or a symlink found there) cannot leave it.
      const under = new HostFileSystem(dir);
      for (const f of planned) await under.write(f);
      if (this.#options.announceWrites) {
        // Upstream's order: wrote, not printed, examine.
        out.info(
          `[dryrun] Wrote certificates, kubeconfig files and control plane manifests to the "${dir}" directory`,
        );
        out.info(sensitive);
      }
      out.info(
        `[dryrun] Please examine the "${dir}" directory for details about what would be written`,
      );
    } else {
      out.info("[dryrun] No writable dry-run directory (no write permission); nothing was written");
      if (this.#options.announceWrites) out.info(sensitive);
    }
    for (const f of planned) {
      if (!PRINTABLE_KINDS.has(f.kind)) continue;
      out.info(`[dryrun] Would write file "${f.path}" with content:`);
      for (const line of utf8(toBytes(f.data)).replace(/\n$/, "").split("\n")) {
        out.info(`\t${line}`);
      }
    }
  }
}
