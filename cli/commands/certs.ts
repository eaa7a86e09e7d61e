/**
 * `kubeadm certs` (alias `certificates`): `renew <name>|all`, `check-expiration`,
 * `certificate-key` and `generate-csr`, with upstream's flags, output and messages, over the
 * core's plans (`core/certs/renewal.ts`, `expiration.ts`, `generate_csr.ts`).
 *
 * Beyond upstream: `certs renew … --dry-run` lists what would change and writes nothing; a
 * single renewal names the static Pods to restart; `check-expiration
 * --fail-if-expiring-within <duration>` exits with status 4 when anything expires within it.
 *
 * @module
 */
import type { Command } from "commander";
import type { ResolvedConfig } from "../../core/config/types.ts";
import type { RenewalPlan } from "../../core/certs/renewal.ts";
import { addFlags, durationValue, type FlagName, type FlagValues, flagValues } from "../flags.ts";
import { resolveObjectOutput, writeObject } from "../object_output.ts";
import { consolePrinter, stderr, stdout, writeStdout } from "../output.ts";
import { renewTargets } from "../../core/certs/renew_targets.ts";
import { requireSubcommand } from "../usage.ts";
import { registerAutoRenewal } from "./certs_auto_renewal.ts";
import { registerRotateCa } from "./certs_rotate_ca.ts";

const RENEW_LONG = (longName: string) =>
  `Renew the ${longName}.

Renewals run unconditionally, regardless of certificate expiration date; extra attributes such as SANs will be based on the existing file/certificates, there is no need to resupply them.

Renewal by default tries to use the certificate authority in the local PKI managed by kubeadm; as alternative it is possible to use K8s certificate API for certificate renewal, or as a last option, to generate a CSR request.

After renewal, in order to make changes effective, is required to restart control-plane components and eventually re-distribute the renewed certificate in case the file is used elsewhere.`;

const RENEW_ALL_LONG =
  "Renew all known certificates necessary to run the control plane. Renewals are run unconditionally, regardless of expiration date. Renewals can also be run individually for more control.";

/** The flags of every `certs renew <name>|all` (upstream's, plus `--dry-run` and `--restart`). */
const RENEW_FLAGS: readonly FlagName[] = ["cert-dir", "config", "kubeconfig", "dry-run", "restart"];

/** The flags of `certs check-expiration` (upstream's, plus `--fail-if-expiring-within`). */
const CHECK_EXPIRATION_FLAGS: readonly FlagName[] = [
  "allow-missing-template-keys",
  "cert-dir",
  "config",
  "fail-if-expiring-within",
  "kubeconfig",
  "output",
  "show-managed-fields",
];

/** The flags of `certs generate-csr`. */
const GENERATE_CSR_FLAGS: readonly FlagName[] = ["cert-dir", "config", "kubeconfig-dir"];

async function runRenew(names: "all" | string, cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const dryRun = flags["dry-run"] === true;
  const { loadCertsConfig } = await import("../certs_runtime.ts");
  const { nodeFiles, platform } = await import("../adapters.ts");
  const { planRenewal, podsToRestart, renewalMessage, renewalSettings, RENEW_ALL_DONE } =
    await import("../../core/certs/renewal.ts");
  const { PkiDirectory } = await import("../../core/certs/pki_dir.ts");
  const { KUBERNETES_DIR } = await import("../../core/constants.ts");
  const { writePlannedFiles } = await import("../../core/ports/files.ts");
  const cfg = await loadCertsConfig(flags, consolePrinter, "renew", stderr);
  const settings = renewalSettings(cfg.cluster);
  const files = await nodeFiles(flags.rootfs);
  const now = platform.clock.now();
  const targets = names === "all"
    ? renewTargets(settings.externalEtcd).map((t) => t.name)
    : [names];
  if (names === "all" && flags.restart) {
    // Beyond upstream: restarting, kubelet.conf's certificate is renewed too where nobody rotates it.
    const { kubeletClientState, kubeletClientLine, KUBELET_CONF_TARGET } = await import(
      "../../core/certs/kubelet_conf.ts"
    );
    const kubelet = await kubeletClientState(files, KUBERNETES_DIR);
    if (kubelet.kind === "embedded") targets.push(KUBELET_CONF_TARGET.name);
    else stdout(`[certs] ${kubeletClientLine(kubelet)}`);
  }
  const plan = await planRenewal({
    pki: PkiDirectory.of({ files, cfg, crypto: platform.crypto }),
    kubeconfigDir: KUBERNETES_DIR,
    settings,
    names: targets,
    startTime: now,
    now,
    random: platform.random,
  });
  for (const w of plan.warnings) stderr(w);
  if (flags.restart && !dryRun) {
    await renewAndRestart(flags, cfg, plan);
    return;
  }
  for (const outcome of plan.outcomes) {
    if (outcome.status !== "renewed") {
      stdout(renewalMessage(outcome));
      continue;
    }
    if (dryRun) {
      for (const f of outcome.files) {
        stdout(
          `[dryrun] Would write ${f.path} (${f.kind}, mode ${
            f.mode.toString(8).padStart(4, "0")
          } unless the file has another) for the ${outcome.target.longName}`,
        );
      }
      stdout(
        `[dryrun] Would renew the ${outcome.target.longName}: ${outcome.cert.subject.commonName}, valid until ${outcome.cert.notAfter.toISOString()}, new key`,
      );
      continue;
    }
    await writePlannedFiles(files, outcome.files);
    stdout(renewalMessage(outcome));
  }
  const pods = podsToRestart(plan);
  if (dryRun) {
    if (flags.restart) {
      const { restartPreview } = await import("../certs_restart_runtime.ts");
      for (const line of await restartPreview(plan)) stdout(line);
      stdout("[dryrun] No file was written and nothing was restarted.");
      return;
    }
    stdout(
      `[dryrun] No file was written.${
        pods.length > 0 ? ` A real run would need a restart of: ${pods.join(", ")}` : ""
      }`,
    );
    return;
  }
  if (names === "all") {
    stdout(`\n${RENEW_ALL_DONE}`);
  } else if (pods.length > 0) {
    stdout(
      `\nYou must restart the ${pods.join(", ")} static Pod${pods.length > 1 ? "s" : ""}, so that ${
        pods.length > 1 ? "they" : "it"
      } can use the new certificate.`,
    );
  }
}

/**
 * `--restart`: writes the renewed files component by component, restarting each component that
 * reads them (`core/controlplane/restart.ts`), and the kubelet when kubelet.conf (which
 * `renew all --restart` renews when it embeds its certificate) was renewed; then prints
 * upstream's lines for every outcome.
 */
async function renewAndRestart(flags: FlagValues, cfg: ResolvedConfig, plan: RenewalPlan) {
  const { restartRuntime, renewAndRestartAll } = await import("../certs_restart_runtime.ts");
  const { renewalMessage } = await import("../../core/certs/renewal.ts");
  const runtime = await restartRuntime(flags, cfg, consolePrinter);
  try {
    await renewAndRestartAll(runtime, plan);
  } finally {
    runtime.close();
  }
  for (const outcome of plan.outcomes) stdout(renewalMessage(outcome));
  if (plan.outcomes.some((o) => o.status === "renewed")) {
    stdout("\nDone renewing certificates; every component reading them was restarted and is back.");
  }
}

async function runCheckExpiration(cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const output = await resolveObjectOutput(flags);
  const windowMs = durationValue(flags, "fail-if-expiring-within");
  const { loadCertsConfig, silentPrinter } = await import("../certs_runtime.ts");
  const { nodeFiles, platform } = await import("../adapters.ts");
  const { checkExpiration, formatExpirationText, expiringWithin, ExpiringCertificatesError } =
    await import("../../core/certs/expiration.ts");
  const { PkiDirectory } = await import("../../core/certs/pki_dir.ts");
  const { KUBERNETES_DIR } = await import("../../core/constants.ts");
  const out = output.kind === "text" ? consolePrinter : silentPrinter;
  const cfg = await loadCertsConfig(flags, out, "check-expiration", stderr);
  const files = await nodeFiles(flags.rootfs);
  const { info, warnings } = await checkExpiration({
    pki: PkiDirectory.of({ files, cfg, crypto: platform.crypto }),
    kubeconfigDir: KUBERNETES_DIR,
    externalEtcd: cfg.cluster.etcd.external !== undefined,
    now: platform.clock.now(),
  });
  for (const w of warnings) stderr(w);
  if (output.kind === "text") writeStdout(formatExpirationText(info));
  else await writeObject(output, info);
  if (windowMs !== undefined) {
    const expiring = expiringWithin(info, windowMs);
    if (expiring.length > 0) {
      throw new ExpiringCertificatesError(expiring, flags["fail-if-expiring-within"]!);
    }
  }
}

async function runGenerateCSR(cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const { loadOrDefaultConfig } = await import("../certs_runtime.ts");
  const { nodeFiles, platform } = await import("../adapters.ts");
  const { csrGroupHeader, planKeysAndCSRs } = await import("../../core/certs/generate_csr.ts");
  const { KUBERNETES_DIR } = await import("../../core/constants.ts");
  const { writePlannedFiles } = await import("../../core/ports/files.ts");
  const loaded = await loadOrDefaultConfig(flags.config, {}, stderr);
  // --cert-dir, when set, takes priority over the configuration (as upstream, unvalidated).
  const certificatesDir = flags["cert-dir"] || loaded.cluster.certificatesDir;
  const cfg = { ...loaded, cluster: { ...loaded.cluster, certificatesDir } };
  const files = await nodeFiles(flags.rootfs);
  const groups = await planKeysAndCSRs({
    cfg,
    files,
    kubeconfigDir: flags["kubeconfig-dir"] ?? KUBERNETES_DIR,
    startTime: platform.clock.now(),
    warn: stderr,
    crypto: platform.crypto,
    random: platform.random,
  });
  for (const group of groups) {
    stdout(csrGroupHeader(group));
    for (const entry of group.entries) {
      await writePlannedFiles(files, entry.files);
      stdout(`  ${entry.name}`);
    }
  }
}

/** Registers `certs` and its sub-commands, their flags drawn from the registry. */
export function registerCerts(program: Command): void {
  const certs = requireSubcommand(
    program.command("certs").alias("certificates").description(
      "Commands related to handling Kubernetes certificates",
    ),
  );
  const renew = requireSubcommand(
    certs.command("renew").description("Renew certificates for a Kubernetes cluster"),
  );
  // Sub-commands come from the core's target list (upstream builds them the same way).
  for (const t of renewTargets()) {
    addFlags(
      renew.command(t.name).summary(`Renew the ${t.longName}`).description(RENEW_LONG(t.longName)),
      RENEW_FLAGS,
      "certs",
    ).action((_opts: unknown, cmd: Command) => runRenew(t.name, cmd));
  }
  addFlags(
    renew.command("all").summary("Renew all available certificates").description(RENEW_ALL_LONG),
    RENEW_FLAGS,
    "certs",
  ).action((_opts: unknown, cmd: Command) => runRenew("all", cmd));

  addFlags(
    certs.command("check-expiration")
      .description("Checks expiration for the certificates in the local PKI managed by kubeadm.")
      .summary("Check certificates expiration for a Kubernetes cluster"),
    CHECK_EXPIRATION_FLAGS,
    "certs",
  ).action((_opts: unknown, cmd: Command) => runCheckExpiration(cmd));

  certs.command("certificate-key")
    .summary("Generate certificate keys")
    .description(
      `This command will print out a secure randomly-generated certificate key that can be used with
the "init" command.

You can also use "kubeadm init --upload-certs" without specifying a certificate key and it will
generate and print one for you.`,
    )
    .action(async () => {
      const { generateCertificateKey } = await import("../../core/cluster/cert_cipher.ts");
      const { platform } = await import("../adapters.ts");
      stdout(generateCertificateKey(platform.random));
    });

  registerAutoRenewal(certs);
  registerRotateCa(certs);

  addFlags(
    certs.command("generate-csr")
      .summary("Generate keys and certificate signing requests")
      .description(
        `Generates keys and certificate signing requests (CSRs) for all the certificates required to run the control plane. This command also generates partial kubeconfig files with private key data in the  "users > user > client-key-data" field, and for each kubeconfig file an accompanying ".csr" file is created.

This command is designed for use in [Kubeadm External CA Mode](https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-certs/#external-ca-mode). It generates CSRs which you can then submit to your external certificate authority for signing.

The PEM encoded signed certificates should then be saved alongside the key files, using ".crt" as the file extension, or in the case of kubeconfig files, the PEM encoded signed certificate should be base64 encoded and added to the kubeconfig file in the "users > user > client-certificate-data" field.

Examples:
  # The following command will generate keys and CSRs for all control-plane certificates and kubeconfig files:
  kubeadm certs generate-csr --kubeconfig-dir /tmp/etc-k8s --cert-dir /tmp/etc-k8s/pki`,
      ),
    GENERATE_CSR_FLAGS,
    "generate-csr",
  ).action((_opts: unknown, cmd: Command) => runGenerateCSR(cmd));
}
