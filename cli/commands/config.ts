/**
 * `kubeadm config`: print defaults, validate and migrate configuration files.
 *
 * @module
 */
import type { Command } from "commander";
import { collectList } from "../flags.ts";
import { stderr, stdout } from "../output.ts";

/** Registers `config` and its sub-commands. */
export function registerConfig(program: Command): void {
  const config = program.command("config").description(
    "Manage configuration for a kubeadm cluster persisted in a ConfigMap in the cluster",
  );
  const print = config.command("print").description("Print configuration");
  print.command("init-defaults")
    .description("Print default init configuration, that can be used for 'kubeadm init'")
    .option(
      "--component-configs <kinds>",
      "A comma-separated list for component config API objects to print the default values for. Available values: [KubeProxyConfiguration KubeletConfiguration]. If this flag is not set, no component configs will be printed.",
      collectList,
    )
    .action(async (opts: { componentConfigs?: string[] }) => {
      const { printInitDefaults } = await import("../../core/config/print.ts");
      Deno.stdout.writeSync(
        new TextEncoder().encode(
          printInitDefaults({ componentConfigs: opts.componentConfigs ?? [] }),
        ),
      );
    });
  config.command("validate")
    .description(
      "Read a file containing the kubeadm configuration API and report any validation problems",
    )
    .option("--config <file>", "Path to a kubeadm configuration file.")
    .action(async (opts: { config?: string }) => {
      const { FlagError } = await import("../../core/errors.ts");
      if (!opts.config) {
        throw new FlagError("the --config flag is mandatory", { field: "--config" });
      }
      const { resolveInitConfig } = await import("../../core/config/resolve.ts");
      const { webRandom } = await import("../../core/host/ports.ts");
      const { readHostFacts } = await import("../../runtime/host/facts.ts");
      // Host-dependent defaults only need plausible values to validate a file.
      const { warnings } = resolveInitConfig({
        text: await Deno.readTextFile(opts.config),
        source: opts.config,
        host: { hostname: readHostFacts().hostname, defaultAdvertiseAddress: "192.0.2.1" },
        random: webRandom,
      });
      for (const w of warnings) stderr(w);
      stdout("ok");
    });
}
