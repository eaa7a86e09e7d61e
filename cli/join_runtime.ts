/**
 * Assembles a `kubeadm join` run on this host: reads the config file, detects host facts,
 * resolves the JoinConfiguration, picks the file system (real, under `--rootfs`, or a dry-run
 * recording), and supplies the join phases' ports: discovery and API client transports from
 * the runtime's one factory (anonymous discovery; insecure for the first token-discovery fetch,
 * otherwise verifying against exactly the given CA), HTTPS discovery URLs verified against the
 * host's CA bundle file, the
 * kubelet service through systemd, health probes, the etcd gateway client and the preflight
 * checks.
 *
 * @module
 */
import { fileExists, readConfigFile, systemdResolvedActive } from "./config_file.ts";
import {
  DISCOVERY_MAX_BODY_BYTES,
  DISCOVERY_REQUEST_TIMEOUT_MS,
  KubeconfigFile,
  KUBELET_RUN_DIR,
  KUBERNETES_DIR,
  MANIFESTS_DIR,
} from "../core/constants.ts";
import { KubeadmError } from "../core/errors.ts";
import type { Printer } from "../core/host/ports.ts";
import { systemClock, toBytes, utf8, webRandom } from "../core/host/ports.ts";
import { RecordingFileSystem } from "../core/host/recording_fs.ts";
import type { ConnectionParams, TransportLimits } from "../core/kube/transport.ts";
import { realSleep } from "../core/kube/transport.ts";
import type { JoinFlagOverrides } from "../core/config/join.ts";
import type { JoinData, JoinHost } from "../core/phases/join/data.ts";
import type { PreflightHost } from "../core/preflight/host.ts";
import { HostFileSystem, underRoot } from "../runtime/fs/host_fs.ts";
import { detectDefaultAddress, readHostFacts } from "../runtime/host/facts.ts";
import { canWrite, envGet } from "../runtime/host/env.ts";
import { createDenoTransport } from "../runtime/kube/transport.ts";
import { EtcdGatewayClient } from "../runtime/etcd/client.ts";

/** A prepared join run. */
export interface JoinContext {
  data: JoinData;
  host: HostFileSystem;
  /** Set in dry-run: the planned writes. */
  recording?: RecordingFileSystem;
}

/** Options of {@link prepareJoin} that depend on the command. */
export interface PrepareJoinOptions {
  /** Names of the flags the user set (for the `--config` mixing check). */
  setFlags: string[];
  /**
   * False for `join phase` commands without discovery flags: they use this node's admin.conf
   * as file discovery, as upstream does.
   */
  hasDiscoveryFlags: boolean;
  /** `join phase preflight -o` (default text). */
  preflightOutput?: "text" | "json";
  /** The machine the preflight checks inspect (default: the Deno host under `--rootfs`). */
  preflightHost?: (rootfs: string) => PreflightHost;
  /** Replaces some of the ports (tests: discovery transports). */
  ports?: Partial<JoinHost>;
}

/** Go's system CA bundle locations (crypto/x509 root_linux.go), `SSL_CERT_FILE` first. */
const CA_BUNDLE_FILES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/pki/tls/cacert.pem",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

/** The host's trust store as PEM (`SSL_CERT_FILE`, else the first standard bundle). */
export function hostCaBundle(): string | undefined {
  const override = envGet("SSL_CERT_FILE");
  for (const path of override ? [override] : CA_BUNDLE_FILES) {
    try {
      return Deno.readTextFileSync(path);
    } catch {
      // next
    }
  }
  return undefined;
}

/**
 * GETs an https:// discovery URL, verified against the host's CA bundle file (the one place a
 * public CA is meant to be trusted, as upstream's `discovery/https`); returns the body.
 */
export async function fetchDiscoveryUrl(url: string): Promise<Uint8Array> {
  const u = new URL(url);
  const t = createDenoTransport({
    server: `${u.protocol}//${u.host}`,
    caPem: hostCaBundle(),
  }, { timeoutMs: DISCOVERY_REQUEST_TIMEOUT_MS, maxBodyBytes: DISCOVERY_MAX_BODY_BYTES });
  try {
    const res = await t.transport(new Request(url));
    return new Uint8Array(await res.arrayBuffer());
  } finally {
    t.close();
  }
}

/**
 * Discovery transports: the CA given is the only trusted root; discovery passes its own
 * deadline and body cap per attempt.
 */
export function discoveryTransport(params: ConnectionParams, limits: TransportLimits = {}) {
  return createDenoTransport(params, {
    timeoutMs: DISCOVERY_REQUEST_TIMEOUT_MS,
    maxBodyBytes: DISCOVERY_MAX_BODY_BYTES,
    ...limits,
  }).transport;
}

/** API client transports: the kubeconfig's CA is the only trusted root; pooled connections. */
export function clientTransport(params: ConnectionParams, limits: TransportLimits = {}) {
  return createDenoTransport(params, limits).transport;
}

async function httpStatus(
  url: string,
  options: { insecure?: boolean; timeoutMs: number },
): Promise<number> {
  const { createHealthProbe } = await import("../runtime/kube/health.ts");
  const r = await createHealthProbe().get(url, {
    insecureSkipTLSVerify: options.insecure ?? false,
    timeoutMs: options.timeoutMs,
  });
  if ("error" in r) throw new Error(r.error);
  return r.status;
}

/** Resolves flags + config file + host facts into {@link JoinData}. */
export async function prepareJoin(
  flags: JoinFlagOverrides & { config?: string; rootfs?: string },
  options: PrepareJoinOptions,
  out: Printer,
): Promise<JoinContext> {
  const { resolveJoinConfig } = await import("../core/config/join.ts");
  const { validateMixedArguments } = await import("../core/config/mixed_flags.ts");
  const { createJoinData } = await import("../core/phases/join/data.ts");
  const { parseKubeconfig } = await import("../core/kubeconfig/kubeconfig.ts");
  if (flags.config) validateMixedArguments(options.setFlags);
  if (Deno.permissions.querySync({ name: "net" }).state !== "granted") {
    // Discovery and every later step talk to the API server (a dry run only reads).
    throw new KubeadmError(
      "kubeadm join needs network access to reach the API server, but this process may not use the network",
      {
        hint:
          "run Deno with --allow-net (the scripts/kubeadm launcher must grant it to join, also with --dry-run)",
      },
    );
  }
  const rootfs = flags.rootfs ?? "/";
  const text = flags.config ? await readConfigFile(flags.config) : undefined;
  const facts = readHostFacts(rootfs);
  const adminConf = underRoot(rootfs, `${KUBERNETES_DIR}/${KubeconfigFile.admin}`);
  let discoveryFallbackFile: string | undefined;
  if (!options.hasDiscoveryFlags) {
    if (!fileExists(adminConf)) {
      throw new KubeadmError(
        `File ${KUBERNETES_DIR}/${KubeconfigFile.admin} does not exists. Please use 'kubeadm join phase control-plane-prepare' subcommands to generate it.`,
      );
    }
    discoveryFallbackFile = adminConf;
  }
  const defaultAdvertiseAddress = flags.advertiseAddress ?? detectDefaultAddress() ?? "";
  const { config, warnings } = resolveJoinConfig({
    text,
    source: flags.config,
    flags,
    host: {
      hostname: facts.hostname,
      defaultAdvertiseAddress,
      systemdResolvedActive: systemdResolvedActive(),
    },
    fileExists,
    discoveryFallbackFile,
  });
  for (const w of warnings) out.warn(w);

  const host = new HostFileSystem(rootfs);
  const dryRun = flags.dryRun ?? config.dryRun ?? false;
  const recording = dryRun ? new RecordingFileSystem(host) : undefined;
  const files = recording ?? host;

  // Upstream: an existing admin.conf on a control-plane node replaces discovery.
  let tlsBootstrapOverride;
  if (config.controlPlane && fileExists(adminConf)) {
    tlsBootstrapOverride = parseKubeconfig(await Deno.readTextFile(adminConf), adminConf);
  }

  const { createKubeletService } = await import("../runtime/host/kubelet_service.ts");
  const service = createKubeletService({ out, rootfs: flags.rootfs });
  const ports: JoinHost = {
    transportFor: discoveryTransport,
    clientTransportFor: clientTransport,
    hostFiles: new HostFileSystem("/"),
    fetchUrl: fetchDiscoveryUrl,
    sleep: realSleep,
    async preflight(d) {
      const { runJoinPreflight } = await import("../core/preflight/join.ts");
      const host = options.preflightHost?.(rootfs) ??
        new (await import("../runtime/host/preflight_host.ts")).DenoPreflightHost({
          root: rootfs,
        });
      await runJoinPreflight(
        {
          nodeName: d.cfg.nodeRegistration.name,
          criSocket: d.cfg.nodeRegistration.criSocket,
          caCertPath: d.cfg.caCertPath,
          controlPlane: d.cfg.controlPlane !== undefined,
          discoveryEndpoint: d.cfg.discovery.bootstrapToken?.apiServerEndpoint,
          ignorePreflightErrors: [],
          certificateKey: d.cfg.controlPlane?.certificateKey,
          dryRun: d.dryRun,
        },
        host,
        {
          ignore: d.cfg.nodeRegistration.ignorePreflightErrors,
          out: d.out,
          output: d.preflightOutput,
          controlPlaneConfig: () => d.initCfg(),
        },
      );
    },
    stopKubelet: () => service.stop(),
    startKubelet: () => service.restart(),
    httpStatus,
    async removeFile(path) {
      if (dryRun) return;
      await host.remove(path);
    },
    async ensureDir(path, mode) {
      if (dryRun) return;
      await host.ensureDir(path, mode);
    },
    etcd: (tls) => (endpoints) => new EtcdGatewayClient(endpoints, tls),
    ...options.ports,
  };
  const data = createJoinData({
    cfg: config,
    files,
    out,
    clock: systemClock,
    sleep: realSleep,
    random: webRandom,
    startTime: new Date(),
    dryRun,
    kubeconfigDir: KUBERNETES_DIR,
    manifestDir: MANIFESTS_DIR,
    kubeletDir: KUBELET_RUN_DIR,
    patchesDir: flags.patchesDir ?? config.patches?.directory,
    host: {
      ...facts,
      defaultAdvertiseAddress,
      systemdResolvedActive: systemdResolvedActive(),
    },
    ports,
    preflightOutput: options.preflightOutput,
    tlsBootstrapOverride,
  });
  return { data, host, recording };
}

const PRINTABLE_KINDS = new Set(["manifest", "kubelet-config", "env"]);

/** After the workflow: in dry-run, report the plan and write it under the dry-run directory. */
export async function finishJoin(ctx: JoinContext, out: Printer): Promise<void> {
  if (!ctx.recording) return;
  const planned = ctx.recording.planned;
  let dir = envGet("KUBEADM_JOIN_DRYRUN_DIR");
  if (!dir) {
    const tmp = envGet("TMPDIR") ?? "/tmp";
    if (canWrite(tmp)) dir = await Deno.makeTempDir({ dir: tmp, prefix: "kubeadm-join-dryrun" });
  }
  out.info(`[dryrun] ${planned.length} files would be written:`);
  for (const f of planned) {
    out.info(
      `[dryrun] Would write file "${f.path}" (${f.kind}, mode ${
        f.mode.toString(8).padStart(4, "0")
      }, ${toBytes(f.data).length} bytes)`,
    );
  }
  if (dir && canWrite(dir)) {
    const under = new HostFileSystem(dir);
    for (const f of planned) await under.write(f);
    out.info(
      `[dryrun] Please examine the "${dir}" directory for details about what would be written`,
    );
  } else {
    out.info("[dryrun] No writable dry-run directory (no write permission); nothing was written");
  }
  for (const f of planned) {
    if (!PRINTABLE_KINDS.has(f.kind)) continue;
    out.info(`[dryrun] Would write file "${f.path}" with content:`);
    for (const line of utf8(toBytes(f.data)).replace(/\n$/, "").split("\n")) out.info(`\t${line}`);
  }
}
