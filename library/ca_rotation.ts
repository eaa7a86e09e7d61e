/**
 * A CA's rotation as data: `planCaRotation` reports, from a control-plane node's files given as
 * data, where a rotation of the cluster, front-proxy or etcd CA stands (`none` when none runs)
 * and every step of `kubeadm certs rotate-ca` with the one to run next. It reads the stage with
 * the command's own code (`core/certs/ca_rotation.ts`).
 *
 * @module
 */
import {
  caRotationSteps,
  rotatedCA,
  type RotationStage,
  rotationState,
  type RotationStep,
} from "../core/certs/ca_rotation.ts";
import { PkiDirectory } from "../core/certs/pki_dir.ts";
import { certificatePin } from "../core/pki/pin.ts";
import { loadInitConfig } from "../core/config/parse.ts";
import { applyClusterStaticDefaults } from "../core/config/defaults.ts";
import { filesReader, type PlanFile, planPorts, type PlanRunOptions } from "./node_plan.ts";

export type { RotationStage, RotationStep } from "../core/certs/ca_rotation.ts";

/** Input of {@link planCaRotation}. */
export interface CaRotationOptions extends Pick<PlanRunOptions, "crypto"> {
  /** The control-plane node's certificates directory (`/etc/kubernetes/pki/...`), as files. */
  files: readonly PlanFile[];
  /** The cluster's ClusterConfiguration (its `certificatesDir`). Default: kubeadm's defaults. */
  config?: string;
  /**
   * The CA to rotate (`--ca`): `ca` (default), `front-proxy-ca` or `etcd-ca`; another name is
   * refused (a `KubeadmError` naming `--ca`).
   */
  ca?: string;
}

/** Where a rotation stands and what remains. */
export interface CaRotationPlan {
  /** The stage the files are at (`none`: no rotation under way). */
  stage: RotationStage;
  /** The pin (`sha256:…`) of the CA that signs now. */
  currentPin: string;
  /** The pin of the CA it rotates to, once prepared. */
  newPin?: string;
  /** Every step of a rotation, in order. */
  steps: RotationStep[];
  /** The index in `steps` of the next control-plane phase to run. */
  next: number;
}

const NEXT_PHASE: Record<RotationStage, string> = {
  none: "prepare",
  prepared: "trust",
  trusted: "reissue",
  signed: "finish",
  finished: "finish",
};

/** Plans `kubeadm certs rotate-ca` (see the module documentation). No I/O. */
export async function planCaRotation(o: CaRotationOptions): Promise<CaRotationPlan> {
  const ca = rotatedCA(o.ca ?? "ca");
  const { crypto } = planPorts(o);
  const cluster = applyClusterStaticDefaults(
    loadInitConfig(o.config, { source: "config" }).cluster ?? {},
  );
  const pki = new PkiDirectory(filesReader(o.files), cluster.certificatesDir, crypto);
  const state = await rotationState(pki, ca);
  const steps = caRotationSteps(ca);
  const phase = state.stage === "trusted" && !state.trustDone
    ? "trust"
    : state.stage === "signed" && !state.reissueDone
    ? "reissue"
    : NEXT_PHASE[state.stage];
  return {
    stage: state.stage,
    currentPin: await certificatePin(
      state.stage === "finished" ? state.newCA! : state.oldCA,
      crypto,
    ),
    newPin: state.newCA ? await certificatePin(state.newCA, crypto) : undefined,
    steps,
    next: steps.findIndex((s) => s.phase === phase),
  };
}
