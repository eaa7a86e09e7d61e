/**
 * An {@link InitData} over a {@link MemoryFileSystem} with a {@link RecordingPrinter}, for
 * phase tests.
 *
 * @module
 */
import { webCryptoPort } from "../../adapters/crypto/webcrypto.ts";
import type { ResolvedConfig } from "../../core/config/types.ts";
import type { ClusterAccess, HostFacts, InitData } from "../../core/phases/init/data.ts";
import type { HealthProbe } from "../../core/ports/http.ts";
import type { FakeMachine } from "./fake_machine.ts";
import { FakeNodeHost } from "./fake_node_host.ts";
import { systemClock } from "../../adapters/web/clock.ts";
import { webRandom } from "../../adapters/web/random.ts";
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
  /** Health probe of the node (a node is given when this or `machine` is). */
  health?: HealthProbe;
  /** The node's machine (a node is given when this or `health` is). */
  machine?: FakeMachine;
  cluster?: ClusterAccess;
}

/**
 * An InitData for `cp-1` on a host named `cp-1` with no CA-trust dirs and no proxy; with a
 * fake node when a health probe or a machine is given.
 */
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
    crypto: webCryptoPort,
    startTime: new Date("2025-01-01T00:00:00Z"),
    dryRun: opts.dryRun ?? false,
    kubeconfigDir: "/etc/kubernetes",
    manifestDir: "/etc/kubernetes/manifests",
    patchesDir: opts.patchesDir,
    host: {
      hostname: opts.host?.hostname ?? "cp-1",
      existingDirs: opts.host?.existingDirs ?? new Set(),
      proxyEnv: opts.host?.proxyEnv ?? {},
      systemdResolvedActive: opts.host?.systemdResolvedActive,
    },
    sleep: () => Promise.resolve(),
    node: opts.health || opts.machine ? fakeNode(opts.health, opts.machine) : undefined,
    cluster: opts.cluster,
  };
  return { data, out, files };
}

function fakeNode(health: HealthProbe | undefined, machine: FakeMachine | undefined) {
  const node = new FakeNodeHost(machine);
  if (health) node.health = health;
  return node;
}
