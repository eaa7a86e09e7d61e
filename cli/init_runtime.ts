/**
 * Assembles an init run on this host: reads the config file, detects host facts, resolves the
 * configuration, chooses the file system (real, under `--rootfs`, or a dry-run recording) and
 * plugs in the node (`adapters/deno/node.ts`) and the admin connection over
 * `<rootfs>/etc/kubernetes/admin.conf` (the Deno mTLS transport, or the recording dry-run
 * transport).
 *
 * @module
 */
import { loadConfigFile, systemdResolvedActive } from "./config_file.ts";
import { DefaultTimeouts, KUBERNETES_DIR, MANIFESTS_DIR } from "../core/constants.ts";
import { realSleep, systemClock } from "../adapters/web/clock.ts";
import { webRandom } from "../adapters/web/random.ts";
import { webCryptoPort } from "../adapters/crypto/webcrypto.ts";
import type { ClusterAccessOptions } from "../core/phases/init/cluster_access.ts";
import { adminKubeconfigPath } from "../core/kubeconfig/specs.ts";
import type { TransportFactory } from "../core/ports/transport.ts";
import type { ClusterAccess, InitData } from "../core/phases/init/data.ts";
import { parseDuration } from "../core/text/duration.ts";
import { HostFileSystem } from "../adapters/deno/files.ts";
import { defaultAdvertiseAddress, readHostFacts } from "../adapters/deno/host/facts.ts";
import type { CommandDeps, Invocation, WorkflowRun } from "./workflow_command.ts";
import { preflightOutput } from "./flags.ts";
import { DenoNodeHost } from "../adapters/deno/node.ts";
import { deferred } from "../adapters/deno/host/deferred.ts";

// The network stack (node:https for self-signed health endpoints, fetch clients) costs tens of
// milliseconds to load: only phases that talk to the cluster pay for it.

function lazyDenoTransports(): { transportFor: TransportFactory; close(): void } {
  const made: Promise<{ close(): void }>[] = [];
  return {
    transportFor(params, limits) {
      const t = import("../adapters/deno/transport.ts").then((m) =>
        m.createDenoTransport(params, limits)
      );
      made.push(t);
      return async (request, perRequest) => (await t).transport(request, perRequest);
    },
    close: () => {
      for (const t of made.splice(0)) void t.then((x) => x.close());
    },
  };
}

/**
 * The admin connection ({@link ClusterAccessOptions}), its client stack (kubeconfig parsing,
 * the API client, the RBAC bootstrap) loaded on first use: offline phases never load it.
 */
function lazyClusterAccess(o: ClusterAccessOptions): ClusterAccess {
  return deferred(
    () => import("../core/phases/init/cluster_access.ts").then((m) => m.createClusterAccess(o)),
    { kubeconfig: true, client: true },
    { kubeconfigPath: adminKubeconfigPath(o.kubeconfigDir, o.kubeconfigPath) },
  );
}

/**
 * Resolves flags, the config file and host facts into an init run: the {@link InitData} and
 * its ports (the node, the admin connection, the dry-run report).
 */
export async function prepareInit(
  inv: Invocation,
  deps: CommandDeps,
): Promise<WorkflowRun<InitData>> {
  const { values: flags, out, rootfs } = inv;
  const preflight = preflightOutput(flags);
  const { resolveInitConfig } = await import("../core/config/resolve.ts");
  const text = flags.config ? await loadConfigFile(flags.config) : undefined;
  const facts = readHostFacts(rootfs);
  const { config, warnings } = resolveInitConfig({
    text,
    source: flags.config,
    flags: {
      advertiseAddress: flags["apiserver-advertise-address"],
      bindPort: flags["apiserver-bind-port"],
      certSANs: flags["apiserver-cert-extra-sans"],
      certificatesDir: flags["cert-dir"],
      certificateKey: flags["certificate-key"],
      controlPlaneEndpoint: flags["control-plane-endpoint"],
      criSocket: flags["cri-socket"],
      featureGates: flags["feature-gates"],
      imageRepository: flags["image-repository"],
      kubernetesVersion: flags["kubernetes-version"],
      nodeName: flags["node-name"],
      patchesDir: flags.patches,
      podSubnet: flags["pod-network-cidr"],
      serviceSubnet: flags["service-cidr"],
      dnsDomain: flags["service-dns-domain"],
      skipPhases: flags["skip-phases"],
      token: flags.token,
      tokenTTL: flags["token-ttl"],
      dryRun: flags["dry-run"],
      ignorePreflightErrors: flags["ignore-preflight-errors"],
      uploadCerts: flags["upload-certs"],
    },
    host: {
      hostname: facts.hostname,
      defaultAdvertiseAddress: defaultAdvertiseAddress(flags["apiserver-advertise-address"]) ?? "",
    },
    random: webRandom,
    log: out.log,
  });
  for (const w of warnings) out.warn(w);
  const host = new HostFileSystem(rootfs);
  const dryRun = flags["dry-run"] ?? config.init.dryRun ?? false;
  let recording: import("../adapters/offline/files.ts").RecordingFileSystem | undefined;
  let report: import("./dry_run_report.ts").DryRunReport | undefined;
  let transports: { transportFor: TransportFactory; close(): void };
  if (dryRun) {
    const [{ RecordingFileSystem }, { DryRunReport }, { createDryRunTransport }] = await Promise
      .all([
        import("../adapters/offline/files.ts"),
        import("./dry_run_report.ts"),
        import("../adapters/offline/transport.ts"),
      ]);
    recording = new RecordingFileSystem(host);
    report = new DryRunReport(recording, out, { command: "init", announceWrites: true });
    // One recording transport for the whole run: later GETs see earlier "created" objects.
    const dry = createDryRunTransport({ out });
    transports = { transportFor: () => dry.transport, close: () => {} };
  } else {
    transports = lazyDenoTransports();
  }
  const files = recording ?? host;
  const data: InitData = {
    cfg: config,
    files,
    out,
    clock: systemClock,
    random: webRandom,
    crypto: webCryptoPort,
    startTime: new Date(),
    dryRun,
    kubeconfigDir: flags["kubeconfig-dir"] ?? KUBERNETES_DIR,
    manifestDir: MANIFESTS_DIR,
    patchesDir: flags.patches ?? config.init.patches?.directory,
    host: { ...facts, systemdResolvedActive: systemdResolvedActive() },
    sleep: realSleep,
    node: deps.node?.(rootfs) ?? new DenoNodeHost({ root: rootfs }),
    cluster: lazyClusterAccess({
      files,
      kubeconfigDir: KUBERNETES_DIR,
      kubeconfigPath: flags.kubeconfig,
      transportFor: transports.transportFor,
      bootstrapClusterAdmins: !dryRun,
      clock: systemClock,
      sleep: realSleep,
      apiCallTimeoutMs: apiCallTimeout(config.init.timeouts.kubernetesAPICall),
      localAPIEndpoint: config.init.localAPIEndpoint,
    }),
    preflightOutput: preflight,
    printManifest: flags["print-manifest"] ?? false,
    skipTokenPrint: flags["skip-token-print"] ?? false,
    skipCertificateKeyPrint: flags["skip-certificate-key-print"] ?? false,
    reportDryRunFiles: report && (() => report.report()),
  };
  if (!inv.only) out.info(`[init] Using Kubernetes version: ${config.cluster.kubernetesVersion}`);
  return {
    data,
    skipPhases: config.init.skipPhases,
    close: transports.close,
    // A run that stops before wait-control-plane (`init phase certs --dry-run`) reports here.
    finish: async () => await report?.report(),
  };
}

function apiCallTimeout(value: string | undefined): number {
  try {
    return value ? parseDuration(value) : DefaultTimeouts.kubernetesAPICall;
  } catch {
    return DefaultTimeouts.kubernetesAPICall;
  }
}
