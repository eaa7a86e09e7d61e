/**
 * `kubeadm join phase preflight [api-server-endpoint]`: the join preflight checks on their own.
 *
 * For `--control-plane`, the control-plane checks need the cluster's configuration, which
 * `kubeadm join` gets through discovery. Until the join command provides it (the
 * `controlPlaneConfig` dependency), a ClusterConfiguration document in the `--config` file is
 * used instead.
 *
 * @module
 */
import type { Command } from "commander";
import { collectList } from "../flags.ts";
import { consolePrinter } from "../output.ts";
import type { Printer } from "../../core/host/ports.ts";
import type { JoinConfiguration, ResolvedInitConfig } from "../../core/config/types.ts";
import type { JoinPreflightConfig } from "../../core/preflight/join.ts";
import type { PreflightHost } from "../../core/preflight/host.ts";

/** What the join command (or a test) can supply. */
export interface JoinPreflightDeps {
  out?: Printer;
  /** The machine (default: the Deno host under `--rootfs`). */
  host?: (rootfs: string) => PreflightHost;
  /** The cluster configuration for this control-plane node, from discovery. */
  controlPlaneConfig?: (cfg: JoinPreflightConfig) => Promise<ResolvedInitConfig>;
}

/** Boolean flags of `join phase preflight` that accept pflag's `--flag=false` form. */
export const JOIN_PREFLIGHT_BOOL_FLAGS: ReadonlySet<string> = new Set([
  "dry-run",
  "control-plane",
  "discovery-token-unsafe-skip-ca-verification",
]);

interface Opts {
  config?: string;
  criSocket?: string;
  nodeName?: string;
  ignorePreflightErrors?: string[];
  controlPlane?: boolean;
  dryRun?: boolean;
  output?: string;
  certificateKey?: string;
  apiserverAdvertiseAddress?: string;
  apiserverBindPort?: string;
  discoveryFile?: string;
  rootfs?: string;
}

async function readConfig(path: string): Promise<string> {
  const { FlagError } = await import("../../core/errors.ts");
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    throw new FlagError(`unable to read config from "${path}"`, {
      field: "--config",
      value: path,
      hint: e instanceof Deno.errors.NotFound ? "the file does not exist" : String(e),
      cause: e,
    });
  }
}

async function run(cmd: Command, endpoint: string | undefined, deps: JoinPreflightDeps) {
  const { FlagError } = await import("../../core/errors.ts");
  const { DEFAULT_CRI_SOCKET, DEFAULT_CERTIFICATES_DIR } = await import("../../core/constants.ts");
  const { runJoinPreflight } = await import("../../core/preflight/join.ts");
  const opts = cmd.optsWithGlobals() as Opts;
  const out = deps.out ?? consolePrinter;
  const output = opts.output ?? "text";
  if (output !== "text" && output !== "json") {
    throw new FlagError(`invalid output format ${JSON.stringify(output)}`, {
      field: "--output",
      value: output,
      hint: "use text or json",
    });
  }
  const rootfs = opts.rootfs ?? "/";
  const text = opts.config ? await readConfig(opts.config) : undefined;
  let join: JoinConfiguration | undefined;
  if (text !== undefined) {
    const { loadConfigDocuments } = await import("../../core/config/parse.ts");
    const loaded = loadConfigDocuments(text, { source: opts.config });
    join = loaded.join;
    if (!join) {
      throw new FlagError(`${opts.config}: no JoinConfiguration found`, {
        field: "--config",
        hint: "kubeadm join reads a kubeadm.k8s.io/v1beta4 JoinConfiguration document",
      });
    }
  }
  const { detectHostname } = await import("../../runtime/host/facts.ts");
  const reg = join?.nodeRegistration ?? {};
  const discoveryEndpoint = opts.discoveryFile || join?.discovery?.file
    ? undefined
    : endpoint ?? join?.discovery?.bootstrapToken?.apiServerEndpoint;
  const cfg: JoinPreflightConfig = {
    nodeName: (opts.nodeName ?? reg.name ?? detectHostname()).toLowerCase(),
    criSocket: opts.criSocket ?? reg.criSocket ?? DEFAULT_CRI_SOCKET,
    caCertPath: join?.caCertPath ?? `${DEFAULT_CERTIFICATES_DIR}/ca.crt`,
    controlPlane: opts.controlPlane ?? join?.controlPlane !== undefined,
    discoveryEndpoint,
    ignorePreflightErrors: reg.ignorePreflightErrors ?? [],
    certificateKey: opts.certificateKey ?? join?.controlPlane?.certificateKey,
    dryRun: opts.dryRun ?? join?.dryRun ?? false,
  };

  const host = deps.host?.(rootfs) ??
    new (await import("../../runtime/host/preflight_host.ts")).DenoPreflightHost({ root: rootfs });
  const controlPlaneConfig = async (): Promise<ResolvedInitConfig> => {
    if (deps.controlPlaneConfig) return await deps.controlPlaneConfig(cfg);
    const { resolveInitConfig } = await import("../../core/config/resolve.ts");
    const { webRandom } = await import("../../core/host/ports.ts");
    const { KubeadmError } = await import("../../core/errors.ts");
    if (text === undefined || !/\bkind:\s*ClusterConfiguration\b/.test(text)) {
      throw new KubeadmError(
        "the control-plane checks need the cluster's ClusterConfiguration, which comes from discovery",
        { hint: "run kubeadm join, or add a ClusterConfiguration document to --config" },
      );
    }
    const local = join?.controlPlane?.localAPIEndpoint;
    const { config } = resolveInitConfig({
      text,
      source: opts.config,
      strict: false,
      flags: {
        nodeName: cfg.nodeName,
        criSocket: cfg.criSocket,
        advertiseAddress: opts.apiserverAdvertiseAddress ?? local?.advertiseAddress,
        bindPort: opts.apiserverBindPort !== undefined
          ? Number(opts.apiserverBindPort)
          : local?.bindPort,
      },
      host: {
        hostname: cfg.nodeName,
        defaultAdvertiseAddress: opts.apiserverAdvertiseAddress ?? local?.advertiseAddress ??
          "",
        systemdResolvedActive: false,
      },
      random: webRandom,
    });
    return config;
  };
  await runJoinPreflight(cfg, host, {
    ignore: opts.ignorePreflightErrors ?? [],
    out,
    output,
    controlPlaneConfig,
  });
}

/** Adds `preflight [api-server-endpoint]` to an existing `join phase` command. */
export function addJoinPreflightPhase(joinPhase: Command, deps: JoinPreflightDeps = {}): Command {
  return joinPhase.command("preflight")
    .argument("[api-server-endpoint]")
    .summary("Run join pre-flight checks")
    .description("Run pre-flight checks for kubeadm join.")
    .option("--config <file>", "Path to a kubeadm configuration file.")
    .option(
      "--cri-socket <socket>",
      "Path to the CRI socket to connect. If empty kubeadm will try to auto-detect this value; use this option only if you have more than one CRI installed or if you have non-standard CRI socket.",
    )
    .option("--node-name <name>", "Specify the node name.")
    .option(
      "--ignore-preflight-errors <checks>",
      "A list of checks whose errors will be shown as warnings. Example: 'IsPrivilegedUser,Swap'. Value 'all' ignores errors from all checks.",
      collectList,
    )
    .option("--control-plane", "Create a new control plane instance on this node")
    .option("--no-control-plane", "(pflag compatibility)")
    .option("--dry-run", "Don't apply any changes; just output what would be done.")
    .option("--no-dry-run", "(pflag compatibility)")
    .option("-o, --output <format>", "Output format: text or json (a report of every check).")
    .option(
      "--certificate-key <key>",
      "Use this key to decrypt the certificate secrets uploaded by init. The certificate key is a hex encoded string that is an AES key of size 32 bytes.",
    )
    .option(
      "--apiserver-advertise-address <ip>",
      "If the node should host a new control plane instance, the IP address the API Server will advertise it's listening on. If not set the default network interface will be used.",
    )
    .option(
      "--apiserver-bind-port <port>",
      "If the node should host a new control plane instance, the port for the API Server to bind to. (default 6443)",
    )
    .option(
      "--discovery-file <file>",
      "For file-based discovery, a file or URL from which to load cluster information.",
    )
    .option(
      "--discovery-token <token>",
      "For token-based discovery, the token used to validate cluster information fetched from the API server.",
    )
    .option(
      "--discovery-token-ca-cert-hash <hash>",
      'For token-based discovery, validate that the root CA public key matches this hash (format: "<type>:<value>").',
      collectList,
    )
    .option(
      "--discovery-token-unsafe-skip-ca-verification",
      "For token-based discovery, allow joining without --discovery-token-ca-cert-hash pinning.",
    )
    .option(
      "--tls-bootstrap-token <token>",
      "Specify the token used to temporarily authenticate with the Kubernetes Control Plane while joining the node.",
    )
    .option(
      "--token <token>",
      "Use this token for both discovery-token and tls-bootstrap-token when those values are not provided.",
    )
    .action(async (endpoint: string | undefined, _o: unknown, c: Command) =>
      await run(c, endpoint, deps)
    );
}

/**
 * Registers `join phase preflight` on the root command, creating `join` and `join phase` when
 * the join command is not registered yet (otherwise reusing them).
 */
export function registerJoinPreflight(program: Command, deps: JoinPreflightDeps = {}): void {
  let join = program.commands.find((c) => c.name() === "join");
  if (!join) {
    join = program.command("join").description(
      "Run this on any machine you wish to join an existing cluster",
    );
  }
  let phase = join.commands.find((c) => c.name() === "phase");
  if (!phase) {
    phase = join.command("phase").description(
      'Use this command to invoke single phase of the "join" workflow',
    );
  }
  addJoinPreflightPhase(phase, deps);
}
