/**
 * Assembles an init run on this host: reads the config file, detects host facts, resolves the
 * configuration, chooses the file system (real, under `--rootfs`, or a dry-run recording) and
 * plugs in the cluster ports: the admin connection over `<rootfs>/etc/kubernetes/admin.conf`
 * (the Deno mTLS transport, or the recording dry-run transport), the health probe and the
 * kubelet service.
 *
 * @module
 */
import { readConfigFile, systemdResolvedActive } from "./config_file.ts";
import { DenoPreflightHost } from "../runtime/host/preflight_host.ts";
import { KUBERNETES_DIR, MANIFESTS_DIR } from "../core/constants.ts";
import type { PlannedFile, Printer } from "../core/host/ports.ts";
import { systemClock, toBytes, utf8, webRandom } from "../core/host/ports.ts";
import { RecordingFileSystem } from "../core/host/recording_fs.ts";
import { createDryRunTransport } from "../core/kube/dry_run.ts";
import { realSleep } from "../core/kube/transport.ts";
import {
  createClusterAccess,
  type TransportFactory,
  type TransportHandle,
} from "../core/phases/init/cluster_access.ts";
import type { ConnectionParams } from "../core/kube/transport.ts";
import type { HealthProbe } from "../core/phases/init/data.ts";
import type { InitData } from "../core/phases/init/data.ts";
import { parseDuration } from "../core/config/duration.ts";
import { DefaultTimeouts } from "../core/constants.ts";
import { createKubeletService } from "../runtime/host/kubelet_service.ts";
import { HostFileSystem } from "../runtime/fs/host_fs.ts";
import { detectDefaultAddress, readHostFacts } from "../runtime/host/facts.ts";
import { canWrite, envGet } from "../runtime/host/env.ts";
import type { InitCommandDeps, InitFlags } from "./commands/init.ts";

/** A prepared init run. */
export interface InitContext {
  data: InitData;
  host: HostFileSystem;
  /** Set in dry-run: the planned writes. */
  recording?: RecordingFileSystem;
  /** Dry-run: the planned files already reported, and where they were written. */
  reported?: { files: Set<PlannedFile>; dir?: string };
}

// The network stack (node:https for self-signed health endpoints, fetch clients) costs tens of
// milliseconds to load: only phases that talk to the cluster pay for it.

function lazyDenoTransport(params: ConnectionParams): TransportHandle {
  const made = import("../runtime/kube/transport.ts").then((m) => m.createDenoTransport(params));
  return {
    transport: async (request) => (await made).transport(request),
    close: () => void made.then((t) => t.close()),
  };
}

function lazyHealthProbe(): HealthProbe {
  let probe: Promise<HealthProbe> | undefined;
  return {
    get: async (url, options) =>
      (await (probe ??= import("../runtime/kube/health.ts").then((m) => m.createHealthProbe())))
        .get(url, options),
  };
}

/** Resolves flags + config file + host facts into {@link InitData}. */
export async function prepareInit(
  flags: InitFlags,
  setFlags: string[],
  out: Printer,
  deps: Pick<InitCommandDeps, "preflightHost"> = {},
): Promise<InitContext> {
  const { parsePreflightOutput } = await import("./flags.ts");
  const preflightOutput = await parsePreflightOutput(flags.output);
  const { resolveInitConfig } = await import("../core/config/resolve.ts");
  const { validateMixedArguments } = await import("../core/config/mixed_flags.ts");
  const { parseFeatureGates } = await import("../core/config/features.ts");
  if (flags.config) validateMixedArguments(setFlags);
  const text = flags.config ? await readConfigFile(flags.config) : undefined;
  const facts = readHostFacts(flags.rootfs ?? "/");
  const { config, warnings } = resolveInitConfig({
    text,
    source: flags.config,
    flags: {
      advertiseAddress: flags.apiserverAdvertiseAddress,
      bindPort: flags.apiserverBindPort === undefined ? undefined : Number(flags.apiserverBindPort),
      certSANs: flags.apiserverCertExtraSans,
      certificatesDir: flags.certDir,
      certificateKey: flags.certificateKey,
      controlPlaneEndpoint: flags.controlPlaneEndpoint,
      criSocket: flags.criSocket,
      featureGates: flags.featureGates ? parseFeatureGates(flags.featureGates) : undefined,
      imageRepository: flags.imageRepository,
      kubernetesVersion: flags.kubernetesVersion,
      nodeName: flags.nodeName,
      patchesDir: flags.patches,
      podSubnet: flags.podNetworkCidr,
      serviceSubnet: flags.serviceCidr,
      dnsDomain: flags.serviceDnsDomain,
      skipPhases: flags.skipPhases,
      token: flags.token,
      tokenTTL: flags.tokenTtl,
      dryRun: flags.dryRun,
      ignorePreflightErrors: flags.ignorePreflightErrors,
      uploadCerts: flags.uploadCerts,
    },
    host: {
      hostname: facts.hostname,
      defaultAdvertiseAddress: flags.apiserverAdvertiseAddress ?? detectDefaultAddress() ?? "",
      systemdResolvedActive: systemdResolvedActive(),
    },
    random: webRandom,
  });
  for (const w of warnings) out.warn(w);
  const host = new HostFileSystem(flags.rootfs ?? "/");
  const dryRun = flags.dryRun ?? config.init.dryRun ?? false;
  const recording = dryRun ? new RecordingFileSystem(host) : undefined;
  const files = recording ?? host;
  let transportFor: TransportFactory;
  if (dryRun) {
    // One recording transport for the whole run: later GETs see earlier "created" objects.
    const dry = createDryRunTransport({ out });
    transportFor = () => ({ transport: dry.transport });
  } else {
    transportFor = lazyDenoTransport;
  }
  const ctx: InitContext = { data: undefined as unknown as InitData, host, recording };
  const data: InitData = {
    cfg: config,
    files,
    out,
    clock: systemClock,
    random: webRandom,
    startTime: new Date(),
    dryRun,
    kubeconfigDir: KUBERNETES_DIR,
    manifestDir: MANIFESTS_DIR,
    patchesDir: flags.patches ?? config.init.patches?.directory,
    host: facts,
    sleep: realSleep,
    health: lazyHealthProbe(),
    cluster: createClusterAccess({
      files,
      kubeconfigDir: KUBERNETES_DIR,
      transportFor,
      bootstrapClusterAdmins: !dryRun,
      clock: systemClock,
      sleep: realSleep,
      apiCallTimeoutMs: apiCallTimeout(config.init.timeouts.kubernetesAPICall),
    }),
    preflightHost: deps.preflightHost?.(flags.rootfs ?? "/") ??
      new DenoPreflightHost({ root: flags.rootfs ?? "/" }),
    preflightOutput,
    kubelet: dryRun ? undefined : createKubeletService({ out, rootfs: flags.rootfs }),
    skipTokenPrint: flags.skipTokenPrint ?? false,
    skipCertificateKeyPrint: flags.skipCertificateKeyPrint ?? false,
    reportDryRunFiles: recording ? () => reportDryRunFiles(ctx, out) : undefined,
  };
  ctx.data = data;
  return ctx;
}

function apiCallTimeout(value: string | undefined): number {
  try {
    return value ? parseDuration(value) : DefaultTimeouts.kubernetesAPICall;
  } catch {
    return DefaultTimeouts.kubernetesAPICall;
  }
}

const PRINTABLE_KINDS = new Set(["manifest", "kubelet-config", "env"]);

/**
 * Dry-run: writes the planned files not reported yet under the dry-run directory and prints
 * them (contents of the printable kinds only). Upstream does this at wait-control-plane; a
 * run that stops earlier (`init phase certs --dry-run`) reports at the end.
 */
export async function reportDryRunFiles(ctx: InitContext, out: Printer): Promise<void> {
  if (!ctx.recording) return;
  if (!ctx.reported) {
    let dir = envGet("KUBEADM_INIT_DRYRUN_DIR");
    if (!dir) {
      const tmp = envGet("TMPDIR") ?? "/tmp";
      if (canWrite(tmp)) dir = await Deno.makeTempDir({ dir: tmp, prefix: "kubeadm-init-dryrun" });
    }
    ctx.reported = { files: new Set(), dir };
  }
  const { dir } = ctx.reported;
  const planned = ctx.recording.planned.filter((f) => !ctx.reported!.files.has(f));
  if (planned.length === 0) return;
  for (const f of planned) ctx.reported.files.add(f);
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
    const under = new HostFileSystem(dir);
    for (const f of planned) await under.write(f);
    // Upstream's order: wrote, not printed, examine.
    out.info(
      `[dryrun] Wrote certificates, kubeconfig files and control plane manifests to the "${dir}" directory`,
    );
    out.info(sensitive);
    out.info(
      `[dryrun] Please examine the "${dir}" directory for details about what would be written`,
    );
  } else {
    out.info("[dryrun] No writable dry-run directory (no write permission); nothing was written");
    out.info(sensitive);
  }
  for (const f of planned) {
    if (!PRINTABLE_KINDS.has(f.kind)) continue;
    out.info(`[dryrun] Would write file "${f.path}" with content:`);
    for (const line of utf8(toBytes(f.data)).replace(/\n$/, "").split("\n")) out.info(`\t${line}`);
  }
}

/** After the workflow: releases the cluster connection and, in dry-run, reports what is left. */
export async function finishInit(ctx: InitContext, out: Printer): Promise<void> {
  ctx.data.cluster?.close();
  await reportDryRunFiles(ctx, out);
}
