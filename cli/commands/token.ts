/**
 * `kubeadm token`: bootstrap token management (`create`, `list`, `delete`, `generate`), with
 * upstream's flags, defaults, output formats and messages. Heavy modules load lazily.
 *
 * @module
 */
import type { Command } from "commander";
import { addFlags, flagValues, setFlagNames } from "../flags.ts";
import { resolveObjectOutput, writeObject } from "../object_output.ts";
import { consolePrinter, stdout, writeStderr, writeStdout } from "../output.ts";
import { requireSubcommand } from "../command.ts";
import { disableFlagsInUseLine, useArguments } from "../help.ts";
import type { TokenCommonFlags } from "../token_runtime.ts";

/** Upstream's token and token-id patterns, as printed in messages. */
const TOKEN_PATTERN = "\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z";
const TOKEN_ID_PATTERN = "\\A([a-z0-9]{6})\\z";

function commonFlags(cmd: Command): TokenCommonFlags {
  const flags = flagValues(cmd);
  return { kubeconfig: flags.kubeconfig, dryRun: flags["dry-run"] === true, rootfs: flags.rootfs };
}

/** A `[token]` line at `-v=1`, as upstream's token commands log their steps. */
function logStep(message: string): void {
  consolePrinter.log?.(1, "token.ts", `[token] ${message}`);
}

async function runCreate(tokenArg: string | undefined, cmd: Command): Promise<void> {
  const { KubeadmError } = await import("../../core/errors.ts");
  const { validateMixedArguments } = await import("../../core/config/mixed_flags.ts");
  const flags = flagValues(cmd);
  const create = {
    ...commonFlags(cmd),
    config: flags.config,
    certificateKey: flags["certificate-key"],
    printJoinCommand: flags["print-join-command"],
  };
  if (create.certificateKey && !create.printJoinCommand) {
    throw new KubeadmError("cannot use --certificate-key without --print-join-command", {
      field: "--certificate-key",
    });
  }
  logStep("validating mixed arguments");
  validateMixedArguments(setFlagNames(cmd));
  const { platform } = await import("../adapters.ts");
  // The token of the flags is checked before the kubeconfig is read (upstream parses it first
  // too); a --config file is loaded once connected, in upstream's order.
  let tokens;
  if (!flags.config) {
    const { tokenForCreate } = await import("../../core/config/token_create.ts");
    tokens = [tokenForCreate({
      token: tokenArg,
      ttl: flags.ttl,
      usages: flags.usages,
      groups: flags.groups,
      description: flags.description,
    }, platform.random)];
  }
  const { connectToken } = await import("../token_runtime.ts");
  const { updateOrCreateTokens } = await import("../../core/cluster/bootstrap_token.ts");
  logStep("getting Clientsets from kubeconfig file");
  const conn = await connectToken(create, consolePrinter);
  try {
    logStep("loading configurations");
    tokens ??= await tokensFromConfig(flags.config!, flags.rootfs);
    logStep("creating token");
    await updateOrCreateTokens(conn.client, tokens, platform.clock.now(), { failIfExists: true });
    const token = tokens[0].token!;
    if (!create.printJoinCommand) {
      stdout(token);
      return;
    }
    const { flattenJoinCommand, joinCommandFromKubeconfig } = await import(
      "../../core/cluster/join_command.ts"
    );
    const command = await joinCommandFromKubeconfig(conn.kubeconfig, {
      token,
      controlPlane: Boolean(create.certificateKey),
      certificateKey: create.certificateKey || undefined,
    }, platform.crypto).catch((e) => {
      throw new KubeadmError(`failed to get join command: ${(e as Error).message}`, { cause: e });
    });
    stdout(flattenJoinCommand(command));
  } finally {
    conn.close();
  }
}

async function tokensFromConfig(path: string, rootfs: string | undefined) {
  const { resolveInitConfig } = await import("../../core/config/resolve.ts");
  const { platform } = await import("../adapters.ts");
  const { detectDefaultAddress, readHostFacts } = await import("../../adapters/deno/host/facts.ts");
  const { loadConfigFile } = await import("../config_file.ts");
  const text = await loadConfigFile(path);
  const facts = readHostFacts(rootfs ?? "/");
  const { config, warnings } = resolveInitConfig({
    text,
    source: path,
    host: {
      hostname: facts.hostname,
      defaultAdvertiseAddress: detectDefaultAddress() ?? "",
    },
    random: platform.random,
    log: consolePrinter.log,
  });
  for (const w of warnings) consolePrinter.warn(w);
  return config.init.bootstrapTokens;
}

async function runList(cmd: Command): Promise<void> {
  const { KubeadmError } = await import("../../core/errors.ts");
  const list = await import("../../core/bootstraptoken/list_format.ts");
  const output = await resolveObjectOutput(flagValues(cmd));
  const { BOOTSTRAP_TOKEN_SECRET_TYPE, tokenFromSecret } = await import(
    "../../core/bootstraptoken/secret.ts"
  );
  const { platform } = await import("../adapters.ts");
  const { connectToken } = await import("../token_runtime.ts");
  const conn = await connectToken(commonFlags(cmd), consolePrinter);
  try {
    logStep("preparing selector for bootstrap token");
    logStep("retrieving list of bootstrap tokens");
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
        writeStderr((e as Error).message);
      }
    }
    if (output.kind === "template") {
      // One object per token, printed one after the other, as upstream.
      for (const t of tokens) {
        await writeObject(output, list.outputToken(t), `unable to print token ${t.token}`);
      }
      return;
    }
    const text = output.kind === "text"
      ? list.formatTokenListText(tokens, platform.clock.now())
      : list.formatTokenListStructured(tokens, output.format);
    if (text) writeStdout(text);
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
      // Every argument was parsed before connecting; the lines keep upstream's order.
      logStep("parsing token");
      logStep(`deleting token ${JSON.stringify(id)}`);
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

/** The flags of `token` that every `token` sub-command accepts too (upstream's persistent flags). */
const TOKEN_FLAGS = ["kubeconfig", "dry-run"] as const;

/** Registers `token` and its sub-commands. */
export function registerToken(program: Command): void {
  const token = requireSubcommand(addFlags(
    program.command("token").description("Manage bootstrap tokens"),
    TOKEN_FLAGS,
    "token",
  ));
  const inherited = (cmd: Command) => addFlags(cmd, TOKEN_FLAGS, "token", { inherited: true });

  addFlags(
    inherited(
      disableFlagsInUseLine(
        token.command("create")
          .description("Create bootstrap tokens on the server")
          .argument("[token]"),
      ),
    ),
    [
      "config",
      "description",
      "groups",
      "ttl",
      "usages",
      "print-join-command",
      "certificate-key",
    ],
    "token",
  ).action(async (tokenArg: string | undefined, _opts: unknown, c: Command) =>
    await runCreate(tokenArg, c)
  );

  addFlags(
    inherited(token.command("list").description("List bootstrap tokens on the server")),
    ["output", "allow-missing-template-keys", "show-managed-fields"],
    "token",
  ).action(async (_opts: unknown, c: Command) => await runList(c));

  inherited(
    useArguments(
      disableFlagsInUseLine(
        token.command("delete")
          .description("Delete bootstrap tokens on the server")
          .argument("[token-value...]"),
      ),
      "[token-value] ...",
    ),
  ).action(async (args: string[], _opts: unknown, c: Command) => await runDelete(args, c));

  inherited(
    token.command("generate")
      .description("Generate and print a bootstrap token, but do not create it on the server"),
  ).action(async () => {
    logStep("generating random token");
    const { generateToken } = await import("../../core/bootstraptoken/token.ts");
    const { platform } = await import("../adapters.ts");
    stdout(generateToken(platform.random));
  });
}
