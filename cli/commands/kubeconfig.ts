/**
 * `kubeadm kubeconfig user`: prints a kubeconfig for an additional user of the cluster (a new
 * client certificate signed by the cluster CA, or a token), as upstream.
 *
 * @module
 */
import type { Command } from "commander";
import { addFlags, durationValue, type FlagName, flagValues } from "../flags.ts";
import { stderr, writeStdout } from "../output.ts";

/** The flags of `kubeconfig user`. */
const USER_FLAGS: readonly FlagName[] = [
  "client-name",
  "config",
  "org",
  "token",
  "validity-period",
];

/** Upstream's default `--validity-period`. */
const DEFAULT_VALIDITY = "8760h0m0s";

async function runUser(cmd: Command): Promise<void> {
  const flags = flagValues(cmd);
  const { KubeadmError } = await import("../../core/errors.ts");
  const clientName = flags["client-name"];
  if (!clientName) {
    throw new KubeadmError(`required flag(s) "client-name" not set`, { field: "--client-name" });
  }
  const validityMs = durationValue(flags, "validity-period", DEFAULT_VALIDITY)!;
  const { loadOrDefaultConfig } = await import("../certs_runtime.ts");
  const { nodeFiles, platform } = await import("../adapters.ts");
  const { userKubeconfig } = await import("../../core/kubeconfig/user.ts");
  const cfg = await loadOrDefaultConfig(flags.config, {}, stderr);
  const now = platform.clock.now();
  const text = await userKubeconfig({
    cfg,
    files: await nodeFiles(flags.rootfs),
    clientName,
    organizations: flags.org ?? [],
    token: flags.token || undefined,
    validityMs,
    startTime: now,
    now,
    random: platform.random,
    crypto: platform.crypto,
    warn: stderr,
  });
  // Upstream prints the serialized kubeconfig with Println: one more newline.
  writeStdout(`${text}\n`);
}

/** Registers `kubeconfig user`, its flags drawn from the registry. */
export function registerKubeconfig(program: Command): void {
  const kubeconfig = program.command("kubeconfig").description("Kubeconfig file utilities.");
  addFlags(
    kubeconfig.command("user")
      .summary("Output a kubeconfig file for an additional user")
      .description(
        `Output a kubeconfig file for an additional user.

Examples:
  # Output a kubeconfig file for an additional user named foo
  kubeadm kubeconfig user --client-name=foo

  # Output a kubeconfig file for an additional user named foo using a kubeadm config file bar
  kubeadm kubeconfig user --client-name=foo --config=bar`,
      ),
    USER_FLAGS,
    "kubeconfig",
  ).action((_opts: unknown, cmd: Command) => runUser(cmd));
}
