/**
 * The `kubeadm join` command printed at the end of `kubeadm init` (phase `show-join-command`)
 * and by `kubeadm token create --print-join-command`, and the init success message around it
 * (upstream `cmd/util/join.go`, `cmd/phases/init/showjoincommand.go`).
 *
 * The command is `kubeadm join <host:port> --token <token> \`, then on a TAB-indented line one
 * `--discovery-token-ca-cert-hash <pin> ` (note the trailing space) per CA certificate of the
 * admin kubeconfig's cluster, and for control-plane nodes `\`, a TAB-indented
 * `--control-plane ` and `--certificate-key <key>` when a key is known. Withheld values print as
 * `<value withheld>`.
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { Printer } from "../ports/printer.ts";
import { type Kubeconfig, resolveContext } from "../kubeconfig/kubeconfig.ts";
import { parseCertificatesPEM } from "../pki/cert.ts";
import { base64Decode } from "../text/base64.ts";
import { certificatePin } from "../pki/pin.ts";
import { BoundedMemo } from "../text/bounded_memo.ts";

/** What `--skip-token-print` / `--skip-certificate-key-print` print instead of the value. */
const VALUE_WITHHELD = "<value withheld>";

/** Input of {@link joinCommand}. */
export interface JoinCommandInput {
  /** The admin kubeconfig's server URL, e.g. `https://10.0.0.1:6443`. */
  server: string;
  /** One pin per CA certificate (`sha256:<hex>`). */
  caPins: readonly string[];
  /** The bootstrap token. */
  token: string;
  /** Render the control-plane variant. */
  controlPlane?: boolean;
  /** Certificate key for `--certificate-key` (control plane only; omitted when empty). */
  certificateKey?: string;
  skipTokenPrint?: boolean;
  skipCertificateKeyPrint?: boolean;
}

/** Go `html/template` escaping of a text value. */
function html(s: string): string {
  return s.replace(/[&'<>"\0+]/g, (c) =>
    ({
      "&": "&amp;",
      "'": "&#39;",
      "<": "&lt;",
      ">": "&gt;",
      '"': "&#34;",
      "\0": "\uFFFD",
      "+": "&#43;",
    })[c]!);
}

/** The join command text, byte for byte as upstream's template renders it. */
export function joinCommand(input: JoinCommandInput): string {
  const hostPort = html(input.server.replaceAll("https://", ""));
  const token = input.skipTokenPrint ? VALUE_WITHHELD : html(input.token);
  let out = `kubeadm join ${hostPort} --token ${token} \\\n\t`;
  for (const pin of input.caPins) out += `--discovery-token-ca-cert-hash ${html(pin)} `;
  if (input.controlPlane) {
    out += "\\\n\t--control-plane ";
    const key = input.skipCertificateKeyPrint && input.certificateKey !== undefined
      ? VALUE_WITHHELD
      : html(input.certificateKey ?? "");
    if (key) out += `--certificate-key ${key}`;
  }
  return out;
}

/**
 * The one-line form `kubeadm token create --print-join-command` prints (line continuations and
 * tabs removed; the trailing space after the last pin stays).
 */
export function flattenJoinCommand(command: string): string {
  return command.replaceAll("\\\n", "").replaceAll("\t", "");
}

/** Options of {@link joinCommandFromKubeconfig}. */
export type KubeconfigJoinOptions = Omit<JoinCommandInput, "server" | "caPins">;

/**
 * Pins of recent `certificate-authority-data` values (public CA certificates): init prints the
 * join commands and a plan returns them, each from the same admin kubeconfig.
 */
const pinsByCaData = new BoundedMemo<readonly string[]>(8);

async function caPinsOf(caData: string, crypto: Hashing): Promise<string[]> {
  const known = pinsByCaData.get(caData);
  if (known) return [...known];
  const certs = parseCertificatesPEM(base64Decode(caData));
  const pins = await Promise.all(certs.map((c) => certificatePin(c, crypto)));
  return [...pinsByCaData.set(caData, pins)];
}

/** The join command for the current cluster of a kubeconfig with embedded CA data. */
export async function joinCommandFromKubeconfig(
  config: Kubeconfig,
  options: KubeconfigJoinOptions,
  crypto: Hashing,
): Promise<string> {
  const { cluster } = resolveContext(config);
  const caData = cluster["certificate-authority-data"];
  if (!caData) {
    throw new KubeadmError("no CA certificates found in kubeconfig", {
      hint: "the admin kubeconfig must embed certificate-authority-data",
    });
  }
  let caPins: string[];
  try {
    caPins = await caPinsOf(caData, crypto);
  } catch (e) {
    throw new KubeadmError(`failed to parse CA certificate from kubeconfig: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  return joinCommand({ ...options, server: cluster.server ?? "", caPins });
}

/** Input of {@link initSuccessMessage}. */
export interface InitSuccessInput {
  /** The admin kubeconfig path used (`sudo cp -i <path> ...`). */
  kubeconfigPath: string;
  /** Whether `controlPlaneEndpoint` is set (only then the control-plane block appears). */
  controlPlaneEndpoint: boolean;
  /** `--upload-certs`. */
  uploadCerts: boolean;
  /** {@link joinCommand} for workers. */
  joinWorkerCommand: string;
  /** {@link joinCommand} with `controlPlane: true`. */
  joinControlPlaneCommand: string;
}

/** The full text `kubeadm init` prints at the end (leading blank line, trailing newline). */
export function initSuccessMessage(input: InitSuccessInput): string {
  let s = `
Your Kubernetes control-plane has initialized successfully!

To start using your cluster, you need to run the following as a regular user:

  mkdir -p $HOME/.kube
  sudo cp -i ${html(input.kubeconfigPath)} $HOME/.kube/config
  sudo chown $(id -u):$(id -g) $HOME/.kube/config

Alternatively, if you are the root user, you can run:

  export KUBECONFIG=/etc/kubernetes/admin.conf

You should now deploy a pod network to the cluster.
Run "kubectl apply -f [podnetwork].yaml" with one of the options listed at:
  https://kubernetes.io/docs/concepts/cluster-administration/addons/

`;
  if (input.controlPlaneEndpoint) {
    if (input.uploadCerts) {
      s +=
        `You can now join any number of control-plane nodes running the following command on each as root:

  ${input.joinControlPlaneCommand}

Please note that the certificate-key gives access to cluster sensitive data, keep it secret!
As a safeguard, uploaded-certs will be deleted in two hours; If necessary, you can use
"kubeadm init phase upload-certs --upload-certs" to reload certs afterward.

`;
    } else {
      s += `You can now join any number of control-plane nodes by copying certificate authorities
and service account keys on each node and then running the following as root:

  ${input.joinControlPlaneCommand}

`;
    }
  }
  s += `Then you can join any number of worker nodes by running the following on each as root:

${input.joinWorkerCommand}
`;
  return s;
}

/** Prints a multi-line text through a line printer (one call per line, last newline dropped). */
export function printLines(out: Printer, text: string): void {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) out.info(line);
}
