/**
 * The cluster health checks `upgrade apply` and `upgrade plan` run before anything changes
 * (upstream `phases/upgrade/health.go`), as preflight checks `--ignore-preflight-errors`
 * accepts:
 *
 * - `CreateJob`: the cluster can run a workload. When at least one Node is schedulable, a Job
 *   `kube-system/upgrade-health-check-<unix ms>` running the pause image (`-v`, as user 999,
 *   tolerating the control-plane taint) must complete within 60 s; it deletes itself 65 s after
 *   finishing.
 * - `ControlPlaneNodesReady`: every Node labelled `node-role.kubernetes.io/control-plane` is
 *   Ready.
 * - `StaticPodManifest`: this node's kube-apiserver, kube-controller-manager and
 *   kube-scheduler manifests exist (in dry-run only said, not checked).
 *
 * @module
 */
import type { Job } from "kubernetes-types/batch/v1.d.ts";
import type { Node } from "kubernetes-types/core/v1.d.ts";
import { CONTROL_PLANE_LABEL } from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { NodeFiles } from "../ports/files.ts";
import type { Printer } from "../ports/printer.ts";
import type { KubeClient } from "../kube/client.ts";
import { poll } from "../kube/retry.ts";
import { type Check, fail, pass } from "../preflight/check.ts";
import { CONTROL_PLANE_COMPONENTS, staticPodManifestPath } from "../manifests/manifest_file.ts";

/** Name prefix of the `CreateJob` check's Job. */
export const HEALTH_CHECK_JOB_PREFIX = "upgrade-health-check";
/** How long `CreateJob` waits for each step (upstream: 60 s since v1.35). */
const HEALTH_CHECK_JOB_TIMEOUT_MS = 60_000;
const JOB_TIMEOUT_MARGIN_S = 5;
const POLL_INTERVAL_MS = 1_000;

/** The names of the checks, for `--ignore-preflight-errors`. */
export const CLUSTER_HEALTH_CHECK_NAMES = [
  "CreateJob",
  "ControlPlaneNodesReady",
  "StaticPodManifest",
] as const;

/** What the checks need. */
export interface ClusterHealthInput {
  client: KubeClient;
  /** The node's files (for `StaticPodManifest`). */
  files: NodeFiles;
  /** `/etc/kubernetes/manifests`. */
  manifestDir: string;
  /** The pause image of the cluster (the Job's container). */
  pauseImage: string;
  dryRun: boolean;
  /** Progress lines (`[dryrun] would check …`) and warnings. */
  out: Printer;
  /** Job name suffix source (epoch ms); default the client's clock. */
  now?: () => number;
  /** Bound of each `CreateJob` step (default 60 s). */
  jobTimeoutMs?: number;
}

/** The Job the `CreateJob` check creates. */
function healthCheckJob(name: string, pauseImage: string): Job {
  const seconds = HEALTH_CHECK_JOB_TIMEOUT_MS / 1000 + JOB_TIMEOUT_MARGIN_S;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: "kube-system" },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: seconds,
      activeDeadlineSeconds: seconds,
      template: {
        metadata: {},
        spec: {
          restartPolicy: "Never",
          securityContext: { runAsUser: 999, runAsGroup: 999, runAsNonRoot: true },
          tolerations: [{ key: CONTROL_PLANE_LABEL, effect: "NoSchedule" }],
          containers: [{ name: HEALTH_CHECK_JOB_PREFIX, image: pauseImage, args: ["-v"] }],
        },
      },
    },
  };
}

async function createJob(input: ClusterHealthInput): Promise<string[]> {
  const log = (m: string) => input.out.log?.(2, "health.ts", m);
  const timeoutMs = input.jobTimeoutMs ?? HEALTH_CHECK_JOB_TIMEOUT_MS;
  const client = input.client.withRetry({ timeoutMs: 0 });
  const timing = { ...client.timing, intervalMs: POLL_INTERVAL_MS, timeoutMs };
  const wrap = (message: string) => (e: unknown) => {
    throw new KubeadmError(`${message}: ${errorMessage(e)}`, { cause: e });
  };
  const fieldSelector = "spec.unschedulable=false";
  const nodes = await poll<Node[]>(async (window) => {
    try {
      return {
        done: true,
        value: await client.list<Node>("Node", { fieldSelector }, window.limits()),
      };
    } catch (e) {
      log(
        `Could not list Nodes with field selector ${JSON.stringify(fieldSelector)}: ${
          errorMessage(e)
        }`,
      );
      return { done: false, error: e };
    }
  }, timing).catch(
    wrap("could not check if there is at least one Node that can schedule a test Pod"),
  );
  if (nodes.length === 0) {
    input.out.warn(
      'The preflight check "CreateJob" was skipped because there are no schedulable Nodes in the cluster.',
    );
    return [];
  }
  const name = `${HEALTH_CHECK_JOB_PREFIX}-${
    (input.now ?? (() => client.timing.clock.now().getTime()))()
  }`;
  const job = healthCheckJob(name, input.pauseImage);
  const where = `${JSON.stringify(name)} in the namespace "kube-system"`;
  log(`Creating a Job ${where}`);
  await poll<true>(async (window) => {
    try {
      await client.create(job, window.limits());
      return { done: true, value: true };
    } catch (e) {
      log(`Could not create Job ${where}, retrying: ${errorMessage(e)}`);
      return { done: false, error: e };
    }
  }, timing).catch(wrap(`could not create Job ${where}`));
  await poll<true>(async (window) => {
    try {
      const got = await client.get<Job>(
        { kind: "Job", namespace: "kube-system", name },
        window.limits(),
      );
      if (got.status?.conditions?.some((c) => c.type === "Complete")) {
        return { done: true, value: true };
      }
      log(`Job ${where} is not yet complete, retrying`);
      return { done: false, error: new KubeadmError("no condition of type Complete") };
    } catch (e) {
      log(`could not get Job ${where}, retrying: ${errorMessage(e)}`);
      return { done: false, error: e };
    }
  }, timing).catch(wrap(`Job ${where} did not complete in ${timeoutMs / 1000}s`));
  log(`Job ${where} completed`);
  return [];
}

async function controlPlaneNodesReady(client: KubeClient): Promise<string[]> {
  let nodes: Node[];
  try {
    nodes = await client.list<Node>("Node", { labelSelector: `${CONTROL_PLANE_LABEL}=` });
  } catch (e) {
    return [
      `could not list nodes labeled with ${JSON.stringify(CONTROL_PLANE_LABEL)}: ${
        errorMessage(e)
      }`,
    ];
  }
  const notReady = nodes.filter((n) =>
    (n.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status !== "True")
  ).map((n) => n.metadata?.name ?? "");
  return notReady.length === 0
    ? []
    : [`there are NotReady control-planes in the cluster: [${notReady.join(" ")}]`];
}

async function staticPodManifests(input: ClusterHealthInput): Promise<string[]> {
  const missing: string[] = [];
  for (const component of CONTROL_PLANE_COMPONENTS) {
    const path = staticPodManifestPath(input.manifestDir, component);
    if (input.dryRun) {
      input.out.info(`[dryrun] would check if ${path} exists`);
      continue;
    }
    if (!(await input.files.exists(path))) missing.push(path);
  }
  return missing.length === 0 ? [] : [`manifest files not found: [${missing.join(" ")}]`];
}

function asCheck(name: string, run: () => Promise<string[]>): Check {
  return {
    name,
    severity: "error",
    async run() {
      try {
        const errors = await run();
        return errors.length === 0 ? pass() : fail(...errors);
      } catch (e) {
        return fail(errorMessage(e));
      }
    },
  };
}

/** Upstream's `CheckClusterHealth` checks, in its order. */
export function clusterHealthChecks(input: ClusterHealthInput): Check[] {
  return [
    asCheck("CreateJob", () => createJob(input)),
    asCheck("ControlPlaneNodesReady", () => controlPlaneNodesReady(input.client)),
    asCheck("StaticPodManifest", () => staticPodManifests(input)),
  ];
}
