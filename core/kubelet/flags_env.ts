/**
 * `/var/lib/kubelet/kubeadm-flags.env`: the node-specific kubelet flags kubeadm passes through
 * the `KUBELET_KUBEADM_ARGS` variable (upstream `phases/kubelet/flags.go`).
 *
 * kubeadm v1.37 sets only `--hostname-override` (when the node name differs from the hostname)
 * and `--register-with-taints` (a worker join with taints); the CRI socket lives in
 * `instance-config.yaml` and the pause image is not the kubelet's business any more (kubelet
 * v1.37 refuses `--pod-infra-container-image` and `--container-runtime-endpoint`). The flags
 * are merged with `nodeRegistration.kubeletExtraArgs` and sorted like every kubeadm argument
 * list, then written as `KUBELET_KUBEADM_ARGS="<args>"` with Go `%q` quoting: with no flags,
 * `KUBELET_KUBEADM_ARGS=""`.
 *
 * @module
 */
import type { Arg, NodeRegistrationOptions, Taint } from "../config/types.ts";
import { KUBELET_ENV_VARIABLE } from "../constants.ts";
import { argumentsToCommand, getArgValue } from "../manifests/arguments.ts";
import { goQuote } from "../text/go_quote.ts";
import type { LogFn } from "../ports/printer.ts";

/** Inputs of the kubelet flags. */
export interface KubeletFlagsOptions {
  nodeRegistration: Pick<NodeRegistrationOptions, "name" | "taints" | "kubeletExtraArgs">;
  /** The OS hostname, lowercased. */
  hostname: string;
  /** Pass `nodeRegistration.taints` as `--register-with-taints` (worker join only). */
  registerTaintsUsingFlags?: boolean;
  /** Verbose log lines (the `--hostname-override` decision). */
  log?: LogFn;
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
function kubeletBaseArgs(opts: KubeletFlagsOptions): Arg[] {
  const { nodeRegistration } = opts;
  const args: Arg[] = [];
  const taints = nodeRegistration.taints ?? [];
  if (opts.registerTaintsUsingFlags && taints.length > 0) {
    args.push({ name: "register-with-taints", value: taints.map(taintToString).join(",") });
  }
  const nodeName = kubeletNodeName(nodeRegistration, opts.hostname);
  if (nodeName !== opts.hostname) {
    opts.log?.(
      1,
      "flags_env.ts",
      `setting kubelet hostname-override to ${JSON.stringify(nodeName)}`,
    );
    args.push({ name: "hostname-override", value: nodeName });
  }
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
