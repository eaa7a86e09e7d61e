/**
 * `kubeadm join phase wait-control-plane` (upstream `waitcontrolplane.go` and
 * `WaitForControlPlaneComponents`): for a control-plane join, wait up to
 * `timeouts.controlPlaneComponentHealthCheck` for this node's components at the endpoints
 * their manifests give (`core/controlplane/health.ts`); the kube-apiserver's `/livez` is read
 * through `admin.conf` pointed at this node's own API server.
 *
 * @module
 */
import { KubeconfigFile } from "../../constants.ts";
import {
  controlPlaneHealthTargets,
  controlPlaneHelpLines,
  readControlPlanePods,
  waitForControlPlaneComponents,
} from "../../controlplane/health.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import type { HealthProbe } from "../../ports/http.ts";
import type { KubeClient } from "../../kube/client.ts";
import { utf8 } from "../../text/utf8.ts";
import { parseKubeconfig, withServer } from "../../kubeconfig/kubeconfig.ts";
import { localAPIEndpointURL } from "../../net/endpoint.ts";
import { parseDuration } from "../../text/duration.ts";
import type { JoinData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/**
 * The wait's probe: the kube-apiserver's `apiServerURL` is read through `client` (this node's
 * admin identity, as upstream), the other components' health ports through `node`; each read
 * within the probe's bound (the time the wait has left).
 */
export function controlPlaneProbe(
  client: KubeClient,
  apiServerURL: string,
  node: HealthProbe,
): HealthProbe {
  return {
    async get(url, options) {
      if (url !== apiServerURL) return await node.get(url, options);
      try {
        const limits = { timeoutMs: options?.timeoutMs };
        return { status: (await client.getRaw(new URL(url).pathname, limits)).status };
      } catch (e) {
        return { error: errorMessage(e) };
      }
    },
    close: async () => await node.close?.(),
  };
}

/** Runs the phase; a no-op for worker joins and in dry-run. */
export async function runJoinWaitControlPlane(data: JoinData): Promise<void> {
  const cp = data.cfg.controlPlane;
  if (!cp || data.dryRun) return;
  const adminPath = `${data.kubeconfigDir}/${KubeconfigFile.admin}`;
  const raw = await data.files.read(adminPath);
  if (raw === undefined) throw new KubeadmError(`open ${adminPath}: no such file or directory`);
  const admin = withServer(
    parseKubeconfig(utf8(raw), adminPath),
    localAPIEndpointURL(cp.localAPIEndpoint),
  );
  const client = await data.clientFor(admin);

  const pods = await readControlPlanePods(data.files, data.manifestDir, true);
  const targets = controlPlaneHealthTargets(pods, cp.localAPIEndpoint);
  const outcome = await waitForControlPlaneComponents(
    {
      health: controlPlaneProbe(client, targets[0].url, data.node.health),
      clock: data.clock,
      sleep: data.sleep,
      out: data.out,
    },
    targets,
    parseDuration(data.cfg.timeouts.controlPlaneComponentHealthCheck),
  );
  if (outcome.pending.length === 0) return;
  for (const line of controlPlaneHelpLines(data.cfg.nodeRegistration.criSocket)) {
    data.out.info(line);
  }
  const errors = outcome.pending.map((t) =>
    outcome.errors.get(t.name) ?? `${t.name} did not answer`
  );
  throw new KubeadmError(
    `failed while waiting for the control plane to start: ${
      errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`
    }`,
  );
}

/** `join phase wait-control-plane`. */
export const waitControlPlanePhase: Phase<JoinData> = {
  name: "wait-control-plane",
  short: "Wait for the control plane to start",
  run: runJoinWaitControlPlane,
  inputs: [],
};
