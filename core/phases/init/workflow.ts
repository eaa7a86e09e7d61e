/**
 * The `kubeadm init` workflow of the command line: the phases of `./phases.ts`, their modules
 * loaded as they run, and kubeadm's preflight checks of the machine as the preflight phase's work.
 *
 * @module
 */
import { KubeadmError } from "../../errors.ts";
import type { Workflow } from "../../workflow/phase.ts";
import type { InitData } from "./data.ts";
import { type InitPhaseModules, initWorkflowWith } from "./phases.ts";

const preflight = () => import("../../preflight/init.ts");

/** Each phase module loaded when its phase first runs. */
const LAZY_MODULES: InitPhaseModules = {
  certs: () => import("./certs.ts"),
  kubeconfigs: () => import("./kubeconfig.ts"),
  controlPlane: () => import("./control_plane.ts"),
  etcd: () => import("./etcd.ts"),
  kubeletStart: () => import("./kubelet_start.ts"),
  waitControlPlane: () => import("./wait_control_plane.ts"),
  uploadConfig: () => import("./upload_config.ts"),
  uploadCerts: () => import("./upload_certs.ts"),
  markControlPlane: () => import("./mark_control_plane.ts"),
  bootstrapToken: () => import("./bootstrap_token.ts"),
  kubeletFinalize: () => import("./kubelet_finalize.ts"),
  addons: () => import("./addons.ts"),
  showJoinCommand: () => import("./show_join_command.ts"),
};

/** Builds the init workflow. */
export function initWorkflow(): Workflow<InitData> {
  return initWorkflowWith(LAZY_MODULES, runPreflightPhase);
}

async function runPreflightPhase(data: InitData): Promise<void> {
  if (!data.node) {
    throw new KubeadmError("the preflight phase needs a host to inspect", {
      hint: "the runtime did not provide one; skip it with --skip-phases=preflight",
    });
  }
  // `--ignore-preflight-errors` is already merged into nodeRegistration by the resolver.
  await (await preflight()).runInitPreflight(data, data.node.machine, {
    ignore: [],
    output: data.preflightOutput,
  });
}
