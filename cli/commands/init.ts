/**
 * `kubeadm init` and `kubeadm init phase …`, generated from the core's init workflow.
 *
 * @module
 */
import type { Command } from "commander";
import { INIT_OUTLINE } from "../phase_outlines.ts";
import type { InitData } from "../../core/phases/init/data.ts";
import type { FlagName } from "../flags.ts";
import {
  type CommandDeps,
  registerWorkflowCommand,
  type WorkflowCommand,
} from "../workflow_command.ts";

/** The flags of `kubeadm init`, in upstream's (alphabetical) help order. */
const INIT_FLAGS: readonly FlagName[] = [
  "apiserver-advertise-address",
  "apiserver-bind-port",
  "apiserver-cert-extra-sans",
  "cert-dir",
  "certificate-auto-renewal",
  "certificate-key",
  "config",
  "control-plane-endpoint",
  "cri-socket",
  "dry-run",
  "feature-gates",
  "ignore-preflight-errors",
  "image-repository",
  "kubernetes-version",
  "node-name",
  "patches",
  "pod-network-cidr",
  "service-cidr",
  "service-dns-domain",
  "skip-certificate-key-print",
  "skip-phases",
  "skip-token-print",
  "token",
  "token-ttl",
  "upload-certs",
];

/** `kubeadm init`. */
export const INIT_COMMAND: WorkflowCommand<InitData> = {
  name: "init",
  summary: "Run this command in order to set up the Kubernetes control plane",
  flags: INIT_FLAGS,
  workflow: () => INIT_OUTLINE,
  prepare: async (invocation, deps) =>
    (await import("../init_runtime.ts")).prepareInit(invocation, deps),
};

/** Registers `init` and its generated `init phase …` tree. */
export function registerInit(program: Command, deps: CommandDeps = {}): void {
  registerWorkflowCommand(program, INIT_COMMAND, deps);
}
