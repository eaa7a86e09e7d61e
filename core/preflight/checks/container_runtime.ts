/**
 * Checks that talk to the container runtime (upstream v1.37 `preflight/checks.go`): `CRI` (the
 * runtime behind the CRI socket answers and is ready), `ContainerRuntimeVersion` (the runtime
 * implements the CRI `RuntimeConfig` call the kubelet uses for the cgroup driver) and
 * `ImagePull` (the control-plane images are present or can be pulled). Each connects on its
 * own; a runtime that cannot be reached is an error of each.
 *
 * @module
 */
import type { ResolvedConfig } from "../../config/types.ts";
import { errorMessage } from "../../errors.ts";
import { dnsImage, etcdImage, kubernetesImage, pauseImage } from "../../manifests/images.ts";
import { type Check, type CheckOutcome, fail, pass, warn } from "../check.ts";
import type { ContainerRuntime } from "../../ports/container_runtime.ts";
import type { Machine } from "../../ports/machine.ts";
import type { LogFn } from "../../ports/printer.ts";

/**
 * The images a control-plane node runs, in `kubeadm config images list` order: API server,
 * controller manager, scheduler, kube-proxy, CoreDNS, pause, etcd (local etcd only). Disabled
 * addons are left out.
 */
export function controlPlaneImages(cluster: ResolvedConfig["cluster"], log?: LogFn): string[] {
  const out = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"].map((n) =>
    kubernetesImage(n, cluster)
  );
  if (!cluster.proxy?.disabled) out.push(kubernetesImage("kube-proxy", cluster));
  if (!cluster.dns?.disabled) out.push(dnsImage(cluster));
  out.push(pauseImage(cluster));
  if (!cluster.etcd.external) out.push(etcdImage(cluster, log));
  return out;
}

/**
 * The runtime behind `socket`, connected; or, when nothing answers, the failing outcome with
 * upstream's error (every runtime check connects on its own since v1.35).
 */
async function connectRuntime(
  host: Machine,
  socket: string,
): Promise<ContainerRuntime | CheckOutcome> {
  const rt = host.containerRuntime(socket);
  try {
    await rt.connect();
  } catch (e) {
    return fail(`could not connect to the container runtime: ${errorMessage(e)}`);
  }
  return rt;
}

function isOutcome(v: ContainerRuntime | CheckOutcome): v is CheckOutcome {
  return "errors" in v;
}

/** `CRI`: fails when nothing answers on the socket (since v1.35) or the runtime is not ready. */
export function containerRuntimeCheck(socket: string): Check {
  return {
    name: "CRI",
    severity: "error",
    async run(host, log) {
      log?.(1, "container_runtime.ts", "validating the container runtime");
      const rt = await connectRuntime(host, socket);
      if (isOutcome(rt)) return rt;
      try {
        await rt.isRunning();
      } catch (e) {
        return fail(`container runtime is not running: ${errorMessage(e)}`);
      }
      return pass();
    },
  };
}

/** The warning for a runtime without the CRI `RuntimeConfig` call (kubeadm v1.37.2). */
export const RUNTIME_CONFIG_UNIMPLEMENTED =
  "You must update your container runtime to a version that supports the CRI method RuntimeConfig. " +
  "Falling back to using cgroupDriver from kubelet config will be removed in 1.38. " +
  "For more information, see https://git.k8s.io/enhancements/keps/sig-node/4033-group-driver-detection-over-cri";

/**
 * `ContainerRuntimeVersion` (v1.35+): the runtime must answer the CRI `RuntimeConfig` call; one
 * that does not implement it only gets a warning in v1.37 (an error from the kubelet v1.38
 * on), any other failure of the call is an error.
 */
export function containerRuntimeVersionCheck(socket: string): Check {
  return {
    name: "ContainerRuntimeVersion",
    // Its own finding (no RuntimeConfig) is a warning in v1.37; an unreachable runtime errs.
    severity: "warning",
    async run(host, log) {
      log?.(1, "container_runtime.ts", "validating the container runtime version compatibility");
      const rt = await connectRuntime(host, socket);
      if (isOutcome(rt)) return rt;
      let config;
      try {
        config = await rt.runtimeConfig();
      } catch (e) {
        return fail(`could not check if the runtime config is available: ${errorMessage(e)}`);
      }
      return config === undefined ? warn(RUNTIME_CONFIG_UNIMPLEMENTED) : pass();
    },
  };
}

/** Options of {@link imagePullCheck}. */
export interface ImagePullOptions {
  socket: string;
  images: readonly string[];
  /** The pause image kubeadm expects the runtime to use. */
  sandboxImage: string;
  policy: string;
  /** Pull one image at a time (the default). */
  serial: boolean;
}

/**
 * `ImagePull`: pulls what is missing (`IfNotPresent`), everything (`Always`) or nothing
 * (`Never`). A runtime that cannot be reached fails this check (v1.35+: inside the check, so
 * `--ignore-preflight-errors=ImagePull` lets a node without a runtime go on).
 */
export function imagePullCheck(opts: ImagePullOptions): Check {
  return {
    name: "ImagePull",
    severity: "error",
    async run(host, log) {
      const rt = await connectRuntime(host, opts.socket);
      if (isOutcome(rt)) return rt;
      const say = (m: string) => log?.(1, "container_runtime.ts", m);
      if (opts.policy === "Never") {
        say(`skipping the pull of all images due to policy: ${opts.policy}`);
        return pass();
      }
      if (opts.policy !== "Always" && opts.policy !== "IfNotPresent") {
        return fail(`unsupported pull policy ${JSON.stringify(opts.policy)}`);
      }
      say(`using image pull policy: ${opts.policy}`);
      const out = pass();
      const sandbox = await rt.sandboxImage().catch(() => undefined);
      if (sandbox !== undefined && sandbox !== opts.sandboxImage) {
        out.warnings.push(
          `detected that the sandbox image ${JSON.stringify(sandbox)} of the container runtime ` +
            "is inconsistent with that used by kubeadm. It is recommended to use " +
            `${JSON.stringify(opts.sandboxImage)} as the CRI sandbox image.`,
        );
      }
      const pullOne = async (image: string) => {
        if (opts.policy === "IfNotPresent" && (await rt.imageExists(image))) {
          say(`image exists: ${image}`);
          return;
        }
        if (opts.serial) say(`pulling: ${image}`);
        try {
          await rt.pullImage(image);
          if (!opts.serial) say(`done pulling: ${image}`);
        } catch (e) {
          out.errors.push(`failed to pull image ${image}: ${errorMessage(e)}`);
        }
      };
      if (opts.serial) {
        for (const image of opts.images) await pullOne(image);
      } else {
        say("pulling all images in parallel");
        await Promise.all(opts.images.map(pullOne));
      }
      return out;
    },
  };
}
