/**
 * Beyond upstream: `kubeadm certs auto-renewal install|remove|status|run` (the schedule that
 * renews what expires within a window and restarts what uses it, `core/certs/auto_renewal.ts`)
 * and `kubeadm certs approve-kubelet-serving` (the kubelets' serving certificate requests,
 * `core/certs/kubelet_serving.ts`), registered under `certs`.
 *
 * @module
 */
import type { Command } from "commander";
import type { Printer } from "../../core/ports/printer.ts";
import { addFlags, type FlagName, type FlagValues, flagValues } from "../flags.ts";
import { resolveObjectOutput, writeObject } from "../object_output.ts";
import { consolePrinter, stderr, stdout } from "../output.ts";
import { requireSubcommand } from "../usage.ts";

const CONFIG_FLAGS: readonly FlagName[] = ["cert-dir", "config", "kubeconfig"];
const INSTALL_FLAGS: readonly FlagName[] = [
  ...CONFIG_FLAGS,
  "approve-kubelet-serving",
  "dry-run",
  "schedule",
  "within",
];
const RUN_FLAGS: readonly FlagName[] = [
  ...CONFIG_FLAGS,
  "approve-kubelet-serving",
  "dry-run",
  "within",
];

/** The node's parts the schedule commands use; refuses a `--rootfs` that is another machine. */
async function scheduleNode(flags: FlagValues, dryRun: boolean, out: Printer) {
  const rootfs = flags.rootfs ?? "/";
  const { nodeHost, runFiles } = await import("../adapters.ts");
  const { KubeadmError } = await import("../../core/errors.ts");
  const node = await nodeHost(rootfs, {});
  if (node.foreignRoot !== undefined) {
    throw new KubeadmError(
      `certificate auto-renewal is set up on the running machine, and --rootfs names another root (${node.foreignRoot})`,
      { field: "--rootfs", hint: "run the command on the node itself" },
    );
  }
  const { files } = await runFiles(rootfs, dryRun);
  return {
    files,
    removeFile: (p: string) => node.removeFile(p),
    init: await node.machine.initSystem(),
    out,
    dryRun,
  };
}

/** Refuses a node without a control plane (nothing to renew or restart there). */
async function requireControlPlane(flags: FlagValues): Promise<void> {
  const { isControlPlaneNode } = await import("../cluster_connection.ts");
  const { KubeadmError } = await import("../../core/errors.ts");
  const { MANIFESTS_DIR } = await import("../../core/constants.ts");
  if (!(await isControlPlaneNode(flags.rootfs ?? "/"))) {
    throw new KubeadmError(
      `this is not a control-plane node: ${MANIFESTS_DIR}/kube-apiserver.yaml does not exist`,
      { hint: "certificate auto-renewal runs on each control-plane node" },
    );
  }
}

/** The window and the configuration of a run or an install (checked before anything else). */
async function windowAndConfig(flags: FlagValues, out: Printer) {
  const { loadCertsConfig } = await import("../certs_runtime.ts");
  const { DEFAULT_RENEWAL_WINDOW, parseRenewalWindow } = await import(
    "../../core/certs/auto_renewal.ts"
  );
  const cfg = await loadCertsConfig(flags, out, "certs", stderr);
  const window = parseRenewalWindow(
    flags.within ?? DEFAULT_RENEWAL_WINDOW,
    cfg.cluster.certificateValidityPeriod,
  );
  return { cfg, window };
}

async function runInstall(cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const dryRun = flags["dry-run"] === true;
  const { DEFAULT_RENEWAL_SCHEDULE, installAutoRenewal, parseRenewalSchedule } = await import(
    "../../core/certs/auto_renewal.ts"
  );
  const schedule = parseRenewalSchedule(flags.schedule ?? DEFAULT_RENEWAL_SCHEDULE);
  const { window } = await windowAndConfig(flags, consolePrinter);
  await requireControlPlane(flags);
  const { selfCommand } = await import("../../adapters/deno/process.ts");
  await installAutoRenewal(await scheduleNode(flags, dryRun, consolePrinter), {
    window,
    schedule,
    approveKubeletServing: flags["approve-kubelet-serving"] === true,
    command: selfCommand(),
  });
}

async function runRemove(cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const { removeAutoRenewal } = await import("../../core/certs/auto_renewal.ts");
  const node = await scheduleNode(flags, flags["dry-run"] === true, consolePrinter);
  if ((await removeAutoRenewal(node)).length === 0) {
    stdout("[certs/auto-renewal] No certificate auto-renewal is installed");
  }
}

async function runStatus(cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const output = await resolveObjectOutput(flags);
  const { autoRenewalStatus, autoRenewalStatusLines } = await import(
    "../../core/certs/auto_renewal.ts"
  );
  const node = await scheduleNode(flags, false, consolePrinter);
  const { KUBERNETES_DIR } = await import("../../core/constants.ts");
  const status = await autoRenewalStatus(node.files, node.init, KUBERNETES_DIR);
  if (output.kind === "text") {
    for (const line of autoRenewalStatusLines(status)) stdout(line);
  } else {
    await writeObject(output, { kind: "CertificateAutoRenewalStatus", ...status });
  }
}

/**
 * The scheduled run: renews the control plane's certificates that expire within the window,
 * restarts what reads them, reports CAs and externally signed certificates it cannot renew,
 * and approves the kubelets' serving certificate requests when asked.
 */
async function runScheduled(cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const dryRun = flags["dry-run"] === true;
  const { cfg, window } = await windowAndConfig(flags, consolePrinter);
  await requireControlPlane(flags);
  const [{ dueForRenewal }, { checkExpiration, formatExpiryDate }, renewal, kubeletConf, time] =
    await Promise.all([
      import("../../core/certs/auto_renewal.ts"),
      import("../../core/certs/expiration.ts"),
      import("../../core/certs/renewal.ts"),
      import("../../core/certs/kubelet_conf.ts"),
      import("../../core/text/duration.ts"),
    ]);
  const { renewAndRestartAll, restartPreview, restartRuntime } = await import(
    "../certs_restart_runtime.ts"
  );
  const { nodeFiles, platform } = await import("../adapters.ts");
  const { KUBERNETES_DIR } = await import("../../core/constants.ts");
  const files = await nodeFiles(flags.rootfs);
  const now = platform.clock.now();
  const externalEtcd = cfg.cluster.etcd.external !== undefined;
  const { PkiDirectory } = await import("../../core/certs/pki_dir.ts");
  const where = {
    pki: PkiDirectory.of({ files, cfg, crypto: platform.crypto }),
    kubeconfigDir: KUBERNETES_DIR,
  };
  const { info, warnings } = await checkExpiration({ ...where, externalEtcd, now });
  for (const w of warnings) stderr(w);
  const kubelet = await kubeletConf.kubeletClientState(files, KUBERNETES_DIR);
  const due = dueForRenewal(info, time.parseDuration(window), { state: kubelet, now });
  for (const ca of due.authorities) {
    stderr(
      `[certs/auto-renewal] WARNING: the CA ${ca.name} expires on ${
        formatExpiryDate(ca.expirationDate!)
      }: a CA is not renewed, it is rotated ('kubeadm certs rotate-ca')`,
    );
  }
  for (const c of due.external) {
    stderr(
      `[certs/auto-renewal] WARNING: ${c.name} expires on ${
        formatExpiryDate(c.expirationDate!)
      } and is signed by the external CA ${c.caName}: renew it there`,
    );
  }
  stdout(`[certs/auto-renewal] ${kubeletConf.kubeletClientLine(kubelet)}`);
  const runtime = await restartRuntime(flags, cfg, consolePrinter);
  try {
    if (due.renew.length === 0) {
      stdout(
        `[certs/auto-renewal] Nothing to renew: no certificate expires within ${window}${
          due.next
            ? ` (the first to expire is ${due.next.name}, on ${
              formatExpiryDate(due.next.expirationDate!)
            })`
            : ""
        }`,
      );
      if (!dryRun && await renewAndRestartAll(runtime, undefined)) {
        stdout(
          "[certs/auto-renewal] Every component and the kubelet restarted after an interrupted run",
        );
      }
    } else {
      stdout(
        `[certs/auto-renewal] Renewing what expires within ${window}: ${due.renew.join(", ")}`,
      );
      const plan = await renewal.planRenewal({
        ...where,
        settings: renewal.renewalSettings(cfg.cluster),
        names: due.renew,
        startTime: now,
        now,
        random: platform.random,
      });
      for (const w of plan.warnings) stderr(w);
      if (dryRun) {
        for (const line of await restartPreview(plan)) stdout(line);
      } else {
        await renewAndRestartAll(runtime, plan);
        for (const o of plan.outcomes) stdout(renewal.renewalMessage(o));
      }
    }
    if (flags["approve-kubelet-serving"]) {
      await approveServing(runtime.ctx.client, dryRun, now);
    }
  } finally {
    runtime.close();
  }
}

async function approveServing(
  client: import("../../core/kube/client.ts").KubeClient,
  dryRun: boolean,
  now: Date,
) {
  const { approveKubeletServingCsrs, servingReportLines } = await import(
    "../../core/certs/kubelet_serving.ts"
  );
  const report = await approveKubeletServingCsrs({ client, dryRun, now });
  for (const line of servingReportLines(report, dryRun)) stdout(line);
}

async function runApproveServing(cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const { connect, kubeconfigLocation } = await import("../cluster_connection.ts");
  const { KubeconfigFile } = await import("../../core/constants.ts");
  const { platform } = await import("../adapters.ts");
  const location = kubeconfigLocation(flags.kubeconfig, flags.rootfs ?? "/", KubeconfigFile.admin);
  const connection = await connect(location, { timeoutMs: 30_000 });
  try {
    await approveServing(connection.client, flags["dry-run"] === true, platform.clock.now());
  } finally {
    connection.close();
  }
}

/** Registers `certs auto-renewal …` and `certs approve-kubelet-serving` under `certs`. */
export function registerAutoRenewal(certs: Command): void {
  const auto = requireSubcommand(
    certs.command("auto-renewal").summary(
      "Renew the control plane's certificates before they expire, on a schedule",
    ).description(
      `Installs, removes and reports a schedule on this control-plane node (a systemd timer, or on OpenRC a script the cron daemon runs from /etc/periodic) that renews the certificates expiring within a window and restarts, one at a time, the components that read them. Its runs log to the journal (syslog on OpenRC) as kubeadm-certs-renewal. "kubeadm reset" removes it. Beyond upstream.`,
    ),
  );
  addFlags(
    auto.command("install").summary("Install (or update) the renewal schedule on this node"),
    INSTALL_FLAGS,
    "certs auto-renewal",
  ).action((_o: unknown, cmd: Command) => runInstall(cmd));
  addFlags(
    auto.command("remove").summary("Remove the renewal schedule from this node"),
    ["dry-run"],
    "certs auto-renewal",
  ).action((_o: unknown, cmd: Command) => runRemove(cmd));
  addFlags(
    auto.command("status").summary("Report the renewal schedule of this node"),
    ["output"],
    "certs auto-renewal",
  ).action((_o: unknown, cmd: Command) => runStatus(cmd));
  addFlags(
    auto.command("run").summary(
      "Renew what expires within the window and restart what reads it, now (what the schedule runs)",
    ),
    RUN_FLAGS,
    "certs auto-renewal",
  ).action((_o: unknown, cmd: Command) => runScheduled(cmd));
  addFlags(
    certs.command("approve-kubelet-serving").summary(
      "Approve the kubelets' pending serving certificate requests that are for their own Node",
    ).description(
      `Approves each pending kubernetes.io/kubelet-serving CertificateSigningRequest (made by kubelets with serverTLSBootstrap: true) whose requester is system:node:<name> of an existing Node, whose every SAN is one of that Node's addresses or host names, and whose usages are exactly the serving ones; leaves every other one Pending and says why. Beyond upstream.`,
    ),
    ["dry-run", "kubeconfig"],
    "certs auto-renewal",
  ).action((_o: unknown, cmd: Command) => runApproveServing(cmd));
}
