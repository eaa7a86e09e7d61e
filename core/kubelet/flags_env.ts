/**
 * `/var/lib/kubelet/kubeadm-flags.env`: the node-specific kubelet flags kubeadm passes through
 * the `KUBELET_KUBEADM_ARGS` variable (upstream `phases/kubelet/flags.go`).
 *
 * Flags: `--container-runtime-endpoint` (unless the `NodeLocalCRISocket` gate moves it to
 * `instance-config.yaml`), `--pod-infra-container-image`, `--hostname-override` when the node
 * name differs from the hostname, and `--register-with-taints` on join; merged with
 * `nodeRegistration.kubeletExtraArgs` and sorted like every kubeadm argument list, then
 * written as `KUBELET_KUBEADM_ARGS="<args>"` with Go `%q` quoting.
 *
 * @module
 */
import type { Arg, NodeRegistrationOptions, Taint } from "../config/types.ts";
import { KUBELET_ENV_VARIABLE } from "../constants.ts";
import { argumentsToCommand, getArgValue } from "../manifests/arguments.ts";
import { goQuote } from "./go_quote.ts";

/** Inputs of the kubelet flags. */
export interface KubeletFlagsOptions {
  nodeRegistration: Pick<
    NodeRegistrationOptions,
    "name" | "criSocket" | "taints" | "kubeletExtraArgs"
  >;
  /** The pause image (`--pod-infra-container-image`). */
  pauseImage: string;
  /** The OS hostname, lowercased. */
  hostname: string;
  /** Pass `nodeRegistration.taints` as `--register-with-taints` (join only). */
  registerTaintsUsingFlags?: boolean;
  /** The `NodeLocalCRISocket` feature gate: the CRI socket goes to `instance-config.yaml`. */
  nodeLocalCRISocket?: boolean;
}

/** Renders a taint as the kubelet expects it: `key[=value]:effect` (Go's `Taint.ToString`). */
export function taintToString(t: Taint): string {
  const value = t.value ?? "";
  if (!t.effect) return value === "" ? t.key : `${t.key}=${value}:`;
  return value === "" ? `${t.key}:${t.effect}` : `${t.key}=${value}:${t.effect}`;
}

/**
 * The node name the kubelet will register with: the hostname, overridden by
 * `nodeRegistration.name`, overridden by a `hostname-override` kubelet extra arg.
 */
export function kubeletNodeName(
  nodeRegistration: KubeletFlagsOptions["nodeRegistration"],
  hostname: string,
): string {
  return getArgValue(nodeRegistration.kubeletExtraArgs, "hostname-override") ??
    (nodeRegistration.name || hostname);
}

/** The kubelet flags kubeadm sets before merging `kubeletExtraArgs`. */
export function kubeletBaseArgs(opts: KubeletFlagsOptions): Arg[] {
  const { nodeRegistration } = opts;
  const args: Arg[] = [];
  if (!opts.nodeLocalCRISocket && nodeRegistration.criSocket) {
    args.push({ name: "container-runtime-endpoint", value: nodeRegistration.criSocket });
  }
  if (opts.pauseImage !== "") {
    args.push({ name: "pod-infra-container-image", value: opts.pauseImage });
  }
  const taints = nodeRegistration.taints ?? [];
  if (opts.registerTaintsUsingFlags && taints.length > 0) {
    args.push({ name: "register-with-taints", value: taints.map(taintToString).join(",") });
  }
  const nodeName = kubeletNodeName(nodeRegistration, opts.hostname);
  if (nodeName !== opts.hostname) args.push({ name: "hostname-override", value: nodeName });
  return args;
}

/** The merged, sorted kubelet flags (`--name=value`). */
export function kubeletFlags(opts: KubeletFlagsOptions): string[] {
  return argumentsToCommand(kubeletBaseArgs(opts), opts.nodeRegistration.kubeletExtraArgs);
}

/** Content of `kubeadm-flags.env` for already merged flags. */
export function kubeletFlagsEnvContent(flags: readonly string[]): string {
  return `${KUBELET_ENV_VARIABLE}=${goQuote(flags.join(" "))}\n`;
}

/** Content of `kubeadm-flags.env`: `KUBELET_KUBEADM_ARGS="..."` and a newline. */
export function kubeletFlagsEnv(opts: KubeletFlagsOptions): string {
  return kubeletFlagsEnvContent(kubeletFlags(opts));
}
