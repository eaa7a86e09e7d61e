/**
 * What `trust`, `reissue` and `finish` share on a control-plane node: write a stage's CA files
 * (and, for the cluster CA, the kubeconfig files' trust), restart the components reading them
 * one at a time (`controlplane/restart.ts`: waited for, rolled back when one does not come
 * back), and for the cluster CA point the controller-manager's signer where the stage wants it
 * and publish the stage's trust in cluster-info. A backup folder an interrupted run left (a
 * phase killed mid-way: in `reissue` it holds the old CA's key) makes the stage restart every
 * component and the kubelet, then removes it: the old key lingers no longer than the next
 * stage's run on this node, `finish` at the latest.
 *
 * @module
 */
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { Component, KubeconfigFile } from "../../constants.ts";
import { KubeadmError } from "../../errors.ts";
import type { PlannedFile } from "../../ports/files.ts";
import type { Certificate } from "../../pki/cert.ts";
import { utf8 } from "../../text/utf8.ts";
import {
  planRestarts,
  renewAndRestart,
  type RenewedFiles,
  restartPlanLines,
} from "../../controlplane/restart.ts";
import { renewTargets } from "../../certs/renew_targets.ts";
import { restartKubeletAndWait } from "../../kubelet/service.ts";
import {
  caFlag,
  controlPlaneAnnotation,
  kubeconfigWithTrust,
  newCAPath,
  oldCAPath,
} from "../../certs/ca_rotation.ts";
import {
  annotateNode,
  CONTROL_PLANE_SELECTOR,
  nodesNotYet,
  publishClusterInfoTrust,
} from "../../certs/ca_rotation_cluster.ts";
import type { RotateCaData } from "./data.ts";

/** The controller-manager's flag naming the certificate its signer uses. */
const SIGNING_CERT_FLAG = "--cluster-signing-cert-file";

/** The kubeconfig files of a control plane whose trust a stage sets (kubelet.conf: `node`). */
const TRUSTING_KUBECONFIGS = [
  KubeconfigFile.admin,
  KubeconfigFile.superAdmin,
  KubeconfigFile.controllerManager,
  KubeconfigFile.scheduler,
];

/** What a stage writes on a control plane. */
export interface StageWrite {
  /** The trust of the stage (ca.crt, kubeconfigs, cluster-info), signing CA first. */
  bundle: Certificate[];
  /** The CA files (`ca.crt`, `ca.key`, `signer.crt`), read by the CA's readers. */
  caFiles: PlannedFile[];
  /** The certificate the controller-manager signs with (a node path; the cluster CA only). */
  signerPath?: string;
  /** Leaves and kubeconfigs re-issued by the stage, by target name (`reissue`). */
  renewed?: RenewedFiles[];
}

/** The controller-manager manifest with its signer pointed at `path`. */
export function withSigningCert(manifest: Pod, path: string): Pod {
  const c = manifest.spec?.containers?.[0];
  if (!c?.command) {
    throw new KubeadmError(
      "the kube-controller-manager manifest has no command to set its signer in",
    );
  }
  const flag = `${SIGNING_CERT_FLAG}=${path}`;
  const i = c.command.findIndex((a) => a.startsWith(`${SIGNING_CERT_FLAG}=`));
  if (i >= 0) c.command[i] = flag;
  else c.command.push(flag);
  return manifest;
}

/** The kubeconfig files with the stage's trust, as renewed files (re-issued ones included). */
async function kubeconfigFiles(data: RotateCaData, stage: StageWrite): Promise<RenewedFiles[]> {
  const readers = new Map(renewTargets().map((t) => [t.name, t.readers]));
  const out: RenewedFiles[] = [];
  for (const name of TRUSTING_KUBECONFIGS) {
    const path = `${data.kubernetesDir}/${name}`;
    const reissued = stage.renewed?.find((r) => r.name === name);
    const text = reissued
      ? String(reissued.files[0].data)
      : utf8((await data.pki.files.read(path)) ?? new Uint8Array());
    if (!reissued && text === "") continue; // super-admin.conf exists on the first control plane only
    const next = kubeconfigWithTrust(text, stage.bundle, path) ?? (reissued ? text : undefined);
    if (next === undefined) continue;
    out.push({
      name,
      files: [{
        path,
        data: next,
        mode: 0o600,
        kind: "kubeconfig",
        keepExistingMode: true,
      }],
      readers: readers.get(name) ?? [],
    });
  }
  return out;
}

/**
 * Writes a stage on this control plane and restarts what reads it (see the module
 * documentation); in a dry run prints the files and the restarts instead.
 */
export async function applyStage(data: RotateCaData, stage: StageWrite): Promise<void> {
  const { ca } = data;
  const renewed: RenewedFiles[] = [
    { name: ca.name, files: stage.caFiles, readers: ca.readers },
    ...(stage.renewed ?? []).filter((r) => !TRUSTING_KUBECONFIGS.includes(r.name as never)),
    ...(ca.clusterWide ? await kubeconfigFiles(data, stage) : []),
  ];
  const plan = planRestarts(renewed);
  const { signerPath } = stage;
  const cm = plan.steps.find((s) => s.component === Component.controllerManager);
  if (cm && signerPath) cm.editManifest = (pod) => withSigningCert(pod, signerPath);
  if (data.dryRun) {
    for (const f of [...plan.unread, ...plan.steps.flatMap((s) => s.files)]) {
      data.out.info(`[dryrun] Would write ${f.path}`);
    }
    if (signerPath) data.out.info(`[dryrun] Would point ${SIGNING_CERT_FLAG} at ${signerPath}`);
    for (const line of restartPlanLines(plan, data.kubernetesDir)) data.out.info(line);
    if (ca.clusterWide) {
      data.out.info(
        `[dryrun] Would publish ${stage.bundle.length} CA certificate(s) in kube-public/cluster-info`,
      );
    }
    return;
  }
  const opened = await data.controlPlane();
  try {
    const resumed = await renewAndRestart(opened.value, { ...plan, resumeInterrupted: true });
    if (resumed.length > 0) {
      // As `certs auto-renewal run` does: the run interrupted may have been a renewal that
      // wrote kubelet.conf.
      data.out.info("[rotate-ca] Restarting the kubelet (after an interrupted run)");
      await restartKubeletAndWait({ ...data, kubelet: data.cfg.kubelet });
    }
    if (ca.clusterWide && await publishClusterInfoTrust(opened.value.client, stage.bundle)) {
      data.out.info(
        `[rotate-ca] cluster-info publishes ${stage.bundle.length} CA certificate(s), the signing one first`,
      );
    }
  } finally {
    opened.close();
  }
}

/** The rotation folder's CA pairs, loaded (their key checked). */
export async function rotationCAs(data: RotateCaData) {
  return {
    oldCA: await data.pki.loadCA(oldCAPath(data.ca)),
    newCA: await data.pki.loadCA(newCAPath(data.ca)),
  };
}

/** What every Node (or every control plane) must record before a phase goes on. */
export interface NodeRequirement {
  annotation: string;
  ok: (value: string) => boolean;
  /** What they have not done yet, for the message. */
  what: string;
  /** The phase to run on them. */
  run: string;
  /** Control planes only. */
  controlPlanes?: boolean;
}

/** Refuses to go on while a Node does not record what `required` asks, naming the Nodes. */
export async function requireEveryNode(
  data: RotateCaData,
  ...required: NodeRequirement[]
): Promise<void> {
  const opened = await data.controlPlane();
  try {
    for (const r of required) {
      const missing = await nodesNotYet(
        opened.value.client,
        (a) => r.ok(a[r.annotation] ?? ""),
        r.controlPlanes ? CONTROL_PLANE_SELECTOR : undefined,
      );
      if (missing.length === 0) continue;
      throw new KubeadmError(
        `Node ${missing.join(", ")} ${missing.length > 1 ? "do" : "does"} not ${r.what} yet`,
        {
          field: r.annotation,
          hint: `run "kubeadm certs rotate-ca phase ${r.run}${caFlag(data.ca)}" on ${
            missing.join(", ")
          }, then run this again; nothing was written`,
        },
      );
    }
  } finally {
    opened.close();
  }
}

/** The phases a control plane records (in order). */
export type ControlPlanePhase = "trust" | "reissue" | "finish";
const RECORDED: readonly ControlPlanePhase[] = ["trust", "reissue", "finish"];

/**
 * Whether a control plane's annotation says it completed `phase` (or a later one) of the
 * rotation to `pin`.
 */
export function controlPlaneDid(value: string, phase: ControlPlanePhase, pin: string): boolean {
  return RECORDED.slice(RECORDED.indexOf(phase)).some((p) => value === `${p}:${pin}`);
}

/** The requirement that every control plane completed `phase` of the rotation to `pin`. */
export function everyControlPlane(
  data: RotateCaData,
  phase: ControlPlanePhase,
  pin: string,
  what: string,
): NodeRequirement {
  return {
    annotation: controlPlaneAnnotation(data.ca),
    ok: (v) => controlPlaneDid(v, phase, pin),
    what,
    run: phase,
    controlPlanes: true,
  };
}

/**
 * Records on this control plane's Node that `phase` completed for the rotation to `pin`, and
 * returns the control planes that have not completed it yet (sorted).
 */
export async function recordControlPlane(
  data: RotateCaData,
  phase: ControlPlanePhase,
  pin: string,
): Promise<string[]> {
  const opened = await data.controlPlane();
  const annotation = controlPlaneAnnotation(data.ca);
  try {
    await annotateNode(opened.value.client, data.nodeName, { [annotation]: `${phase}:${pin}` });
    return await nodesNotYet(
      opened.value.client,
      (a) => controlPlaneDid(a[annotation] ?? "", phase, pin),
      CONTROL_PLANE_SELECTOR,
    );
  } finally {
    opened.close();
  }
}
