/**
 * A real containerd v2 for tests: its binaries (built by `scripts/k8s-bins --set containerd`),
 * a config that keeps every path it writes (root, state, temp, sockets, shim sockets, runc
 * state, CNI config, sandbox network namespaces) under directories the caller chooses and that
 * works on these machines (see `shared/reference/real-node-facts.md`), and a launcher.
 *
 * @module
 */
import { binSetDir } from "./k8s_bins.ts";
import { sh } from "./netns.ts";
import { terminate } from "./node_services.ts";

/** The pause image kubeadm v1.37 expects (upstream's `constants.PauseVersion`). */
export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10.2";

/** The directory holding containerd, ctr and containerd-shim-runc-v2. */
export function containerdBinDir(): Promise<string> {
  return binSetDir("containerd", "KUBEADM_TS_CONTAINERD_BIN_DIR", [
    "containerd",
    "ctr",
    "containerd-shim-runc-v2",
  ]);
}

/** Where one containerd keeps its files. All absolute; the node harness uses the node paths. */
export interface ContainerdPaths {
  /** gRPC socket (the CRI endpoint); the ttrpc socket is `<socket>.ttrpc`. */
  socket: string;
  /** Persistent data (`/var/lib/containerd`). */
  root: string;
  /** Runtime state (`/run/containerd`): shim sockets, runc state, sandbox netns mounts. */
  state: string;
  /** CNI network configuration directory (`/etc/cni/net.d`). */
  cniConfDir: string;
  /** `certs.d`-style registry host configuration (`hosts.toml` per registry), if any. */
  registryConfigDir?: string;
}

/** The containerd config (version 4) for these paths. */
export function containerdConfig(paths: ContainerdPaths, pauseImage = PAUSE_IMAGE): string {
  const q = (s: string) => `'${s.replaceAll("'", "")}'`;
  return [
    "version = 4",
    `root = ${q(paths.root)}`,
    `state = ${q(paths.state)}`,
    `temp = ${q(`${paths.state}/tmp`)}`,
    "imports = []",
    "",
    "[plugins.'io.containerd.server.v1.grpc']",
    `  address = ${q(paths.socket)}`,
    "[plugins.'io.containerd.server.v1.ttrpc']",
    `  address = ${q(`${paths.socket}.ttrpc`)}`,
    "[plugins.'io.containerd.shim.v1.manager']",
    `  socket_dir = ${q(`${paths.state}/s`)}`,
    "[plugins.'io.containerd.internal.v1.opt']",
    `  path = ${q(`${paths.root}/opt`)}`,
    // NRI would create /run/nri on the host.
    "[plugins.'io.containerd.nri.v1.nri']",
    "  disable = true",
    "[plugins.'io.containerd.cri.v1.images']",
    "  snapshotter = 'overlayfs'",
    "  [plugins.'io.containerd.cri.v1.images'.pinned_images]",
    `    sandbox = ${q(pauseImage)}`,
    "  [plugins.'io.containerd.cri.v1.images'.registry]",
    `    config_path = ${q(paths.registryConfigDir ?? "")}`,
    "[plugins.'io.containerd.cri.v1.runtime']",
    // Without CAP_SYS_RESOURCE runc cannot lower oom_score_adj below ours (pause asks -998).
    "  restrict_oom_score_adj = true",
    "  netns_mounts_under_state_dir = true",
    "  cdi_spec_dirs = []",
    "  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]",
    "    SystemdCgroup = false",
    `    Root = ${q(`${paths.state}/runc`)}`,
    "  [plugins.'io.containerd.cri.v1.runtime'.cni]",
    "    bin_dirs = ['/usr/lib/cni']",
    `    conf_dir = ${q(paths.cniConfDir)}`,
    "",
  ].join("\n");
}

/** A running containerd. */
export interface Containerd {
  /** `unix://<socket>`. */
  endpoint: string;
  socket: string;
  /** Runs `ctr` against this containerd in the `k8s.io` namespace; rejects on failure. */
  ctr(args: string[]): Promise<string>;
  /** containerd's log so far. */
  log(): Promise<string>;
  /** Stops containerd (SIGTERM, then SIGKILL) and waits for it. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link startContainerd}. */
export interface StartContainerdOptions {
  paths: ContainerdPaths;
  /** Where the config and log are written. */
  dir: string;
  /** Command prefix that places containerd (`ip netns exec NS`, `nsenter …`). */
  prefix?: string[];
  pauseImage?: string;
  /** How long to wait for the socket to answer (default 30 s). */
  readyTimeoutMs?: number;
}

/** Starts containerd and waits until its gRPC socket accepts connections. */
export async function startContainerd(opts: StartContainerdOptions): Promise<Containerd> {
  const bin = await containerdBinDir();
  const { paths, dir } = opts;
  for (const d of [paths.root, paths.state, `${paths.state}/tmp`, paths.cniConfDir]) {
    await Deno.mkdir(d, { recursive: true, mode: 0o700 });
  }
  const config = `${dir}/containerd.toml`;
  await Deno.writeTextFile(config, containerdConfig(paths, opts.pauseImage));
  const logPath = `${dir}/containerd.log`;
  const prefix = opts.prefix ?? [];
  const argv = [...prefix, `${bin}/containerd`, "--config", config];
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    env: { PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/sbin:/usr/bin:/sbin:/bin"}` },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const log = await Deno.open(logPath, { create: true, append: true, write: true });
  const logDone = child.stderr.pipeTo(log.writable).catch(() => {});
  const status = child.status.then(async (s) => {
    await logDone;
    return s.code;
  });
  let exited = false;
  status.then(() => (exited = true));

  const ctr = (args: string[]): Promise<string> =>
    sh([`${bin}/ctr`, "--address", paths.socket, "--namespace", "k8s.io", ...args]);
  let stopped: Promise<void> | undefined;
  const stop = () => stopped ??= terminate({ exited: status, kill: (s) => child.kill(s) }, 10_000);
  const running: Containerd = {
    endpoint: `unix://${paths.socket}`,
    socket: paths.socket,
    ctr,
    log: () => Deno.readTextFile(logPath),
    stop,
  };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  while (true) {
    if (exited) {
      await stop();
      throw new Error(`containerd exited at start:\n${await running.log()}`);
    }
    try {
      const conn = await Deno.connect({ transport: "unix", path: paths.socket });
      conn.close();
      break;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`containerd did not open ${paths.socket}:\n${await running.log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return running;
}

/**
 * Starts containerd inside a network namespace with every path (socket, root, state, CNI
 * configuration) under `dir`; it dies with the test process, whatever happens.
 */
export function startScratchContainerd(
  dir: string,
  ns: { exec: readonly string[] },
  opts: { registryConfigDir?: string } = {},
): Promise<Containerd> {
  return startContainerd({
    dir,
    prefix: ["setpriv", "--pdeathsig", "KILL", "--", ...ns.exec],
    paths: {
      socket: `${dir}/containerd.sock`,
      root: `${dir}/root`,
      state: `${dir}/state`,
      cniConfDir: `${dir}/cni`,
      registryConfigDir: opts.registryConfigDir,
    },
  });
}
