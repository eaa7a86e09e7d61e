/**
 * The one flag registry of the command line: every flag any command or phase accepts, with
 * its type, value name, default, help (upstream's words, per command where upstream words it
 * differently) and parsing. Commands and phases only name the flags they accept; this module
 * adds them to commander (through the command's own `createOption`, so that this module does
 * not load commander itself) and reads them back, pflag-style:
 *
 * - `--flag=value` and `--flag value`; booleans as `--flag`, `--flag=false` (normalised for
 *   every command by {@link normaliseArgv}) or `--no-flag`;
 * - string slices repeated and/or comma-separated (`--ignore-preflight-errors a,b --… c`);
 * - typed values (`int32`, `duration`, `Level`, …) parsed when read, a bad one failing with
 *   pflag's `invalid argument "x" for "--flag" flag: …`, naming the flag (exit status 1, as
 *   upstream's flag parsing).
 *
 * @module
 */
import type { Command, Option } from "commander";
import { errorMessage, ExitCode, FlagError, KubeadmError } from "../core/errors.ts";
import { parseDuration, parseDurationNs } from "../core/text/duration.ts";
import { knownFeatures, parseFeatureGates } from "../core/config/features.ts";
import { OUTPUT_FORMAT_HELP } from "../core/text/output_format.ts";
import type { InputName, Inputs } from "../core/config/inputs.ts";
import type { AutoRenewalRequest } from "../core/certs/auto_renewal.ts";
import { AUTO_RENEWAL_PHASE } from "../core/constants.ts";

/** The commands whose flags come from the registry. */
export type CommandName =
  | "init"
  | "join"
  | "reset"
  | "token"
  | "config"
  | "version"
  | "discovery-check"
  | "kubeadm"
  | "config migrate"
  | "config images"
  | "completion"
  | "certs"
  | "certs auto-renewal"
  | "certs rotate-ca"
  | "generate-csr"
  | "kubeconfig"
  | "upgrade"
  | "upgrade apply"
  | "upgrade node"
  | "upgrade plan"
  | "upgrade diff";

/** How a flag's value is typed (pflag's kinds). */
type FlagType =
  | "string"
  | "bool"
  | "int32"
  | "int"
  | "stringSlice"
  | "stringArray"
  | "featureGates"
  | "duration"
  | "level"
  | "moduleSpec";

/** One flag. */
interface FlagSpec {
  type: FlagType;
  /** One-letter alias (`f` for `-f, --force`). */
  short?: string;
  /** Placeholder of the value in help (`ip` for `--apiserver-advertise-address <ip>`). */
  value?: string;
  /** Help text. */
  help: string;
  /** Help text for commands upstream words it differently for. */
  helpBy?: Partial<Record<CommandName, string>>;
  /** Default value applied by commander (most flags leave defaults to the configuration). */
  defaultBy?: Partial<Record<CommandName, string>>;
  /** Not a configuration value: never counted as mixed with `--config`. */
  notConfig?: boolean;
  /**
   * The input it gives a workflow (`core/config/inputs.ts`): the configuration field it sets
   * or the option of the run. Phases name their inputs; this binding names their flags.
   */
  input?: InputName;
}

const PATCHES_HELP = (targets: string) =>
  `Path to a directory that contains files named "target[suffix][+patchtype].extension". For example, "kube-apiserver0+merge.yaml" or just "etcd.json". "target" can be one of ${targets}. "patchtype" can be one of "strategic", "merge" or "json" and they match the patch formats supported by kubectl. The default "patchtype" is "strategic". "extension" must be either "json" or "yaml". "suffix" is an optional string that can be used to determine which patches are applied first alpha-numerically.`;
/** The targets upstream's `--patches` help names (every command, v1.37). */
const PATCH_TARGETS_HELP =
  '"kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kubeletconfiguration", "corednsdeployment", "kubeproxydaemonset"';

/** Every flag, by name. */
export const FLAGS = {
  "allow-deprecated-api": { type: "bool", help: "Allow validation of deprecated APIs." },
  "allow-experimental-api": {
    type: "bool",
    help: "Allow validation of experimental, unreleased APIs.",
    helpBy: { "config migrate": "Allow migration to experimental, unreleased APIs." },
  },
  "allow-experimental-upgrades": {
    input: "allowExperimentalUpgrades",
    type: "bool",
    help:
      "Show unstable versions of Kubernetes as an upgrade alternative and allow upgrading to an alpha/beta/release candidate versions of Kubernetes.",
  },
  "allow-release-candidate-upgrades": {
    input: "allowRCUpgrades",
    type: "bool",
    help:
      "Show release candidate versions of Kubernetes as an upgrade alternative and allow upgrading to a release candidate versions of Kubernetes.",
  },
  "allow-missing-template-keys": {
    type: "bool",
    help:
      "If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats. (default true)",
  },
  "apiserver-advertise-address": {
    input: "advertiseAddress",
    type: "string",
    value: "ip",
    help:
      "The IP address the API Server will advertise it's listening on. If not set the default network interface will be used.",
    helpBy: {
      join:
        "If the node should host a new control plane instance, the IP address the API Server will advertise it's listening on. If not set the default network interface will be used.",
    },
  },
  "apiserver-bind-port": {
    input: "bindPort",
    type: "int32",
    value: "port",
    help: "Port for the API Server to bind to. (default 6443)",
    helpBy: {
      join:
        "If the node should host a new control plane instance, the port for the API Server to bind to. (default 6443)",
    },
  },
  "apiserver-cert-extra-sans": {
    input: "certSANs",
    type: "stringSlice",
    value: "sans",
    help:
      "Optional extra Subject Alternative Names (SANs) to use for the API Server serving certificate. Can be both IP addresses and DNS names.",
  },
  "approve-kubelet-serving": {
    type: "bool",
    help:
      "Also approve the kubelets' pending serving certificate requests (kubernetes.io/kubelet-serving, serverTLSBootstrap: true) that a node made for its own Node's addresses; leave the others Pending (beyond upstream).",
    notConfig: true,
  },
  ca: {
    type: "string",
    value: "name",
    help:
      'The certificate authority to rotate: "ca" (the cluster CA), "front-proxy-ca" or "etcd-ca" (stacked etcd) (beyond upstream).',
    defaultBy: { "certs rotate-ca": "ca" },
    notConfig: true,
  },
  "ca-cert": {
    type: "string",
    value: "file",
    help:
      "The new CA certificate (PEM) to rotate to, with --ca-key; without both a new CA is generated (beyond upstream).",
    notConfig: true,
  },
  "ca-key": {
    type: "string",
    value: "file",
    help: "The private key (PEM) of --ca-cert (beyond upstream).",
    notConfig: true,
  },
  "cert-dir": {
    input: "certificatesDir",
    type: "string",
    value: "dir",
    help: `The path where to save and store the certificates. (default "/etc/kubernetes/pki")`,
    helpBy: {
      reset:
        `The path to the directory where the certificates are stored. If specified, clean this directory. (default "/etc/kubernetes/pki")`,
      certs: `The path where to save the certificates (default "/etc/kubernetes/pki")`,
      "generate-csr": "The path where to save the certificates",
    },
  },
  "certificate-auto-renewal": {
    input: "certificateAutoRenewal",
    type: "bool",
    help:
      "Install the certificate auto-renewal schedule on this control-plane node at the end: daily, renew the certificates expiring within 720h and restart what uses them ('kubeadm certs auto-renewal install' changes its settings; beyond upstream).",
    notConfig: true,
  },
  "certificate-key": {
    input: "certificateKey",
    type: "string",
    value: "key",
    help:
      "Key used to encrypt the control-plane certificates in the kubeadm-certs Secret. The certificate key is a hex encoded string that is an AES key of size 32 bytes.",
    helpBy: {
      join:
        "Use this key to decrypt the certificate secrets uploaded by init. The certificate key is a hex encoded string that is an AES key of size 32 bytes.",
      token:
        "When used together with '--print-join-command', print the full 'kubeadm join' flag needed to join the cluster as a control-plane. To create a new certificate key you must use 'kubeadm init phase upload-certs --upload-certs'.",
    },
  },
  "certificate-renewal": {
    input: "certificateRenewal",
    type: "bool",
    help:
      "Perform the renewal of certificates used by component changed during upgrades. (default true)",
  },
  "cleanup-tmp-dir": {
    input: "cleanupTmpDir",
    type: "bool",
    help: `Cleanup the "/etc/kubernetes/tmp" directory`,
  },
  "client-name": {
    type: "string",
    value: "name",
    help: "The name of user. It will be used as the CN if client certificates are created",
  },
  "cluster-info": {
    type: "string",
    value: "source",
    help:
      "The cluster-info ConfigMap (kubectl get cm cluster-info -n kube-public -o yaml|json): a file, an https:// URL (verified against the host's CA bundle), or - for stdin.",
  },
  "component-configs": {
    type: "stringSlice",
    value: "kinds",
    help:
      "A comma-separated list for component config API objects to print the default values for. Available values: [KubeProxyConfiguration KubeletConfiguration]. If this flag is not set, no component configs will be printed.",
  },
  config: {
    input: "config",
    type: "string",
    value: "file",
    help: "Path to a kubeadm configuration file.",
  },
  "context-lines": {
    type: "int",
    short: "c",
    value: "lines",
    help: "How many lines of context in the diff (default 3)",
  },
  "control-plane": {
    input: "controlPlane",
    type: "bool",
    help: "Create a new control plane instance on this node",
  },
  "control-plane-endpoint": {
    input: "controlPlaneEndpoint",
    type: "string",
    value: "endpoint",
    help: "Specify a stable IP address or DNS name for the control plane.",
  },
  "cri-socket": {
    input: "criSocket",
    type: "string",
    value: "socket",
    help:
      "Path to the CRI socket to connect. If empty kubeadm will try to auto-detect this value; use this option only if you have more than one CRI installed or if you have non-standard CRI socket.",
  },
  description: {
    type: "string",
    value: "text",
    help: "A human friendly description of how this token is used.",
  },
  "discovery-file": {
    input: "discoveryFile",
    type: "string",
    value: "file",
    help: "For file-based discovery, a file or URL from which to load cluster information.",
  },
  "discovery-token": {
    input: "discoveryToken",
    type: "string",
    value: "token",
    help:
      "For token-based discovery, the token used to validate cluster information fetched from the API server.",
  },
  "discovery-token-ca-cert-hash": {
    input: "caCertHashes",
    type: "stringSlice",
    value: "hash",
    help:
      'For token-based discovery, validate that the root CA public key matches this hash (format: "<type>:<value>").',
    helpBy: {
      "discovery-check":
        'The expected hash of the cluster CA public key (format: "sha256:<hex>"); repeatable.',
    },
  },
  "discovery-token-unsafe-skip-ca-verification": {
    input: "unsafeSkipCAVerification",
    type: "bool",
    help:
      "For token-based discovery, allow joining without --discovery-token-ca-cert-hash pinning.",
    helpBy: {
      "discovery-check": "Accept a signed cluster-info without checking the CA against a hash.",
    },
  },
  "dry-run": {
    input: "dryRun",
    type: "bool",
    help: "Don't apply any changes; just output what would be done.",
    helpBy: {
      token: "Whether to enable dry-run mode or not",
      certs: "Do not write anything: list the files each renewal would write (beyond upstream).",
      "certs auto-renewal": "Do not change anything: say what would be done (beyond upstream).",
      "certs rotate-ca":
        "Do not change anything: print the rotation's stage, its steps and what the next phase would write and restart (beyond upstream).",
      "upgrade apply": "Do not change any state, just output what actions would be performed.",
      "upgrade node": "Do not change any state, just output the actions that would be performed.",
    },
  },
  "etcd-upgrade": {
    input: "etcdUpgrade",
    type: "bool",
    help: "Perform the upgrade of etcd. (default true)",
  },
  "fail-if-expiring-within": {
    type: "string",
    value: "duration",
    help:
      `After printing, exit with status ${ExitCode.expiring} (and name them on stderr) when any certificate or CA expires within this duration or has expired, e.g. 720h; missing files do not count (beyond upstream).`,
    notConfig: true,
  },
  "feature-gates": {
    input: "featureGates",
    type: "featureGates",
    value: "gates",
    help:
      `A set of key=value pairs that describe feature gates for various features. Options are:\n${
        knownFeatures().join("\n")
      }`,
  },
  force: {
    input: "force",
    type: "bool",
    short: "f",
    help: "Reset the node without prompting for confirmation.",
    helpBy: {
      "upgrade apply":
        "Force upgrading although some requirements might not be met. This also implies non-interactive mode.",
    },
  },
  groups: {
    type: "stringSlice",
    value: "groups",
    help:
      'Extra groups that this token will authenticate as when used for authentication. Must match "\\\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\\\z" (default [system:bootstrappers:kubeadm:default-node-token])',
  },
  "ignore-preflight-errors": {
    input: "ignorePreflightErrors",
    type: "stringSlice",
    value: "checks",
    help:
      "A list of checks whose errors will be shown as warnings. Example: 'IsPrivilegedUser,Swap'. Value 'all' ignores errors from all checks.",
  },
  "image-repository": {
    input: "imageRepository",
    type: "string",
    value: "repo",
    help:
      `Choose a container registry to pull control plane images from (default "registry.k8s.io")`,
  },
  kubeconfig: {
    input: "kubeconfig",
    type: "string",
    value: "file",
    // Upstream shows admin.conf as the default everywhere, though an unset flag searches.
    help:
      `The kubeconfig file to use when talking to the cluster. If the flag is not set, a set of standard locations can be searched for an existing kubeconfig file. (default "/etc/kubernetes/admin.conf")`,
  },
  "kubeconfig-dir": {
    input: "kubeconfigDir",
    type: "string",
    value: "dir",
    help: `The path where to save the kubeconfig file. (default "/etc/kubernetes")`,
  },
  "kubernetes-version": {
    input: "kubernetesVersion",
    type: "string",
    value: "version",
    help: `Choose a specific Kubernetes version for the control plane. (default "stable-1")`,
  },
  "new-config": {
    type: "string",
    value: "file",
    help:
      "Path to the resulting equivalent kubeadm config file using the new API version. Optional, if not specified output will be sent to STDOUT.",
  },
  "node-name": { input: "nodeName", type: "string", value: "name", help: "Specify the node name." },
  "old-config": {
    type: "string",
    value: "file",
    help:
      "Path to the kubeadm config file that is using an old API version and should be converted. This flag is mandatory.",
  },
  org: {
    type: "stringSlice",
    value: "orgs",
    help:
      "The organizations of the client certificate. It will be used as the O if client certificates are created",
  },
  output: {
    input: "output",
    type: "string",
    short: "o",
    value: "format",
    help: "Output format: text or json (a report of every check).",
    helpBy: {
      token: `${OUTPUT_FORMAT_HELP} (default "text")`,
      version: "Output format; available options are 'yaml', 'json' and 'short'",
      "discovery-check": "Output format: text or json.",
      "config images": OUTPUT_FORMAT_HELP,
      certs: `${OUTPUT_FORMAT_HELP} (default "text")`,
      "certs auto-renewal": OUTPUT_FORMAT_HELP,
      "upgrade plan": `${OUTPUT_FORMAT_HELP} (default "text")`,
    },
    defaultBy: {
      version: "",
      "discovery-check": "text",
      "config images": "text",
      "certs auto-renewal": "text",
    },
    notConfig: true,
  },
  patches: {
    input: "patchesDir",
    type: "string",
    value: "dir",
    help: PATCHES_HELP(PATCH_TARGETS_HELP),
  },
  "pod-network-cidr": {
    input: "podSubnet",
    type: "string",
    value: "cidr",
    help:
      "Specify range of IP addresses for the pod network. If set, the control plane will automatically allocate CIDRs for every node.",
  },
  "print-config": {
    input: "printConfig",
    type: "bool",
    help:
      "Specifies whether the configuration file that will be used in the upgrade should be printed or not.",
  },
  "print-manifest": {
    input: "printManifest",
    type: "bool",
    help: "Print the addon manifests to STDOUT instead of installing them",
  },
  "print-join-command": {
    type: "bool",
    help:
      "Instead of printing only the token, print the full 'kubeadm join' flag needed to join the cluster using the token.",
  },
  restart: {
    type: "bool",
    help:
      "After renewing, restart the static Pods that read the renewed files, one at a time and etcd last, each waited for (mirror Pod Ready, health endpoint) and given its previous files back if it does not come back (beyond upstream).",
    notConfig: true,
  },
  rootfs: {
    type: "string",
    value: "dir",
    help: "The path to the 'real' host root filesystem (node paths are resolved under it)",
  },
  schedule: {
    type: "string",
    value: "period",
    help: "How often the renewal runs: hourly, daily, weekly or monthly (beyond upstream).",
    defaultBy: { "certs auto-renewal": "daily" },
    notConfig: true,
  },
  "service-cidr": {
    input: "serviceSubnet",
    type: "string",
    value: "cidr",
    help: `Use alternative range of IP address for service VIPs. (default "10.96.0.0/12")`,
  },
  "service-dns-domain": {
    input: "dnsDomain",
    type: "string",
    value: "domain",
    help: `Use alternative domain for services, e.g. "myorg.internal". (default "cluster.local")`,
  },
  "show-managed-fields": {
    type: "bool",
    help: "If true, keep the managedFields when printing objects in JSON or YAML format.",
  },
  "skip-certificate-key-print": {
    input: "skipCertificateKeyPrint",
    type: "bool",
    help: "Don't print the key used to encrypt the control-plane certificates.",
  },
  "skip-phases": {
    input: "skipPhases",
    type: "stringSlice",
    value: "phases",
    help: "List of phases to be skipped",
  },
  "skip-token-print": {
    input: "skipTokenPrint",
    type: "bool",
    help: "Skip printing of the default bootstrap token generated by 'kubeadm init'.",
  },
  "tls-bootstrap-token": {
    input: "tlsBootstrapToken",
    type: "string",
    value: "token",
    help:
      "Specify the token used to temporarily authenticate with the Kubernetes Control Plane while joining the node.",
  },
  token: {
    input: "token",
    type: "string",
    value: "token",
    help:
      "The token to use for establishing bidirectional trust between nodes and control-plane nodes. The format is [a-z0-9]{6}\\.[a-z0-9]{16} - e.g. abcdef.0123456789abcdef",
    helpBy: {
      join:
        "Use this token for both discovery-token and tls-bootstrap-token when those values are not provided.",
      "discovery-check": "The bootstrap token (<id>.<secret>).",
      kubeconfig:
        "The token that should be used as the authentication mechanism for this kubeconfig, instead of client certificates",
    },
  },
  "token-ttl": {
    input: "tokenTTL",
    type: "duration",
    value: "duration",
    help:
      "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire (default 24h0m0s)",
  },
  ttl: {
    type: "duration",
    value: "duration",
    help:
      "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire (default 24h0m0s)",
  },
  "upload-certs": {
    input: "uploadCerts",
    type: "bool",
    help: "Upload control-plane certificates to the kubeadm-certs Secret.",
  },
  usages: {
    type: "stringSlice",
    value: "usages",
    help:
      "Describes the ways in which this token can be used. You can pass --usages multiple times or provide a comma separated list of options. Valid options: [signing,authentication] (default [signing,authentication])",
  },
  v: {
    type: "level",
    short: "v",
    value: "level",
    help: "number for the log level verbosity",
    defaultBy: { kubeadm: "0" },
    notConfig: true,
  },
  vmodule: {
    type: "moduleSpec",
    value: "spec",
    help: "comma-separated list of pattern=N settings for file-filtered logging",
  },
  "validity-period": {
    type: "duration",
    value: "duration",
    help:
      "The validity period of the client certificate. It is an offset from the current time. (default 8760h0m0s)",
  },
  within: {
    type: "string",
    value: "duration",
    help:
      "Renew the certificates that expire within this duration (or have expired), e.g. 720h (30 days); at least 1h and shorter than the certificates' validity (beyond upstream).",
    defaultBy: { "certs auto-renewal": "720h0m0s" },
    notConfig: true,
  },
  yes: {
    input: "yes",
    type: "bool",
    short: "y",
    help: "Perform the upgrade and do not prompt for confirmation (non-interactive mode).",
  },
} as const satisfies Record<string, FlagSpec>;

/**
 * The `-v`/`--v` log level a command line asks for (`--v=5`, `--v 5`, `-v=5`, `-v 5`, `-v5`;
 * the last one wins, anything unreadable counts as 0). Read straight from the arguments, so
 * that a failure reported before or while parsing them still knows it.
 */
export function verbosityOf(argv: readonly string[]): number {
  let level = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    const m = a.match(/^(?:--v|-v)(?:=(.*))?$/) ?? a.match(/^-v(\d+)$/);
    if (!m) continue;
    // `--v` or `-v` alone: the level is the next argument.
    const n = Number(m[1] ?? argv[++i]);
    level = Number.isInteger(n) && n >= 0 ? n : 0;
  }
  return level;
}

/** The global flags (upstream's persistent flags), accepted by every command. */
export const PERSISTENT_FLAGS = ["rootfs", "v", "vmodule"] as const;

/** A flag's name, as typed after `--`. */
export type FlagName = keyof typeof FLAGS;

type ValueOf<T extends FlagType> = T extends "bool" ? boolean
  : T extends "int32" | "int" | "level" ? number
  : T extends "stringSlice" | "stringArray" ? string[]
  : T extends "featureGates" ? Record<string, boolean>
  : string;

/** The values of the flags the user set (typed by the registry; unset flags are absent). */
export type FlagValues = { [N in FlagName]?: ValueOf<(typeof FLAGS)[N]["type"]> };

/** The flags bound to an input, by input. */
type InputFlags = {
  [N in FlagName]: (typeof FLAGS)[N] extends { input: infer I extends InputName } ? [N, I] : never;
}[FlagName];

/** A flag whose value's type is not its input's (none: checked when compiling). */
type MistypedBinding = {
  [B in InputFlags as B[0]]: ValueOf<(typeof FLAGS)[B[0]]["type"]> extends NonNullable<Inputs[B[1]]>
    ? never
    : B[0];
}[InputFlags[0]];
const _bindingsTyped: [MistypedBinding] extends [never] ? true : MistypedBinding = true;

/** The flag bound to each input. */
const FLAG_OF: ReadonlyMap<InputName, FlagName> = new Map(
  (Object.keys(FLAGS) as FlagName[]).flatMap((name) => {
    const input = spec(name).input;
    return input ? [[input, name] as const] : [];
  }),
);

/** The flag that gives a workflow `input`. */
export function flagOf(input: InputName): FlagName {
  const name = FLAG_OF.get(input);
  if (!name) {
    throw new FlagError(`no flag gives the input ${JSON.stringify(input)}`, {
      hint: "bind a flag of cli/flags.ts to it (its `input`)",
    });
  }
  return name;
}

/**
 * The inputs the given flags set (`core/config/inputs.ts`): each bound flag's value under its
 * input's name. What a workflow's resolver and data read; flags bound to no input are left out.
 */
export function inputsOf(flags: FlagValues): Inputs {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(flags)) {
    const input = isFlagName(name) ? spec(name).input : undefined;
    if (input && value !== undefined) out[input] = value;
  }
  return out as Inputs;
}

/** Whether a string names a flag of the registry. */
export function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(FLAGS, name);
}

function spec(name: FlagName): FlagSpec {
  return FLAGS[name];
}

function collectList(value: string, previous: string[] = []): string[] {
  return previous.concat(value.split(",").map((s) => s.trim()).filter((s) => s !== ""));
}

function collectArray(value: string, previous: string[] = []): string[] {
  return previous.concat(value);
}

/** Options of {@link addFlags}. */
export interface AddFlagsOptions {
  /**
   * The flags are an ancestor's persistent flags (upstream's global `--rootfs`, `token`'s
   * `--kubeconfig`): accepted here too, listed under "Global Flags" in help.
   */
  inherited?: boolean;
}

/** Options added as an ancestor's persistent flags. */
const INHERITED = new WeakSet<Option>();

/**
 * Adds the named flags of the registry to a command, with `command`'s help texts, in pflag's
 * (alphabetical) help order.
 */
export function addFlags(
  cmd: Command,
  names: readonly string[],
  command: CommandName,
  options: AddFlagsOptions = {},
): Command {
  for (const name of [...new Set(names)].sort()) {
    if (!isFlagName(name)) {
      throw new FlagError(`unknown flag ${JSON.stringify(name)} declared for ${command}`, {
        field: `--${name}`,
        hint: "declare flags that cli/flags.ts registers",
      });
    }
    const s = spec(name);
    const short = s.short ? `-${s.short}, ` : "";
    const help = s.helpBy?.[command] ?? s.help;
    if (s.type === "bool") {
      const option = cmd.createOption(`${short}--${name}`, help);
      if (options.inherited) INHERITED.add(option);
      cmd.addOption(option);
      cmd.addOption(cmd.createOption(`--no-${name}`).hideHelp());
      continue;
    }
    const option = cmd.createOption(`${short}--${name} <${s.value ?? "value"}>`, help);
    if (s.type === "stringSlice") option.argParser(collectList);
    if (s.type === "stringArray") option.argParser(collectArray);
    const def = s.defaultBy?.[command];
    if (def !== undefined) option.default(def);
    if (options.inherited) INHERITED.add(option);
    cmd.addOption(option);
  }
  return cmd;
}

/** pflag's name of a value type, as its help prints it after the flag (none for booleans). */
const PFLAG_TYPE_NAMES: Readonly<Record<FlagType, string>> = {
  string: "string",
  bool: "",
  int32: "int32",
  int: "int",
  stringSlice: "strings",
  stringArray: "stringArray",
  featureGates: "string",
  duration: "duration",
  level: "Level",
  moduleSpec: "moduleSpec",
};

/** One flag of a command as help shows it. */
export interface FlagUsage {
  name: string;
  short?: string;
  /** pflag's type name (`string`, `strings`, `int32`, `duration`, …); empty for booleans. */
  type: string;
  /** The help text, ending in `(default …)` when the flag has a non-zero default. */
  usage: string;
  /** An ancestor's persistent flag ("Global Flags"). */
  inherited: boolean;
}

/**
 * How a command's option reads in help (pflag's conventions), or `undefined` for options that
 * are not flags of the registry (commander's `--no-*` negations, `--help`).
 */
export function flagUsage(option: Option): FlagUsage | undefined {
  const name = option.long?.replace(/^--/, "");
  if (!name || option.hidden || !isFlagName(name)) return undefined;
  const s = spec(name);
  let usage = option.description;
  const def = option.defaultValue;
  if (
    def !== undefined && def !== "" && def !== "0" && def !== false &&
    !/\(default .*\)$/.test(usage)
  ) {
    usage += s.type === "string" ? ` (default ${JSON.stringify(def)})` : ` (default ${def})`;
  }
  return {
    name,
    short: s.short,
    type: PFLAG_TYPE_NAMES[s.type],
    usage,
    inherited: INHERITED.has(option),
  };
}

/** The command and its ancestors, leaf first. */
function chain(cmd: Command): Command[] {
  const out: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) out.push(c);
  return out;
}

/** pflag's name of a flag in its errors: `-v, --v` when it has a shorthand. */
function errorName(name: FlagName): string {
  const short = spec(name).short;
  return short ? `-${short}, --${name}` : `--${name}`;
}

/**
 * A value pflag would not parse: `invalid argument "x" for "--flag" flag: <reason>`, naming
 * the flag, exit status 1 as upstream's flag parsing.
 */
function unparsable(name: FlagName, text: string, reason: string, cause?: unknown): KubeadmError {
  return new KubeadmError(
    `invalid argument ${JSON.stringify(text)} for "${errorName(name)}" flag: ${reason}`,
    { field: `--${name}`, value: text, cause },
  );
}

/** Go's `strconv.ParseInt(text, 0, bits)` (32 unless said), failing with pflag's error naming the flag. */
function parseInteger(name: FlagName, text: string, bits: 32 | 64 = 32): number {
  const n = Number(text);
  const syntax = /^[+-]?\d+$/.test(text);
  const limit = 2 ** (bits - 1);
  if (!syntax || !Number.isInteger(n) || n < -limit || n >= limit) {
    throw unparsable(
      name,
      text,
      `strconv.ParseInt: parsing ${JSON.stringify(text)}: ${
        syntax ? "value out of range" : "invalid syntax"
      }`,
    );
  }
  return n;
}

/** klog's `--vmodule` syntax: comma-separated `pattern=N`. */
function checkModuleSpec(name: FlagName, text: string): string {
  for (const part of text.split(",")) {
    if (part === "") continue;
    const [pattern, level, ...rest] = part.split("=");
    if (pattern === "" || level === undefined || rest.length > 0) {
      throw unparsable(name, text, "expect comma-separated list of filename=N");
    }
    parseInteger(name, level);
  }
  return text;
}

/** A flag's value as given on the command line, parsed by its type (pflag's errors). */
export function parseFlagValue(name: FlagName, raw: unknown): unknown {
  const s = spec(name);
  if (s.type === "int32" || s.type === "level") return parseInteger(name, String(raw));
  // pflag's int is Go's 64-bit int.
  if (s.type === "int") return parseInteger(name, String(raw), 64);
  if (s.type === "moduleSpec") return checkModuleSpec(name, String(raw));
  if (s.type === "duration") {
    const text = String(raw);
    try {
      parseDurationNs(text);
    } catch (e) {
      throw unparsable(name, text, errorMessage(e), e);
    }
    return text;
  }
  if (s.type === "featureGates") {
    try {
      return parseFeatureGates(String(raw));
    } catch (e) {
      throw unparsable(name, String(raw), errorMessage(e), e);
    }
  }
  return raw;
}

/**
 * The values of the registry's flags the user set on the command or its ancestors (global
 * flags such as `--rootfs` included), parsed by type. Values commander defaults (an unset
 * `-o`) are included too.
 */
export function flagValues(cmd: Command): FlagValues {
  const out: Record<string, unknown> = {};
  for (const c of chain(cmd)) {
    for (const opt of c.options) {
      const name = opt.long?.replace(/^--(no-)?/, "");
      if (!name || !isFlagName(name) || name in out) continue;
      const key = opt.attributeName();
      const source = c.getOptionValueSource(key);
      if (source === undefined) continue;
      const value = c.getOptionValue(key);
      if (value === undefined) continue;
      out[name] = parseFlagValue(name, value);
    }
  }
  return out as FlagValues;
}

/** The flags of one invocation: the names set on the command line, and their values. */
export interface GivenFlags {
  /** Flags the user set on the command line (for the `--config` mixing check). */
  set: readonly string[];
  /** The values, parsed by type (a bad one throws): read after the mixing check. */
  values(): FlagValues;
}

/**
 * Names of the configuration flags the user set on the command line (for upstream's
 * `--config` mixing check), from the command and its ancestors.
 */
export function setFlagNames(cmd: Command): string[] {
  const names = new Set<string>();
  for (const c of chain(cmd)) {
    for (const opt of c.options) {
      const name = opt.long?.replace(/^--(no-)?/, "");
      if (!name || (isFlagName(name) && "notConfig" in spec(name))) continue;
      if (c.getOptionValueSource(opt.attributeName()) === "cli") names.add(name);
    }
  }
  return [...names];
}

/** pflag's (Go's `strconv.ParseBool`) spellings of a boolean flag's value. */
export const BOOL_VALUE = /^(true|false|1|0|t|f|TRUE|FALSE|True|False)$/;
/** The spellings of true among {@link BOOL_VALUE}. */
export const TRUE_VALUES: ReadonlySet<string> = new Set(["true", "1", "t", "TRUE", "True"]);

/** The registry's flag with a one-letter shorthand. */
function byShorthand(letter: string): FlagName | undefined {
  return (Object.keys(FLAGS) as FlagName[]).find((n) => spec(n).short === letter);
}

/**
 * Rewrites pflag's spellings commander does not know into commander's, for every command:
 * `--flag=true|false` of the registry's boolean flags into `--flag` / `--no-flag`, and a
 * shorthand's `-o=json` into `-o json`. A boolean given a value that is not one fails as
 * pflag's `strconv.ParseBool` error naming the flag. Nothing after `--` is touched.
 */
export function normaliseArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const long = arg.match(/^--([a-z0-9-]+)=(.*)$/s);
    const short = arg.match(/^-([a-zA-Z])=(.*)$/s);
    const name = long ? long[1] : short ? byShorthand(short[1]) : undefined;
    const value = (long ?? short)?.[2] ?? "";
    if (!name || !isFlagName(name)) {
      out.push(arg);
      continue;
    }
    if (spec(name).type !== "bool") {
      out.push(...(short ? [`-${short[1]}`, value] : [arg]));
      continue;
    }
    if (!BOOL_VALUE.test(value)) {
      throw unparsable(
        name,
        value,
        `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
      );
    }
    out.push(TRUE_VALUES.has(value) ? `--${name}` : `--no-${name}`);
  }
  return out;
}

/** A preflight phase's `-o`: `text` (default) or `json` (a report of every check). */
export function preflightOutput(inputs: Inputs): "text" | "json" {
  const output = inputs.output ?? "text";
  if (output === "text" || output === "json") return output;
  throw new FlagError(`invalid output format ${JSON.stringify(output)}`, {
    field: "--output",
    value: output,
    hint: "use text or json",
  });
}

/**
 * `--certificate-auto-renewal` of `init` and `join`, or their `certs-auto-renewal` phase
 * run alone: the request their phase installs (this kubeadm as the schedule's command), checked
 * before anything is done (`checkAutoRenewalRequest`; with `certificateValidityPeriod`, init's,
 * the window against it). `undefined` when not asked.
 */
export async function autoRenewalRequest(
  inv: { inputs: Inputs; only?: string },
  node: { controlPlane: boolean; foreignRoot?: string; certificateValidityPeriod?: string },
): Promise<AutoRenewalRequest | undefined> {
  // Only the flag or the phase run alone asks: any other run loads nothing of the schedule's.
  if (!inv.inputs.certificateAutoRenewal && inv.only !== AUTO_RENEWAL_PHASE) return undefined;
  const { checkAutoRenewalRequest, requestedAutoRenewalSettings } = await import(
    "../core/certs/auto_renewal.ts"
  );
  checkAutoRenewalRequest(node);
  const { selfCommand } = await import("../adapters/deno/process.ts");
  const request = { command: selfCommand() };
  if ("certificateValidityPeriod" in node) {
    requestedAutoRenewalSettings(request, node.certificateValidityPeriod);
  }
  return request;
}

/**
 * A `duration` flag's value in milliseconds (pflag's `duration`: Go syntax such as `720h` or
 * `1h30m`), `fallback` when unset. A bad value fails with pflag's `invalid argument "x" for
 * "--flag" flag: …`, exit status 1 as upstream's flag parsing.
 */
export function durationValue(
  flags: FlagValues,
  name: FlagName,
  fallback?: string,
): number | undefined {
  const raw = flags[name] ?? fallback;
  if (raw === undefined) return undefined;
  try {
    return parseDuration(String(raw));
  } catch (e) {
    throw unparsable(name, String(raw), errorMessage(e), e);
  }
}
