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
import { fileExists, loadConfigFile, systemdResolvedActive } from "./config_file.ts";
import {
  DISCOVERY_MAX_BODY_BYTES,
  DISCOVERY_REQUEST_TIMEOUT_MS,
  KubeconfigFile,
  KUBELET_RUN_DIR,
  KUBERNETES_DIR,
  MANIFESTS_DIR,
} from "../core/constants.ts";
import { KubeadmError } from "../core/errors.ts";
import { systemClock, webRandom } from "../core/host/ports.ts";
import { RecordingFileSystem } from "../core/host/recording_fs.ts";
import type { ConnectionParams, TransportLimits } from "../core/kube/transport.ts";
import { realSleep } from "../core/kube/transport.ts";
import type { DiscoveryUrlResponse } from "../core/discovery/file.ts";
import type { JoinFlagOverrides } from "../core/config/join.ts";
import type { JoinData, JoinPorts } from "../core/phases/join/data.ts";
import { readTextFileCapped } from "../runtime/fs/capped_read.ts";
import { HostFileSystem, underRoot } from "../runtime/fs/host_fs.ts";
import {
  defaultAdvertiseAddress as advertiseAddressDefault,
  readHostFacts,
} from "../runtime/host/facts.ts";
import { envGet } from "../runtime/host/env.ts";
import { createDenoTransport } from "../runtime/kube/transport.ts";
import { DenoNodeHost } from "../runtime/host/node_host.ts";
import { DryRunReport } from "./dry_run_report.ts";
import { preflightOutput } from "./flags.ts";
import type { CommandDeps, Invocation, WorkflowRun } from "./workflow_command.ts";

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
function hostCaBundle(): string | undefined {
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
export async function fetchDiscoveryUrl(url: string): Promise<DiscoveryUrlResponse> {
  const u = new URL(url);
  const t = createDenoTransport({
    server: `${u.protocol}//${u.host}`,
    caPem: hostCaBundle(),
  }, { timeoutMs: DISCOVERY_REQUEST_TIMEOUT_MS, maxBodyBytes: DISCOVERY_MAX_BODY_BYTES });
  try {
    const res = await t.transport(new Request(url));
    return { status: res.status, body: new Uint8Array(await res.arrayBuffer()) };
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

/** The join configuration's overrides from the flags the user set. */
function joinFlags(inv: Invocation): JoinFlagOverrides {
  const v = inv.values;
  return {
    apiServerEndpoint: inv.argument,
    token: v.token,
    discoveryToken: v["discovery-token"],
    tlsBootstrapToken: v["tls-bootstrap-token"],
    caCertHashes: v["discovery-token-ca-cert-hash"],
    unsafeSkipCAVerification: v["discovery-token-unsafe-skip-ca-verification"],
    discoveryFile: v["discovery-file"],
    nodeName: v["node-name"],
    criSocket: v["cri-socket"],
    controlPlane: v["control-plane"],
    certificateKey: v["certificate-key"],
    advertiseAddress: v["apiserver-advertise-address"],
    bindPort: v["apiserver-bind-port"],
    ignorePreflightErrors: v["ignore-preflight-errors"],
    skipPhases: v["skip-phases"],
    patchesDir: v.patches,
    dryRun: v["dry-run"],
  };
}

/**
 * Resolves flags, the config file and host facts into a join run: the {@link JoinData}, its
 * ports, the dry-run report and upstream's closing message.
 */
export async function prepareJoin(
  inv: Invocation,
  deps: CommandDeps & { ports?: Partial<JoinPorts> },
): Promise<WorkflowRun<JoinData>> {
  const { resolveJoinConfig } = await import("../core/config/join.ts");
  const { createJoinData } = await import("../core/phases/join/data.ts");
  const { parseKubeconfig } = await import("../core/kubeconfig/kubeconfig.ts");
  const { out, rootfs } = inv;
  const configFile = inv.values.config;
  const flags = joinFlags(inv);
  const preflight = preflightOutput(inv.values);
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
  const text = configFile ? await loadConfigFile(configFile) : undefined;
  const facts = readHostFacts(rootfs);
  const adminConf = underRoot(rootfs, `${KUBERNETES_DIR}/${KubeconfigFile.admin}`);
  let discoveryFallbackFile: string | undefined;
  // `join phase` commands without discovery flags use this node's admin.conf, as upstream.
  if (!inv.accepts.includes("discovery-file")) {
    if (!fileExists(adminConf)) {
      throw new KubeadmError(
        `File ${KUBERNETES_DIR}/${KubeconfigFile.admin} does not exists. Please use 'kubeadm join phase control-plane-prepare' subcommands to generate it.`,
      );
    }
    discoveryFallbackFile = adminConf;
  }
  const defaultAdvertiseAddress = advertiseAddressDefault(flags.advertiseAddress) ?? "";
  const { config, warnings } = resolveJoinConfig({
    text,
    source: configFile,
    flags,
    host: {
      hostname: facts.hostname,
      defaultAdvertiseAddress,
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
    tlsBootstrapOverride = parseKubeconfig(await readTextFileCapped(adminConf), adminConf);
  }

  const node = deps.node?.(rootfs) ?? new DenoNodeHost({ root: rootfs });
  const { runJoinNodePreflight } = await import("../core/phases/join/preflight.ts");
  const ports: JoinPorts = {
    transportFor: discoveryTransport,
    clientTransportFor: clientTransport,
    hostFiles: new HostFileSystem("/"),
    fetchUrl: fetchDiscoveryUrl,
    sleep: realSleep,
    preflight: (d) => runJoinNodePreflight(d, node.machine),
    ...deps.ports,
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
    node,
    ports,
    preflightOutput: preflight,
    tlsBootstrapOverride,
  });
  const report = recording
    ? new DryRunReport(recording, out, { command: "join", announceWrites: false })
    : undefined;
  return {
    data,
    skipPhases: config.skipPhases,
    finish: async () => {
      await report?.report();
      if (inv.only) return;
      const { joinControlPlaneDoneMessage, joinWorkerDoneMessage } = await import(
        "../core/phases/join/messages.ts"
      );
      if (config.controlPlane) {
        const cfg = await data.initCfg();
        out.info(joinControlPlaneDoneMessage(cfg.cluster.etcd.external === undefined));
      } else {
        out.info(joinWorkerDoneMessage());
      }
    },
  };
}
