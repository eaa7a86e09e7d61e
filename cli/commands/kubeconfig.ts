/**
 * `kubeadm kubeconfig user`: prints a kubeconfig for an additional user of the cluster (a new
 * client certificate signed by the cluster CA, or a token), as upstream.
 *
 * @module
 */
import type { Command } from "commander";
import { collectList } from "../flags.ts";
import { stderr } from "../output.ts";

interface UserOpts {
  clientName?: string;
  config?: string;
  org?: string[];
  token?: string;
  validityPeriod?: string;
  rootfs?: string;
}

async function runUser(cmd: Command): Promise<void> {
  const flags = cmd.optsWithGlobals() as UserOpts;
  const { KubeadmError } = await import("../../core/errors.ts");
  if (!flags.clientName) {
    throw new KubeadmError(`required flag(s) "client-name" not set`, { field: "--client-name" });
  }
  const { parseDuration } = await import("../../core/text/duration.ts");
  const validity = flags.validityPeriod ?? "8760h0m0s";
  let validityMs: number;
  try {
    validityMs = parseDuration(validity);
  } catch (e) {
    throw new KubeadmError(
      `invalid argument ${JSON.stringify(validity)} for "--validity-period" flag: ${
        (e as Error).message
      }`,
      { field: "--validity-period", value: validity },
    );
  }
  const { loadOrDefaultConfig, nodeFiles } = await import("../certs_runtime.ts");
  const { userKubeconfig } = await import("../../core/kubeconfig/user.ts");
  const { webRandom } = await import("../../core/host/ports.ts");
  const cfg = await loadOrDefaultConfig(flags.config, {}, stderr);
  const now = new Date();
  const text = await userKubeconfig({
    cfg,
    files: nodeFiles(flags.rootfs),
    clientName: flags.clientName,
    organizations: flags.org ?? [],
    token: flags.token || undefined,
    validityMs,
    startTime: now,
    now,
    random: webRandom,
    warn: stderr,
  });
  // Upstream prints the serialized kubeconfig with Println: one more newline.
  Deno.stdout.writeSync(new TextEncoder().encode(`${text}\n`));
}

/** Registers `kubeconfig user`. */
export function registerKubeconfig(program: Command): void {
  const kubeconfig = program.command("kubeconfig").description("Kubeconfig file utilities.");
  kubeconfig.command("user")
    .summary("Output a kubeconfig file for an additional user")
    .description(
      `Output a kubeconfig file for an additional user.

Examples:
  # Output a kubeconfig file for an additional user named foo
  kubeadm kubeconfig user --client-name=foo

  # Output a kubeconfig file for an additional user named foo using a kubeadm config file bar
  kubeadm kubeconfig user --client-name=foo --config=bar`,
    )
    .option(
      "--client-name <name>",
      "The name of user. It will be used as the CN if client certificates are created",
    )
    .option("--config <file>", "Path to a kubeadm configuration file.")
    .option(
      "--org <orgs>",
      "The organizations of the client certificate. It will be used as the O if client certificates are created",
      collectList,
    )
    .option(
      "--token <token>",
      "The token that should be used as the authentication mechanism for this kubeconfig, instead of client certificates",
    )
    .option(
      "--validity-period <duration>",
      `The validity period of the client certificate. It is an offset from the current time. (default 8760h0m0s)`,
    )
    .action((_opts: unknown, cmd: Command) => runUser(cmd));
}
