/**
 * The fuzzer's case generator: from a seed and an index, one command line and its input files,
 * for `init phase certs all`, `config validate`, `join --dry-run` and `discovery-check`.
 * Inputs are mutated valid configurations (values replaced, fields dropped or added, kinds and
 * versions changed, text cut or garbled, aliases), random YAML and random flag values typed by
 * the flag registry. The same seed and index always give the same case; the stub's endpoint,
 * token, pin and the case's directories are placeholders filled in when the case runs.
 *
 * @module
 */
import { parseAllDocuments, stringify } from "yaml";
import type { Command } from "commander";
import { FLAGS, isFlagName } from "../cli/flags.ts";

/** Placeholders in a case's argv and files. */
export const P = {
  root: "$ROOT",
  dir: "$CASE",
  endpoint: "$ENDPOINT",
  token: "$TOKEN",
  /** The id of the stub's token. */
  tokenId: "$TID",
  hash: "$HASH",
  certKey: "$CERTKEY",
  caCert: "$CACERT",
} as const;

/** The commands the fuzzer runs. */
export type Target = "certs" | "validate" | "join" | "discovery-check";

/** One generated case. */
export interface FuzzCase {
  target: Target;
  argv: string[];
  /** Input files by name (in the case directory), with placeholders. */
  files: Record<string, string>;
  /** Files put under the root before the run (node paths). */
  rootFiles: Record<string, string>;
  /** Tokens the stub signs cluster-info for (placeholders allowed). */
  signFor: string[];
}

/** A small seeded generator (mulberry32 over an FNV-1a hash of seed and index). */
export class Rand {
  #s: number;
  constructor(seed: string, index: number) {
    let h = 0x811c9dc5;
    for (const c of `${seed}/${index}`) {
      h ^= c.charCodeAt(0);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    this.#s = h;
  }
  next(): number {
    this.#s = (this.#s + 0x6d2b79f5) >>> 0;
    let t = this.#s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
}

const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";

function chars(r: Rand, n: number, alphabet = ALNUM): string {
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[r.int(alphabet.length)];
  return s;
}

/** A random bootstrap-token-like value: valid, or wrong in one way. */
export function randomToken(r: Rand): string {
  const id = chars(r, 6), secret = chars(r, 16);
  return r.pick([
    () => `${id}.${secret}`,
    () => `${id}.${secret}`,
    () => `${id.toUpperCase()}.${secret}`,
    () => `${id}${secret}`,
    () => `${id}.${secret.slice(0, 15)}`,
    () => `${id}:${secret}`,
    () => `${id}.${secret}x`,
    () => P.token,
    () => `${P.token}x`,
  ])();
}

const WEIRD_STRINGS = [
  "",
  " ",
  "-",
  "--",
  "=",
  "a=b",
  "../../../../etc/passwd",
  "/",
  "/dev/null",
  "/proc/self/mem",
  "~",
  "💥",
  "\u0000",
  "a\nb",
  "%s%n",
  "${HOME}",
  "null",
  "true",
  "0",
  "-1",
  "4294967296",
  "9223372036854775808",
  "1e400",
  "NaN",
  "0x10",
  "::",
  "::1",
  "[::1]:6443",
  "127.0.0.1",
  "127.0.0.1:6443",
  "256.1.1.1",
  "10.0.0.0/8",
  "10.96.0.0/33",
  "fd00::/200",
  "a".repeat(300),
  "ECDSA-P256",
  "RSA-2048",
  "v1.37.2",
  "v1.20.0",
  "v9.0.0",
  "stable-1",
  "latest",
  "1.37",
  "unix:///nonexistent.sock",
  "https://127.0.0.1:1/x",
  "all",
  "sha256:zz",
  "sha256:" + "0".repeat(64),
  "md5:00",
  "5m",
  "-5m",
  "0s",
  "1h1h",
  "json",
  "yaml",
  "text",
  "AllAlpha=true",
  "Foo=bar",
  "PublicKeysECDSA=maybe",
];

/** A random string, often one of the weird ones above. */
export function randomString(r: Rand): string {
  if (r.chance(0.6)) return r.pick(WEIRD_STRINGS);
  if (r.chance(0.5)) return chars(r, 1 + r.int(20));
  return chars(r, 1 + r.int(40), ALNUM + "-._:/=,[]{}@!*\\\"' ");
}

/** A value for a flag of the registry, by its type: usually plausible, often not. */
export function randomFlagValue(r: Rand, name: string): string {
  const type = isFlagName(name) ? FLAGS[name].type : "string";
  if (r.chance(0.4)) return randomString(r);
  switch (type) {
    case "bool":
      return r.pick(["true", "false", "1", "0", "yes", "TRUE", "t", "F"]);
    case "int32":
      return r.pick(["6443", "0", "-1", "65536", "2147483648", "1.5", "abc", String(r.int(70000))]);
    case "duration":
      return r.pick(["1h", "24h0m0s", "0", "-1s", "10", "1d", "8760h", "1.5h", "abc"]);
    case "level":
      return r.pick(["0", "5", "-1", "x", "10"]);
    case "moduleSpec":
      return r.pick(["a=1", "a=1,b=2", "=1", "a", "a=x"]);
    case "featureGates":
      return r.pick(["ControlPlaneKubeletLocalMode=true", "a=b", "NodeLocalCRISocket=false,x", ""]);
    case "stringSlice":
      return Array.from({ length: 1 + r.int(3) }, () => randomString(r)).join(",");
  }
  switch (name) {
    case "token":
    case "discovery-token":
    case "tls-bootstrap-token":
      return randomToken(r);
    case "discovery-token-ca-cert-hash":
      return r.pick([
        P.hash,
        "sha256:" + chars(r, 64, "0123456789abcdef"),
        "sha256:zz",
        P.hash + "0",
      ]);
    case "certificate-key":
      return r.pick([
        P.certKey,
        chars(r, 64, "0123456789abcdef"),
        chars(r, 63, "0123456789abcdef"),
      ]);
    case "apiserver-advertise-address":
      return r.pick(["127.0.0.1", "10.0.0.1", "::1", "0.0.0.0", "fe80::1", "1.2.3"]);
    default:
      return randomString(r);
  }
}

/** A random YAML-able value tree. */
function randomValue(r: Rand, depth = 0): unknown {
  const k = r.int(depth > 2 ? 5 : 8);
  switch (k) {
    case 0:
      return randomString(r);
    case 1:
      return r.pick([0, -1, 1, 65535, 65536, 2 ** 31, 2 ** 53, 1.5, -0.5, 1e300]);
    case 2:
      return r.chance(0.5);
    case 3:
      return null;
    case 4:
      return r.pick(WEIRD_STRINGS);
    case 5:
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = r.int(4); i > 0; i--) o[randomKey(r)] = randomValue(r, depth + 1);
      return o;
    }
  }
}

const KNOWN_KEYS = [
  "apiVersion",
  "kind",
  "bootstrapTokens",
  "token",
  "ttl",
  "usages",
  "groups",
  "nodeRegistration",
  "name",
  "criSocket",
  "taints",
  "kubeletExtraArgs",
  "ignorePreflightErrors",
  "localAPIEndpoint",
  "advertiseAddress",
  "bindPort",
  "certificateKey",
  "networking",
  "serviceSubnet",
  "podSubnet",
  "dnsDomain",
  "kubernetesVersion",
  "controlPlaneEndpoint",
  "apiServer",
  "certSANs",
  "extraArgs",
  "certificatesDir",
  "imageRepository",
  "encryptionAlgorithm",
  "featureGates",
  "etcd",
  "local",
  "external",
  "dataDir",
  "discovery",
  "bootstrapToken",
  "apiServerEndpoint",
  "caCertHashes",
  "unsafeSkipCAVerification",
  "file",
  "kubeConfigPath",
  "tlsBootstrapToken",
  "controlPlane",
  "timeouts",
  "discovery",
  "skipPhases",
  "patches",
  "directory",
  "dryRun",
  "clusterName",
  "certificateValidityPeriod",
  "caCertificateValidityPeriod",
];

function randomKey(r: Rand): string {
  return r.chance(0.7) ? r.pick(KNOWN_KEYS) : chars(r, 1 + r.int(12));
}

/** Replaces, drops or adds one value somewhere in a document tree. */
function mutateTree(r: Rand, value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || (depth > 0 && r.chance(0.2))) {
    return r.chance(0.7) ? randomValue(r) : value;
  }
  if (Array.isArray(value)) {
    const a = [...value];
    const op = r.int(4);
    if (op === 0 && a.length > 0) a.splice(r.int(a.length), 1);
    else if (op === 1) a.push(randomValue(r));
    else if (a.length > 0) {
      const i = r.int(a.length);
      a[i] = mutateTree(r, a[i], depth + 1);
    } else return randomValue(r);
    return a;
  }
  const o = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(o);
  const op = r.int(6);
  if (op === 0 && keys.length > 0) delete o[r.pick(keys)];
  else if (op === 1) o[randomKey(r)] = randomValue(r);
  else if (keys.length > 0) {
    const k = r.pick(keys);
    o[k] = mutateTree(r, o[k], depth + 1);
  } else o[randomKey(r)] = randomValue(r);
  return o;
}

/** Text-level damage: cut, garble, indent, aliases, huge or binary content. */
function mutateText(r: Rand, text: string): string {
  const at = r.int(text.length + 1);
  return r.pick([
    () => text.slice(0, at),
    () => text.slice(0, at) + chars(r, 1 + r.int(8), ":-[]{}&*!|>'\"%@`#\t\n ") + text.slice(at),
    () => text.replaceAll("  ", "\t"),
    () => text + "---\n" + text,
    () =>
      `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n` +
      text,
    () =>
      text.replace(
        /kubeadm\.k8s\.io\/v1beta4/,
        r.pick(["kubeadm.k8s.io/v1beta3", "kubeadm.k8s.io/v1", "v1", "kubeadm.k8s.io/v2"]),
      ),
    () =>
      text.replace(
        /kind: \w+/,
        `kind: ${
          r.pick([
            "InitConfiguration",
            "ClusterConfiguration",
            "JoinConfiguration",
            "ResetConfiguration",
            "UpgradeConfiguration",
            "KubeletConfiguration",
            "KubeProxyConfiguration",
            "ConfigMap",
            "Foo",
            "",
          ])
        }`,
      ),
    () => "\uFEFF" + text,
    () => text.replaceAll("\n", "\r\n"),
    () => "x".repeat(1 + r.int(2000)) + ": " + "y".repeat(1 + r.int(2000)) + "\n" + text,
    () => "%YAML 1.1\n---\n" + text,
    () => text.replace(/: /, ": !!binary "),
    () => "{" + text,
  ])();
}

/** A mutated copy of YAML documents (tree mutations, then sometimes text damage). */
export function mutateYaml(r: Rand, text: string, fixJoinTimeout = false): string {
  let docs = parseAllDocuments(text).map((d) => d.toJS() as unknown);
  for (let n = r.chance(0.6) ? 1 : 2 + r.int(2); n > 0; n--) {
    if (docs.length > 0 && r.chance(0.85)) {
      const i = r.int(docs.length);
      docs[i] = mutateTree(r, docs[i]);
    } else if (r.chance(0.5)) docs.push(randomValue(r));
    else docs = docs.slice(0, Math.max(0, docs.length - 1));
  }
  if (fixJoinTimeout) {
    // A join's discovery must end soon whatever else is wrong: keep timeouts.discovery short.
    for (const d of docs) {
      if (d && typeof d === "object" && !Array.isArray(d)) {
        const o = d as Record<string, unknown>;
        if (o.kind !== "JoinConfiguration") continue;
        const t = o.timeouts && typeof o.timeouts === "object" && !Array.isArray(o.timeouts)
          ? o.timeouts as Record<string, unknown>
          : {};
        t.discovery = r.pick(["2s", "1s", "0s", "-1s", "abc", 1, "1.5s", null]);
        o.timeouts = t;
      }
    }
  }
  let out = docs.map((d) => stringify(d)).join("---\n");
  if (r.chance(0.25)) out = mutateText(r, out);
  return out;
}

/** The valid configurations the mutations start from. */
export function initConfig(): string {
  return [
    "apiVersion: kubeadm.k8s.io/v1beta4",
    "kind: InitConfiguration",
    "bootstrapTokens:",
    `- token: ${P.token}`,
    "localAPIEndpoint:",
    "  advertiseAddress: 127.0.0.1",
    "  bindPort: 6443",
    "nodeRegistration:",
    "  name: fuzz-node",
    "  criSocket: unix:///nonexistent/containerd.sock",
    "---",
    "apiVersion: kubeadm.k8s.io/v1beta4",
    "kind: ClusterConfiguration",
    "encryptionAlgorithm: ECDSA-P256",
    "kubernetesVersion: v1.37.2",
    "controlPlaneEndpoint: cp.example.test:6443",
    "networking:",
    "  serviceSubnet: 10.96.0.0/12",
    "  podSubnet: 10.244.0.0/16",
    "  dnsDomain: cluster.local",
    "apiServer:",
    "  certSANs: [10.0.0.1, fuzz.example.test]",
    "",
  ].join("\n");
}

export function joinConfig(): string {
  return [
    "apiVersion: kubeadm.k8s.io/v1beta4",
    "kind: JoinConfiguration",
    "discovery:",
    "  bootstrapToken:",
    `    apiServerEndpoint: ${P.endpoint}`,
    `    token: ${P.token}`,
    `    caCertHashes: [${P.hash}]`,
    "timeouts:",
    "  discovery: 2s",
    "nodeRegistration:",
    "  name: fuzz-worker",
    "  criSocket: unix:///nonexistent/containerd.sock",
    "  ignorePreflightErrors: [all]",
    "",
  ].join("\n");
}

/** Every long flag a command accepts but `--rootfs` (the fuzzer's containment). */
function acceptedFlags(cmd: Command): string[] {
  return cmd.options.map((o) => o.long?.slice(2) ?? "").filter((n) =>
    n && n !== "rootfs" && n !== "help"
  );
}

function randomFlags(r: Rand, cmd: Command, max: number, exclude: string[] = []): string[] {
  const names = acceptedFlags(cmd).filter((n) => !exclude.includes(n));
  const out: string[] = [];
  for (let n = r.int(max + 1); n > 0; n--) {
    const name = r.chance(0.05) ? chars(r, 4) : r.pick(names);
    const value = randomFlagValue(r, name);
    const type = isFlagName(name) ? FLAGS[name].type : "string";
    if (type === "bool" && r.chance(0.6)) out.push(`--${name}`);
    else if (r.chance(0.5)) out.push(`--${name}=${value}`);
    else out.push(`--${name}`, value);
  }
  if (r.chance(0.03)) out.push(randomString(r));
  return out;
}

/** Finds a command by its path (`["init", "phase", "certs", "all"]`). */
export function commandAt(root: Command, path: string[]): Command {
  let c = root;
  for (const name of path) {
    const next = c.commands.find((s) => s.name() === name || s.aliases().includes(name));
    if (!next) throw new Error(`no command ${path.join(" ")}`);
    c = next;
  }
  return c;
}

const TARGETS: Target[] = [
  "certs",
  "certs",
  "validate",
  "validate",
  "validate",
  "join",
  "join",
  "discovery-check",
  "discovery-check",
];

/** The pre-existing PKI files a certs case may start from (node paths, from the stub). */
export const PKI_FILES = [
  "/etc/kubernetes/pki/ca.crt",
  "/etc/kubernetes/pki/ca.key",
  "/etc/kubernetes/pki/sa.key",
];

/** What cases are made from besides the seed: the CLI's command tree and the stub's cluster-info. */
export interface CaseContext {
  /** The command tree (`buildProgram()`), for each command's flags. */
  program: Command;
  /** The stub's signed `cluster-info` ConfigMap as YAML. */
  clusterInfoYaml: string;
}

/** Generates case `index` of `seed`. */
export function generateCase(seed: string, index: number, ctx: CaseContext): FuzzCase {
  const program = ctx.program;
  const r = new Rand(seed, index);
  const target = r.pick(TARGETS);
  const files: Record<string, string> = {};
  const rootFiles: Record<string, string> = {};
  const signFor: string[] = [P.token];
  let argv: string[];
  const configText = (base: string, fixJoin = false) =>
    r.chance(0.1) ? stringify(randomValue(r)) : r.chance(0.2) ? base : mutateYaml(r, base, fixJoin);
  switch (target) {
    case "certs": {
      const cmd = commandAt(program, ["init", "phase", "certs", "all"]);
      argv = ["init", "phase", "certs", "all", "--rootfs", P.root];
      // Flags alone mean RSA-2048 keys (seconds per case): fewer of those.
      if (r.chance(0.85)) {
        files["config.yaml"] = configText(initConfig());
        argv.push("--config", `${P.dir}/config.yaml`);
        if (r.chance(0.1)) argv.push(...randomFlags(r, cmd, 1, ["config"]));
      } else {
        argv.push(...randomFlags(r, cmd, 4, ["config"]));
      }
      if (r.chance(0.15)) {
        for (const p of PKI_FILES) {
          if (r.chance(0.7)) rootFiles[p] = r.chance(0.7) ? `$FILE:${p}` : randomString(r);
        }
      }
      break;
    }
    case "validate": {
      const cmd = commandAt(program, ["config", "validate"]);
      files["config.yaml"] = configText(r.chance(0.5) ? initConfig() : joinConfig());
      argv = ["config", "validate", "--config", `${P.dir}/config.yaml`, "--rootfs", P.root];
      argv.push(...randomFlags(r, cmd, 2, ["config"]));
      break;
    }
    case "join": {
      const cmd = commandAt(program, ["join"]);
      argv = ["join"];
      if (r.chance(0.5)) {
        files["join.yaml"] = configText(joinConfig(), true);
        argv.push("--config", `${P.dir}/join.yaml`);
      } else {
        // Without a config there is no discovery timeout to shorten: cluster-info is always
        // signed for the token's id (else join polls for 5 minutes, as upstream), by the
        // token itself or, to test the signature check, by another secret.
        const token = r.chance(0.6) ? P.token : randomToken(r);
        const id = token === P.token ? P.tokenId : token.split(".")[0];
        signFor.splice(0, 1, r.chance(0.7) ? token : `${id}.${chars(r, 16)}`);
        if (r.chance(0.85)) {
          argv.push(
            r.chance(0.85) ? P.endpoint : r.pick([
              "",
              "127.0.0.1:abc",
              "[::1",
              "127.0.0.1:99999",
              "a b:1",
              "127.0.0.1:6443:1",
            ]),
          );
        }
        argv.push("--token", token);
        if (r.chance(0.7)) {
          argv.push(
            "--discovery-token-ca-cert-hash",
            randomFlagValue(r, "discovery-token-ca-cert-hash"),
          );
        } else if (r.next() < 0.7) argv.push("--discovery-token-unsafe-skip-ca-verification");
        argv.push(
          ...randomFlags(r, cmd, 3, [
            "config",
            "dry-run",
            "discovery-file",
            "token",
            "discovery-token",
          ]).filter((a) => !a.startsWith("--dry-run")),
        );
        argv.push("--ignore-preflight-errors", "all");
      }
      argv.push("--dry-run", "--rootfs", P.root);
      break;
    }
    case "discovery-check": {
      const cmd = commandAt(program, ["discovery-check"]);
      files["cluster-info.yaml"] = r.chance(0.7)
        ? mutateYaml(r, ctx.clusterInfoYaml)
        : r.chance(0.5)
        ? ctx.clusterInfoYaml
        : stringify(randomValue(r));
      argv = [
        "discovery-check",
        "--cluster-info",
        r.chance(0.9) ? `${P.dir}/cluster-info.yaml` : r.pick([
          `${P.dir}/missing.yaml`,
          "-",
          `https://${P.endpoint}/api/v1/namespaces/kube-public/configmaps/cluster-info`,
          "http://x",
          P.dir,
        ]),
      ];
      argv.push("--token", r.chance(0.7) ? P.token : randomToken(r));
      if (r.chance(0.7)) {
        argv.push(
          "--discovery-token-ca-cert-hash",
          randomFlagValue(r, "discovery-token-ca-cert-hash"),
        );
      } else if (r.chance(0.5)) argv.push("--discovery-token-unsafe-skip-ca-verification");
      if (r.chance(0.3)) argv.push("-o", r.pick(["json", "text", "yaml", ""]));
      argv.push(...randomFlags(r, cmd, 1, ["cluster-info", "token"]));
      argv.push("--rootfs", P.root);
      break;
    }
  }
  return { target, argv, files, rootFiles, signFor };
}
