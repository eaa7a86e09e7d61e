/**
 * Checks that talk to the container runtime: `CRI` (the runtime behind the CRI socket answers
 * and is ready) and `ImagePull` (the control-plane images are present or can be pulled).
 *
 * @module
 */
import type { ResolvedConfig } from "../../config/types.ts";
import { errorMessage } from "../../errors.ts";
import { dnsImage, etcdImage, kubernetesImage, pauseImage } from "../../manifests/images.ts";
import { type Check, fail, pass, warn } from "../check.ts";

/**
 * The images a control-plane node runs, in `kubeadm config images list` order: API server,
 * controller manager, scheduler, kube-proxy, CoreDNS, pause, etcd (local etcd only). Disabled
 * addons are left out.
 */
export function controlPlaneImages(cluster: ResolvedConfig["cluster"]): string[] {
  const out = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"].map((n) =>
    kubernetesImage(n, cluster)
  );
  if (!cluster.proxy?.disabled) out.push(kubernetesImage("kube-proxy", cluster));
  if (!cluster.dns?.disabled) out.push(dnsImage(cluster));
  out.push(pauseImage(cluster));
  if (!cluster.etcd.external) out.push(etcdImage(cluster));
  return out;
}

/**
 * `CRI`: fails when the runtime is connected but not ready. When nothing answers on the socket,
 * upstream does not add the check and only logs a warning; here that becomes the check's
 * warning so it shows in every report.
 */
export function containerRuntimeCheck(socket: string): Check {
  return {
    name: "CRI",
    severity: "error",
    async run(host) {
      const rt = host.containerRuntime(socket);
      try {
        await rt.connect();
      } catch (e) {
        return warn(
          "Couldn't create the interface used for talking to the container runtime: " +
            errorMessage(e),
        );
      }
      try {
        await rt.isRunning();
      } catch (e) {
        return fail(`container runtime is not running: ${errorMessage(e)}`);
      }
      return pass();
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
 * (`Never`). A runtime that cannot be reached fails this check (upstream fails the phase
 * outright; here `--ignore-preflight-errors=ImagePull` lets a node without a runtime go on).
 */
export function imagePullCheck(opts: ImagePullOptions): Check {
  return {
    name: "ImagePull",
    severity: "error",
    async run(host) {
      if (opts.policy === "Never") return pass();
      if (opts.policy !== "Always" && opts.policy !== "IfNotPresent") {
        return fail(`unsupported pull policy ${JSON.stringify(opts.policy)}`);
      }
      const rt = host.containerRuntime(opts.socket);
      try {
        await rt.connect();
      } catch (e) {
        return fail(
          `the container runtime at ${JSON.stringify(opts.socket)} is unavailable, so the ` +
            `images cannot be pulled: ${errorMessage(e)}`,
        );
      }
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
        if (opts.policy === "IfNotPresent" && (await rt.imageExists(image))) return;
        try {
          await rt.pullImage(image);
        } catch (e) {
          out.errors.push(`failed to pull image ${image}: ${errorMessage(e)}`);
        }
      };
      if (opts.serial) {
        for (const image of opts.images) await pullOne(image);
      } else {
        await Promise.all(opts.images.map(pullOne));
      }
      return out;
    },
  };
}
