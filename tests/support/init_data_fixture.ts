/**
 * An {@link InitData} over a {@link MemoryFileSystem} with a {@link RecordingPrinter}, for
 * phase tests.
 *
 * @module
 */
import type { ResolvedConfig } from "../../core/config/types.ts";
import type {
  ClusterAccess,
  HealthProbe,
  HostFacts,
  InitData,
} from "../../core/phases/init/data.ts";
import { systemClock, webRandom } from "../../core/host/ports.ts";
import { initConfigFixture } from "./init_config_fixture.ts";
import { MemoryFileSystem } from "./memory_fs.ts";
import { RecordingPrinter } from "./recording_printer.ts";

/** Options of {@link initDataFixture}. */
export interface InitDataFixtureOptions {
  cfg?: ResolvedConfig;
  files?: MemoryFileSystem;
  patchesDir?: string;
  dryRun?: boolean;
  host?: Partial<HostFacts>;
  /** Health probe (default: everything answers 200). */
  health?: HealthProbe;
  cluster?: ClusterAccess;
}

/** An InitData for `cp-1` on a host named `cp-1` with no CA-trust dirs and no proxy. */
export function initDataFixture(opts: InitDataFixtureOptions = {}): {
  data: InitData;
  out: RecordingPrinter;
  files: MemoryFileSystem;
} {
  const files = opts.files ?? new MemoryFileSystem();
  const out = new RecordingPrinter();
  const data: InitData = {
    cfg: opts.cfg ?? initConfigFixture(),
    files,
    out,
    clock: systemClock,
    random: webRandom,
    startTime: new Date("2025-01-01T00:00:00Z"),
    dryRun: opts.dryRun ?? false,
    kubeconfigDir: "/etc/kubernetes",
    manifestDir: "/etc/kubernetes/manifests",
    patchesDir: opts.patchesDir,
    host: {
      hostname: opts.host?.hostname ?? "cp-1",
      existingDirs: opts.host?.existingDirs ?? new Set(),
      proxyEnv: opts.host?.proxyEnv ?? {},
    },
    sleep: () => Promise.resolve(),
    health: opts.health ?? { get: () => Promise.resolve({ status: 200 }) },
    cluster: opts.cluster,
  };
  return { data, out, files };
}
