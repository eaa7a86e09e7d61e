/**
 * `kubeadm config`: print defaults (`print init|join|reset|upgrade-defaults`), validate and
 * migrate configuration files, and list or pull the images kubeadm uses (`images list|pull`),
 * with upstream's flags (`--kubeconfig` on `config` for every sub-command) and output.
 * Heavy modules load when a command runs.
 *
 * @module
 */
import type { Command } from "commander";
import type { DirectCommand } from "../command_list.ts";
import type { ContainerRuntime } from "../../core/ports/container_runtime.ts";
import type { Printer } from "../../core/ports/printer.ts";
import { addFlags, type FlagName, type FlagValues, flagValues, inputsOf } from "../flags.ts";
import { resolveObjectOutput, writeObject } from "../object_output.ts";
import { consolePrinter, writeStdout } from "../output.ts";
import { requireSubcommand } from "../usage.ts";

/** What a test can hand to {@link registerConfig} instead of this machine. */
export interface ConfigCommandDeps {
  /** Output (default: stdout, warnings to stderr). */
  out?: Printer;
  /** The container runtime behind a CRI socket (default: the CRI client on the socket). */
  containerRuntime?: (socket: string) => ContainerRuntime;
}

const API_VERSION_NOTE = `The kubeadm configuration API version this kubeadm reads and writes is
kubeadm.k8s.io/v1beta4 (kubeadm.k8s.io/v1 only with --allow-experimental-api).`;

/** Host facts for dynamic defaults: this machine's name and default address (or a stand-in). */
async function hostFacts(rootfs: string, address?: string) {
  const { defaultAdvertiseAddress, readHostFacts } = await import(
    "../../adapters/deno/host/facts.ts"
  );
  return {
    hostname: readHostFacts(rootfs).hostname,
    defaultAdvertiseAddress: defaultAdvertiseAddress(address) ?? "",
  };
}

/**
 * The configuration `config images list|pull` work on: the `--config` file (whose values win;
 * the image flags are then not used, as upstream), else the flags over the defaults.
 */
async function imagesConfig(flags: FlagValues) {
  const { resolveInitConfig } = await import("../../core/config/resolve.ts");
  const { platform } = await import("../adapters.ts");
  const { loadConfigFile } = await import("../config_file.ts");
  const text = flags.config ? await loadConfigFile(flags.config) : undefined;
  const { config, warnings } = resolveInitConfig({
    text,
    source: flags.config,
    inputs: text === undefined ? inputsOf(flags) : undefined,
    host: await hostFacts(flags.rootfs ?? "/", "192.0.2.1"),
    random: platform.random,
    log: consolePrinter.log,
  });
  return { config, warnings };
}

async function runImagesList(c: Command, out: Printer): Promise<void> {
  const flags = flagValues(c);
  const output = await resolveObjectOutput(flags);
  const { config, warnings } = await imagesConfig(flags);
  for (const w of warnings) out.warn(w);
  const { controlPlaneImages } = await import("../../core/preflight/checks/container_runtime.ts");
  const images = controlPlaneImages(config.cluster, out.log);
  if (output.kind === "text") {
    writeStdout(`${images.join("\n")}\n`);
    return;
  }
  const { OUTPUT_API_VERSION } = await import("../../core/text/structured_output.ts");
  const list = { kind: "Images", apiVersion: OUTPUT_API_VERSION, images };
  await writeObject(output, list, "unable to print images");
}

async function runImagesPull(c: Command, deps: ConfigCommandDeps): Promise<void> {
  const out = deps.out ?? consolePrinter;
  const flags = flagValues(c);
  const { config, warnings } = await imagesConfig(flags);
  for (const w of warnings) out.warn(w);
  const { controlPlaneImages } = await import("../../core/preflight/checks/container_runtime.ts");
  const { KubeadmError, errorMessage } = await import("../../core/errors.ts");
  const socket = config.init.nodeRegistration.criSocket;
  let runtime: ContainerRuntime;
  if (deps.containerRuntime) {
    runtime = deps.containerRuntime(socket);
  } else {
    const { nodeHost } = await import("../adapters.ts");
    runtime = (await nodeHost(flags.rootfs ?? "/", {})).machine.containerRuntime(socket);
  }
  try {
    await runtime.connect();
  } catch (e) {
    throw new KubeadmError(
      `failed to create new CRI runtime service: ${errorMessage(e)}`,
      { field: "--cri-socket", value: socket, cause: e },
    );
  }
  // Every image is pulled (no presence check), one at a time, as upstream.
  for (const image of controlPlaneImages(config.cluster)) {
    try {
      await runtime.pullImage(image);
    } catch (e) {
      throw new KubeadmError(`failed to pull image ${JSON.stringify(image)}: ${errorMessage(e)}`, {
        value: image,
        cause: e,
      });
    }
    out.info(`[config/images] Pulled ${image}`);
  }
}

async function runMigrate(c: Command, out: Printer): Promise<void> {
  const flags = flagValues(c);
  const { FlagError, KubeadmError, errorMessage } = await import("../../core/errors.ts");
  if (!flags["old-config"]) {
    throw new FlagError("the --old-config flag is mandatory", { field: "--old-config" });
  }
  const { readConfigFile } = await import("../config_file.ts");
  const { migrateConfig } = await import("../../core/config/migrate.ts");
  const { platform } = await import("../adapters.ts");
  const text = await readConfigFile(flags["old-config"], "--old-config");
  const result = migrateConfig(text, {
    source: flags["old-config"],
    host: await hostFacts(flags.rootfs ?? "/"),
    random: platform.random,
    log: out.log,
    allowExperimental: flags["allow-experimental-api"],
  });
  for (const w of result.warnings) out.warn(w);
  const path = flags["new-config"];
  if (!path) {
    writeStdout(result.text);
    return;
  }
  const { writeOutputFile } = await import("../../adapters/deno/fs/output_file.ts");
  try {
    await writeOutputFile(path, result.text);
  } catch (e) {
    throw new KubeadmError(
      `failed to write the new configuration to the file ${JSON.stringify(path)}: ${
        errorMessage(e)
      }`,
      { field: "--new-config", value: path, cause: e },
    );
  }
}

async function runValidate(c: Command, out: Printer): Promise<void> {
  const flags = flagValues(c);
  const { FlagError } = await import("../../core/errors.ts");
  if (!flags.config) throw new FlagError("the --config flag is mandatory", { field: "--config" });
  const { readConfigFile } = await import("../config_file.ts");
  const { validateConfigFile } = await import("../../core/config/validate_file.ts");
  const { platform } = await import("../adapters.ts");
  // Host-dependent defaults only need plausible values to validate a file.
  const warnings = validateConfigFile(await readConfigFile(flags.config), {
    source: flags.config,
    host: await hostFacts(flags.rootfs ?? "/", "192.0.2.1"),
    random: platform.random,
    log: out.log,
    allowDeprecated: flags["allow-deprecated-api"],
    allowExperimental: flags["allow-experimental-api"],
  });
  for (const w of warnings) out.warn(w);
  out.info("ok");
}

/** A `config print <name>` command: its help, its own flags and the text it prints. */
interface ConfigPrinter {
  name: string;
  short: string;
  flags: readonly FlagName[];
  text(flags: FlagValues): Promise<string>;
}

/** The `config print` commands. */
const CONFIG_PRINTERS: readonly ConfigPrinter[] = [
  {
    name: "init-defaults",
    short: "Print default init configuration, that can be used for 'kubeadm init'",
    flags: ["component-configs"],
    async text(flags) {
      const { printInitDefaults } = await import("../../core/config/print.ts");
      return printInitDefaults({
        componentConfigs: flags["component-configs"] ?? [],
        log: consolePrinter.log,
      });
    },
  },
  {
    name: "join-defaults",
    short: "Print default join configuration, that can be used for 'kubeadm join'",
    flags: [],
    async text(flags) {
      const { printJoinDefaults } = await import("../../core/config/print.ts");
      return printJoinDefaults((await hostFacts(flags.rootfs ?? "/", "")).hostname);
    },
  },
  {
    name: "reset-defaults",
    short: "Print default reset configuration, that can be used for 'kubeadm reset'",
    flags: [],
    text: async () => (await import("../../core/config/print.ts")).printResetDefaults(),
  },
  {
    name: "upgrade-defaults",
    short: "Print default upgrade configuration, that can be used for 'kubeadm upgrade'",
    flags: [],
    text: async () => (await import("../../core/config/print.ts")).printUpgradeDefaults(),
  },
];

/**
 * `kubeadm config <path…>` without commander (`cli/direct.ts`): the `print` commands, with
 * `config`'s `--kubeconfig`; `undefined` for the others.
 */
export function directConfigCommand(path: readonly string[]): DirectCommand | undefined {
  const p = path.length === 2 && path[0] === "print"
    ? CONFIG_PRINTERS.find((x) => x.name === path[1])
    : undefined;
  if (!p) return undefined;
  return {
    flags: [...p.flags, "kubeconfig"],
    run: async (given) => writeStdout(await p.text(given.values())),
  };
}

/** Registers `config` and its sub-commands. */
export function registerConfig(program: Command, deps: ConfigCommandDeps = {}): void {
  const out = deps.out ?? consolePrinter;
  const config = requireSubcommand(addFlags(
    program.command("config")
      .summary(
        "Manage configuration for a kubeadm cluster persisted in a ConfigMap in the cluster",
      )
      .description(
        `kubeadm keeps the cluster's configuration in the "kubeadm-config" ConfigMap of the
kube-system namespace: 'kubeadm init' stores it, 'kubeadm join' and 'kubeadm upgrade' read
it. These commands print, check and convert configuration files, and list or pull the
images a configuration uses.`,
      ),
    ["kubeconfig"],
    "config",
  ));
  const sub = (parent: Command, name: string, short: string, long?: string) =>
    addFlags(
      parent.command(name).summary(short).description(long ?? short),
      ["kubeconfig"],
      "config",
      { inherited: true },
    );

  const print = requireSubcommand(sub(
    config,
    "print",
    "Print configuration",
    `Prints the default configuration of a kubeadm command, as a starting point for a
configuration file. Bootstrap tokens are shown as the placeholder "abcdef.0123456789abcdef".`,
  ));
  for (const p of CONFIG_PRINTERS) {
    addFlags(sub(print, p.name, p.short), p.flags, "config").action(async (_o, c: Command) =>
      writeStdout(await p.text(flagValues(c)))
    );
  }

  addFlags(
    sub(
      config,
      "migrate",
      "Read an older version of the kubeadm configuration API types from a file, and output the similar config object for the newer version",
      `Reads the configuration file --old-config, converts, defaults and validates it as kubeadm
would, and writes it in the current API version to --new-config (or stdout). Nothing in
the cluster is touched.

${API_VERSION_NOTE}`,
    ),
    ["old-config", "new-config", "allow-experimental-api"],
    "config migrate",
  ).action(async (_o, c: Command) => await runMigrate(c, out));

  addFlags(
    sub(
      config,
      "validate",
      "Read a file containing the kubeadm configuration API and report any validation problems",
      `Reads the configuration file --config as the command that takes each document would, and
reports warnings and errors: unknown API versions, kinds or fields, and invalid values.
The exit status is zero when there are no errors.

${API_VERSION_NOTE}`,
    ),
    ["config", "allow-deprecated-api", "allow-experimental-api"],
    "config",
  ).action(async (_o, c: Command) => await runValidate(c, out));

  const images = requireSubcommand(
    sub(config, "images", "Interact with container images used by kubeadm"),
  );
  const IMAGE_FLAGS = ["config", "feature-gates", "image-repository", "kubernetes-version"];
  addFlags(
    sub(
      images,
      "list",
      "Print a list of images kubeadm will use. The configuration file is used in case any images or image repositories are customized",
    ),
    [...IMAGE_FLAGS, "output", "allow-missing-template-keys", "show-managed-fields"],
    "config images",
  ).action(async (_o, c: Command) => await runImagesList(c, out));
  addFlags(
    sub(images, "pull", "Pull images used by kubeadm"),
    [...IMAGE_FLAGS, "cri-socket"],
    "config images",
  ).action(async (_o, c: Command) => await runImagesPull(c, deps));
}
