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
import { consolePrinter, stderr, stdout } from "../output.ts";
import type { CertsConfigFlags } from "../certs_runtime.ts";
import type { StructuredFormat } from "../../core/text/structured_output.ts";
import { renewTargets } from "../../core/certs/renew_targets.ts";

const CERT_DIR_HELP = "The path where to save the certificates";
const CONFIG_HELP = "Path to a kubeadm configuration file.";
const KUBECONFIG_HELP =
  "The kubeconfig file to use when talking to the cluster. If the flag is not set, a set of standard locations can be searched for an existing kubeconfig file.";

const RENEW_LONG = (longName: string) =>
  `Renew the ${longName}.

Renewals run unconditionally, regardless of certificate expiration date; extra attributes such as SANs will be based on the existing file/certificates, there is no need to resupply them.

Renewal by default tries to use the certificate authority in the local PKI managed by kubeadm; as alternative it is possible to use K8s certificate API for certificate renewal, or as a last option, to generate a CSR request.

After renewal, in order to make changes effective, is required to restart control-plane components and eventually re-distribute the renewed certificate in case the file is used elsewhere.`;

const RENEW_ALL_LONG =
  "Renew all known certificates necessary to run the control plane. Renewals are run unconditionally, regardless of expiration date. Renewals can also be run individually for more control.";

/** Exit status of `check-expiration --fail-if-expiring-within` when something expires. */
export const EXPIRING_EXIT_CODE = 4;

interface RenewOpts extends CertsConfigFlags {
  dryRun?: boolean;
}

function configFlags(cmd: Command): CertsConfigFlags & Record<string, unknown> {
  return cmd.optsWithGlobals() as CertsConfigFlags & Record<string, unknown>;
}

function addRenewFlags(cmd: Command): Command {
  return cmd
    .option("--cert-dir <dir>", `${CERT_DIR_HELP} (default "/etc/kubernetes/pki")`)
    .option("--config <file>", CONFIG_HELP)
    .option("--kubeconfig <file>", `${KUBECONFIG_HELP} (default "/etc/kubernetes/admin.conf")`)
    .option(
      "--dry-run",
      "Do not write anything: list the files each renewal would write (beyond upstream).",
    )
    .option("--no-dry-run", "(pflag compatibility)");
}

async function runRenew(names: "all" | string, cmd: Command): Promise<void> {
  const flags = configFlags(cmd) as RenewOpts;
  const { loadCertsConfig, nodeFiles } = await import("../certs_runtime.ts");
  const { planRenewal, podsToRestart, renewalMessage, RENEW_ALL_DONE } = await import(
    "../../core/certs/renewal.ts"
  );
  const { KUBERNETES_DIR } = await import("../../core/constants.ts");
  const { systemClock, webRandom, writePlannedFiles } = await import(
    "../../core/host/ports.ts"
  );
  const cfg = await loadCertsConfig(flags, consolePrinter, "renew", stderr);
  const externalEtcd = cfg.cluster.etcd.external !== undefined;
  const files = nodeFiles(flags.rootfs);
  const now = systemClock.now();
  const plan = await planRenewal({
    files,
    settings: {
      certificatesDir: cfg.cluster.certificatesDir,
      kubeconfigDir: KUBERNETES_DIR,
      encryptionAlgorithm: cfg.cluster.encryptionAlgorithm,
      certificateValidityPeriod: cfg.cluster.certificateValidityPeriod,
      externalEtcd,
    },
    names: names === "all" ? renewTargets(externalEtcd).map((t) => t.name) : [names],
    startTime: now,
    now,
    random: webRandom,
  });
  for (const w of plan.warnings) stderr(w);
  for (const outcome of plan.outcomes) {
    if (outcome.status !== "renewed") {
      stdout(renewalMessage(outcome));
      continue;
    }
    if (flags.dryRun) {
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
  if (flags.dryRun) {
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

async function runCheckExpiration(cmd: Command): Promise<void> {
  const flags = configFlags(cmd) as CertsConfigFlags & {
    output?: string;
    failIfExpiringWithin?: string;
  };
  const { KubeadmError } = await import("../../core/errors.ts");
  const output = flags.output ?? "text";
  if (!["text", "json", "yaml", "kyaml"].includes(output)) {
    throw new KubeadmError(
      `could not construct output printer: unable to match a printer suitable for the output format ${
        JSON.stringify(output)
      }, allowed formats are: json,kyaml,text,yaml`,
      { field: "--output", value: output },
    );
  }
  let windowMs: number | undefined;
  if (flags.failIfExpiringWithin !== undefined) {
    const { parseDuration } = await import("../../core/text/duration.ts");
    try {
      windowMs = parseDuration(flags.failIfExpiringWithin);
    } catch (e) {
      throw new KubeadmError(
        `invalid argument ${
          JSON.stringify(flags.failIfExpiringWithin)
        } for "--fail-if-expiring-within" flag: ${(e as Error).message}`,
        {
          field: "--fail-if-expiring-within",
          value: flags.failIfExpiringWithin,
          hint: "e.g. 720h",
        },
      );
    }
  }
  const { loadCertsConfig, nodeFiles, silentPrinter } = await import("../certs_runtime.ts");
  const { checkExpiration, formatExpirationText, expiringWithin, ExpiringCertificatesError } =
    await import("../../core/certs/expiration.ts");
  const { formatStructured } = await import("../../core/text/structured_output.ts");
  const { KUBERNETES_DIR } = await import("../../core/constants.ts");
  const out = output === "text" ? consolePrinter : silentPrinter;
  const cfg = await loadCertsConfig(flags, out, "check-expiration", stderr);
  const { info, warnings } = await checkExpiration({
    files: nodeFiles(flags.rootfs),
    certificatesDir: cfg.cluster.certificatesDir,
    kubeconfigDir: KUBERNETES_DIR,
    externalEtcd: cfg.cluster.etcd.external !== undefined,
    now: new Date(),
  });
  for (const w of warnings) stderr(w);
  const text = output === "text"
    ? formatExpirationText(info)
    : formatStructured(info, output as StructuredFormat);
  Deno.stdout.writeSync(new TextEncoder().encode(text));
  if (windowMs !== undefined) {
    const expiring = expiringWithin(info, windowMs);
    if (expiring.length > 0) {
      throw new ExpiringCertificatesError(expiring, flags.failIfExpiringWithin!);
    }
  }
}

async function runGenerateCSR(cmd: Command): Promise<void> {
  const flags = configFlags(cmd) as CertsConfigFlags & { kubeconfigDir?: string };
  const { loadOrDefaultConfig, nodeFiles } = await import("../certs_runtime.ts");
  const { csrGroupHeader, planKeysAndCSRs } = await import("../../core/certs/generate_csr.ts");
  const { KUBERNETES_DIR } = await import("../../core/constants.ts");
  const { writePlannedFiles } = await import("../../core/host/ports.ts");
  const cfg = await loadOrDefaultConfig(flags.config, {}, stderr);
  // --cert-dir takes priority over the configuration when set.
  if (flags.certDir) cfg.cluster.certificatesDir = flags.certDir;
  const files = nodeFiles(flags.rootfs);
  const groups = await planKeysAndCSRs({
    cfg,
    files,
    kubeconfigDir: flags.kubeconfigDir ?? KUBERNETES_DIR,
    startTime: new Date(),
    warn: stderr,
  });
  for (const group of groups) {
    stdout(csrGroupHeader(group));
    for (const entry of group.entries) {
      await writePlannedFiles(files, entry.files);
      stdout(`  ${entry.name}`);
    }
  }
}

/** Registers `certs` and its sub-commands. */
export function registerCerts(program: Command): void {
  const certs = program.command("certs").alias("certificates").description(
    "Commands related to handling Kubernetes certificates",
  );
  const renew = certs.command("renew").description("Renew certificates for a Kubernetes cluster");
  // Sub-commands come from the core's target list (upstream builds them the same way).
  for (const t of renewTargets()) {
    addRenewFlags(
      renew.command(t.name).summary(`Renew the ${t.longName}`).description(RENEW_LONG(t.longName)),
    ).action((_opts: unknown, cmd: Command) => runRenew(t.name, cmd));
  }
  addRenewFlags(
    renew.command("all").summary("Renew all available certificates").description(RENEW_ALL_LONG),
  ).action((_opts: unknown, cmd: Command) => runRenew("all", cmd));

  certs.command("check-expiration")
    .description("Checks expiration for the certificates in the local PKI managed by kubeadm.")
    .summary("Check certificates expiration for a Kubernetes cluster")
    .option("--cert-dir <dir>", `${CERT_DIR_HELP} (default "/etc/kubernetes/pki")`)
    .option("--config <file>", CONFIG_HELP)
    .option("--kubeconfig <file>", `${KUBECONFIG_HELP} (default "/etc/kubernetes/admin.conf")`)
    .option(
      "-o, --output <format>",
      `Output format. One of: text|json|yaml|kyaml. (default "text")`,
    )
    .option(
      "--allow-missing-template-keys",
      "If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats. (default true)",
    )
    .option("--no-allow-missing-template-keys", "(pflag compatibility)")
    .option(
      "--show-managed-fields",
      "If true, keep the managedFields when printing objects in JSON or YAML format.",
    )
    .option("--no-show-managed-fields", "(pflag compatibility)")
    .option(
      "--fail-if-expiring-within <duration>",
      `After printing, exit with status ${EXPIRING_EXIT_CODE} (and name them on stderr) when any certificate or CA expires within this duration or has expired, e.g. 720h; missing files do not count (beyond upstream).`,
    )
    .action((_opts: unknown, cmd: Command) => runCheckExpiration(cmd));

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
      const { webRandom } = await import("../../core/host/ports.ts");
      stdout(generateCertificateKey(webRandom));
    });

  certs.command("generate-csr")
    .summary("Generate keys and certificate signing requests")
    .description(
      `Generates keys and certificate signing requests (CSRs) for all the certificates required to run the control plane. This command also generates partial kubeconfig files with private key data in the  "users > user > client-key-data" field, and for each kubeconfig file an accompanying ".csr" file is created.

This command is designed for use in [Kubeadm External CA Mode](https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-certs/#external-ca-mode). It generates CSRs which you can then submit to your external certificate authority for signing.

The PEM encoded signed certificates should then be saved alongside the key files, using ".crt" as the file extension, or in the case of kubeconfig files, the PEM encoded signed certificate should be base64 encoded and added to the kubeconfig file in the "users > user > client-certificate-data" field.

Examples:
  # The following command will generate keys and CSRs for all control-plane certificates and kubeconfig files:
  kubeadm certs generate-csr --kubeconfig-dir /tmp/etc-k8s --cert-dir /tmp/etc-k8s/pki`,
    )
    .option("--cert-dir <dir>", CERT_DIR_HELP)
    .option("--config <file>", CONFIG_HELP)
    .option(
      "--kubeconfig-dir <dir>",
      `The path where to save the kubeconfig file. (default "/etc/kubernetes")`,
    )
    .action((_opts: unknown, cmd: Command) => runGenerateCSR(cmd));
}
