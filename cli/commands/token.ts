/**
 * `kubeadm token`: bootstrap token management (`create`, `list`, `delete`, `generate`), with
 * upstream's flags, defaults, output formats and messages. Heavy modules load lazily.
 *
 * @module
 */
import type { Command } from "commander";
import { collectList } from "../flags.ts";
import { consolePrinter, stdout } from "../output.ts";
import type { TokenCommonFlags } from "../token_runtime.ts";

/** Flags of `token create` (only those the user set are present). */
interface CreateFlags extends TokenCommonFlags {
  config?: string;
  description?: string;
  groups?: string[];
  ttl?: string;
  usages?: string[];
  printJoinCommand?: boolean;
  certificateKey?: string;
}

/** Upstream's token and token-id patterns, as printed in messages. */
const TOKEN_PATTERN = "\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z";
const TOKEN_ID_PATTERN = "\\A([a-z0-9]{6})\\z";

function setFlagNames(cmd: Command): string[] {
  const names: string[] = [];
  for (const c of [cmd, cmd.parent, cmd.parent?.parent]) {
    for (const opt of c?.options ?? []) {
      if (c!.getOptionValueSource(opt.attributeName()) === "cli") {
        names.push(opt.long!.replace(/^--(no-)?/, ""));
      }
    }
  }
  return names;
}

function commonFlags(cmd: Command): TokenCommonFlags {
  const all = cmd.optsWithGlobals() as TokenCommonFlags & Record<string, unknown>;
  return { kubeconfig: all.kubeconfig, dryRun: all.dryRun === true, rootfs: all.rootfs };
}

async function runCreate(tokenArg: string | undefined, cmd: Command): Promise<void> {
  const { KubeadmError } = await import("../../core/errors.ts");
  const { validateMixedArguments } = await import("../../core/config/mixed_flags.ts");
  const flags = { ...cmd.opts(), ...commonFlags(cmd) } as CreateFlags;
  if (flags.certificateKey && !flags.printJoinCommand) {
    throw new KubeadmError("cannot use --certificate-key without --print-join-command", {
      field: "--certificate-key",
    });
  }
  validateMixedArguments(setFlagNames(cmd));
  const { webRandom, systemClock } = await import("../../core/host/ports.ts");
  let tokens;
  if (flags.config) {
    tokens = await tokensFromConfig(flags.config, flags.rootfs);
  } else {
    const { tokenForCreate } = await import("../../core/config/token_create.ts");
    tokens = [tokenForCreate({
      token: tokenArg,
      ttl: flags.ttl,
      usages: flags.usages,
      groups: flags.groups,
      description: flags.description,
    }, webRandom)];
  }
  const { connectToken } = await import("../token_runtime.ts");
  const { updateOrCreateTokens } = await import("../../core/cluster/bootstrap_token.ts");
  const conn = await connectToken(flags, consolePrinter);
  try {
    await updateOrCreateTokens(conn.client, tokens, systemClock.now(), { failIfExists: true });
    const token = tokens[0].token!;
    if (!flags.printJoinCommand) {
      stdout(token);
      return;
    }
    const { flattenJoinCommand, joinCommandFromKubeconfig } = await import(
      "../../core/cluster/join_command.ts"
    );
    const command = await joinCommandFromKubeconfig(conn.kubeconfig, {
      token,
      controlPlane: Boolean(flags.certificateKey),
      certificateKey: flags.certificateKey || undefined,
    }).catch((e) => {
      throw new KubeadmError(`failed to get join command: ${(e as Error).message}`, { cause: e });
    });
    stdout(flattenJoinCommand(command));
  } finally {
    conn.close();
  }
}

async function tokensFromConfig(path: string, rootfs: string | undefined) {
  const { resolveInitConfig } = await import("../../core/config/resolve.ts");
  const { webRandom } = await import("../../core/host/ports.ts");
  const { detectDefaultAddress, readHostFacts } = await import("../../runtime/host/facts.ts");
  const { KubeadmError } = await import("../../core/errors.ts");
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new KubeadmError(`unable to read config from "${path}"`, {
      field: "--config",
      value: path,
      hint: e instanceof Deno.errors.NotFound ? "the file does not exist" : String(e),
      cause: e,
    });
  }
  const facts = readHostFacts(rootfs ?? "/");
  const { config, warnings } = resolveInitConfig({
    text,
    source: path,
    host: {
      hostname: facts.hostname,
      defaultAdvertiseAddress: detectDefaultAddress() ?? "",
      systemdResolvedActive: false,
    },
    random: webRandom,
  });
  for (const w of warnings) consolePrinter.warn(w);
  return config.init.bootstrapTokens;
}

async function runList(cmd: Command): Promise<void> {
  const { KubeadmError } = await import("../../core/errors.ts");
  const format = (cmd.opts().output as string | undefined) ?? "text";
  const list = await import("../../core/bootstraptoken/list_format.ts");
  if (!list.TOKEN_LIST_FORMATS.includes(format)) {
    throw new KubeadmError(
      `unable to match a printer suitable for the output format ${
        JSON.stringify(format)
      }, allowed formats are: ${list.TOKEN_LIST_FORMATS.join(",")}`,
      { field: "--output", value: format },
    );
  }
  const { BOOTSTRAP_TOKEN_SECRET_TYPE, tokenFromSecret } = await import(
    "../../core/bootstraptoken/secret.ts"
  );
  const { systemClock } = await import("../../core/host/ports.ts");
  const { connectToken } = await import("../token_runtime.ts");
  const conn = await connectToken(commonFlags(cmd), consolePrinter);
  try {
    const secrets = await conn.client.list<import("kubernetes-types/core/v1.d.ts").Secret>(
      "Secret",
      { namespace: "kube-system", fieldSelector: `type=${BOOTSTRAP_TOKEN_SECRET_TYPE}` },
    ).catch((e) => {
      throw new KubeadmError(`failed to list bootstrap tokens: ${(e as Error).message}`, {
        cause: e,
      });
    });
    const tokens = [];
    for (const s of secrets) {
      if (s.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) continue;
      try {
        tokens.push(tokenFromSecret(s));
      } catch (e) {
        // Upstream prints the decoding error without a newline and carries on.
        Deno.stderr.writeSync(new TextEncoder().encode((e as Error).message));
      }
    }
    const text = format === "json"
      ? list.formatTokenListJson(tokens)
      : format === "yaml"
      ? list.formatTokenListYaml(tokens)
      : list.formatTokenListText(tokens, systemClock.now());
    if (text) Deno.stdout.writeSync(new TextEncoder().encode(text));
  } finally {
    conn.close();
  }
}

async function runDelete(args: string[], cmd: Command): Promise<void> {
  const { KubeadmError, errorMessage } = await import("../../core/errors.ts");
  if (args.length === 0) {
    throw new KubeadmError(
      `missing argument; 'token delete' is missing token of form ${
        JSON.stringify(TOKEN_PATTERN)
      } or ${JSON.stringify(TOKEN_ID_PATTERN)}`,
    );
  }
  const { isValidTokenId, parseToken, tokenSecretName } = await import(
    "../../core/bootstraptoken/token.ts"
  );
  const ids = args.map((arg) => {
    if (isValidTokenId(arg)) return arg;
    try {
      return parseToken(arg).id;
    } catch {
      throw new KubeadmError(
        `given token didn't match pattern ${JSON.stringify(TOKEN_PATTERN)} or ${
          JSON.stringify(TOKEN_ID_PATTERN)
        }`,
      );
    }
  });
  const { connectToken } = await import("../token_runtime.ts");
  const conn = await connectToken(commonFlags(cmd), consolePrinter);
  try {
    for (const id of ids) {
      try {
        await conn.client.delete({
          kind: "Secret",
          namespace: "kube-system",
          name: tokenSecretName(id),
        });
      } catch (e) {
        throw new KubeadmError(
          `failed to delete bootstrap token ${JSON.stringify(id)}: ${errorMessage(e)}`,
          { cause: e, hint: e instanceof KubeadmError ? e.hint : undefined },
        );
      }
      stdout(`bootstrap token ${JSON.stringify(id)} deleted`);
    }
  } finally {
    conn.close();
  }
}

/** Registers `token` and its sub-commands. */
export function registerToken(program: Command): void {
  const token = program.command("token")
    .description("Manage bootstrap tokens")
    .option(
      "--kubeconfig <file>",
      "The kubeconfig file to use when talking to the cluster. If the flag is not set, a set of standard locations can be searched for an existing kubeconfig file.",
    )
    .option("--dry-run", "Whether to enable dry-run mode or not")
    .option("--no-dry-run", "(pflag compatibility)")
    .argument("[subcommand]")
    .action(async (sub: string | undefined) => {
      const { KubeadmError } = await import("../../core/errors.ts");
      throw new KubeadmError(
        sub === undefined
          ? `missing subcommand; "token" is not meant to be run on its own`
          : `invalid subcommand: ${JSON.stringify(sub)}`,
      );
    });

  token.command("create")
    .description("Create bootstrap tokens on the server")
    .argument("[token]")
    .option("--config <file>", "Path to a kubeadm configuration file.")
    .option(
      "--description <text>",
      "A human friendly description of how this token is used.",
    )
    .option(
      "--groups <groups>",
      'Extra groups that this token will authenticate as when used for authentication. Must match "\\\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\\\z" (default [system:bootstrappers:kubeadm:default-node-token])',
      collectList,
    )
    .option(
      "--ttl <duration>",
      "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire (default 24h0m0s)",
    )
    .option(
      "--usages <usages>",
      "Describes the ways in which this token can be used. You can pass --usages multiple times or provide a comma separated list of options. Valid options: [signing,authentication] (default [signing,authentication])",
      collectList,
    )
    .option(
      "--print-join-command",
      "Instead of printing only the token, print the full 'kubeadm join' flag needed to join the cluster using the token.",
    )
    .option("--no-print-join-command", "(pflag compatibility)")
    .option(
      "--certificate-key <key>",
      "When used together with '--print-join-command', print the full 'kubeadm join' flag needed to join the cluster as a control-plane. To create a new certificate key you must use 'kubeadm init phase upload-certs --upload-certs'.",
    )
    .action(async (tokenArg: string | undefined, _opts: unknown, c: Command) =>
      await runCreate(tokenArg, c)
    );

  token.command("list")
    .description("List bootstrap tokens on the server")
    .option(
      "-o, --output <format>",
      'Output format. One of: text|json|yaml. (default "text")',
    )
    .option(
      "--allow-missing-template-keys",
      "If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats.",
    )
    .option("--no-allow-missing-template-keys", "(pflag compatibility)")
    .option(
      "--show-managed-fields",
      "If true, keep the managedFields when printing objects in JSON or YAML format.",
    )
    .option("--no-show-managed-fields", "(pflag compatibility)")
    .action(async (_opts: unknown, c: Command) => await runList(c));

  token.command("delete")
    .description("Delete bootstrap tokens on the server")
    .argument("[token-value...]")
    .action(async (args: string[], _opts: unknown, c: Command) => await runDelete(args, c));

  token.command("generate")
    .description("Generate and print a bootstrap token, but do not create it on the server")
    .action(async () => {
      const { generateToken } = await import("../../core/bootstraptoken/token.ts");
      const { webRandom } = await import("../../core/host/ports.ts");
      stdout(generateToken(webRandom));
    });
}
