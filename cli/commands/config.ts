/**
 * `kubeadm config`: print defaults, validate and migrate configuration files.
 *
 * @module
 */
import type { Command } from "commander";
import { addFlags, flagValues } from "../flags.ts";
import { stderr, stdout } from "../output.ts";
import { readConfigFile } from "../config_file.ts";

/** Registers `config` and its sub-commands. */
export function registerConfig(program: Command): void {
  const config = program.command("config").description(
    "Manage configuration for a kubeadm cluster persisted in a ConfigMap in the cluster",
  );
  const print = config.command("print").description("Print configuration");
  const initDefaults = print.command("init-defaults")
    .description("Print default init configuration, that can be used for 'kubeadm init'");
  addFlags(initDefaults, ["component-configs"], "config").action(async (_o, c: Command) => {
    const { printInitDefaults } = await import("../../core/config/print.ts");
    Deno.stdout.writeSync(
      new TextEncoder().encode(
        printInitDefaults({ componentConfigs: flagValues(c)["component-configs"] ?? [] }),
      ),
    );
  });
  const validate = config.command("validate")
    .description(
      "Read a file containing the kubeadm configuration API and report any validation problems",
    );
  addFlags(validate, ["allow-deprecated-api", "allow-experimental-api", "config"], "config")
    .action(async (_o, c: Command) => {
      const opts = flagValues(c);
      const { FlagError } = await import("../../core/errors.ts");
      if (!opts.config) {
        throw new FlagError("the --config flag is mandatory", { field: "--config" });
      }
      const { validateConfigFile } = await import("../../core/config/validate_file.ts");
      const { webRandom } = await import("../../core/host/ports.ts");
      const { readHostFacts } = await import("../../runtime/host/facts.ts");
      // Host-dependent defaults only need plausible values to validate a file.
      const warnings = validateConfigFile(await readConfigFile(opts.config), {
        source: opts.config,
        host: { hostname: readHostFacts().hostname, defaultAdvertiseAddress: "192.0.2.1" },
        random: webRandom,
        allowDeprecated: opts["allow-deprecated-api"],
        allowExperimental: opts["allow-experimental-api"],
      });
      for (const w of warnings) stderr(w);
      stdout("ok");
    });
}
