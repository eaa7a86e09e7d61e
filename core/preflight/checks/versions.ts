/**
 * Version checks: `KubernetesVersion` (the target release is not newer than this kubeadm) and
 * `KubeletVersion` (the installed kubelet is within the supported skew).
 *
 * @module
 */
import { KUBERNETES_VERSION, MINIMUM_KUBELET_MINOR } from "../../versions.ts";
import { compareSemVer, formatSemVer, parseSemVer, type SemVer } from "../../config/version.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { type Check, fail, pass, warn } from "../check.ts";

/** Oldest kubelet this kubeadm supports (upstream's `MinimumKubeletVersion`: minor − 3). */
const MINIMUM_KUBELET_VERSION: SemVer = {
  major: 1,
  minor: MINIMUM_KUBELET_MINOR,
  patch: 0,
  preRelease: "",
  build: "",
};

/** The pattern upstream parses `kubelet --version` output with. */
const KUBELET_VERSION_RE =
  /^\s*Kubernetes v((0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_.+]*)?)\s*$/;

function parse(text: string): SemVer {
  const v = parseSemVer(text.trim());
  if (!v) throw new KubeadmError(`could not parse ${JSON.stringify(text)} as version`);
  return v;
}

/**
 * Warns when the target Kubernetes version is at or beyond the next minor of this kubeadm
 * (`<major>.<minor+1>.0-0`); fails only when a version cannot be parsed.
 */
export function kubernetesVersionCheck(
  kubernetesVersion: string,
  kubeadmVersion: string = KUBERNETES_VERSION,
): Check {
  return {
    name: "KubernetesVersion",
    severity: "warning",
    run(_host, log) {
      log?.(1, "versions.ts", "validating Kubernetes and kubeadm version");
      // Upstream skips the check for "super-custom builds" without a version.
      if (kubeadmVersion.startsWith("v0.0.0")) return Promise.resolve(pass());
      let kubeadm: SemVer;
      let target: SemVer;
      try {
        kubeadm = parse(kubeadmVersion);
      } catch (e) {
        return Promise.resolve(fail(
          `couldn't parse kubeadm version ${JSON.stringify(kubeadmVersion)}: ${errorMessage(e)}`,
        ));
      }
      try {
        target = parse(kubernetesVersion);
      } catch (e) {
        return Promise.resolve(fail(
          `couldn't parse Kubernetes version ${JSON.stringify(kubernetesVersion)}: ${
            errorMessage(e)
          }`,
        ));
      }
      const firstUnsupported: SemVer = {
        major: kubeadm.major,
        minor: kubeadm.minor + 1,
        patch: 0,
        preRelease: "0",
        build: "",
      };
      if (compareSemVer(target, firstUnsupported) >= 0) {
        return Promise.resolve(warn(
          "Kubernetes version is greater than kubeadm version. Please consider to upgrade " +
            `kubeadm. Kubernetes version: ${
              formatSemVer(target)
            }. Kubeadm version: ${kubeadm.major}.${kubeadm.minor}.x`,
        ));
      }
      return Promise.resolve(pass());
    },
  };
}

/** Parses `kubelet --version` output (`Kubernetes v1.37.2`) the way upstream does. */
export function parseKubeletVersion(output: string): SemVer {
  const clean = output.trim();
  const m = KUBELET_VERSION_RE.exec(clean);
  const v = m ? parseSemVer(m[1]) : undefined;
  if (!v) throw new KubeadmError(`Unable to parse output from Kubelet: ${JSON.stringify(clean)}`);
  return v;
}

/**
 * Fails when `kubelet --version` cannot run or parse, when the kubelet is older than
 * {@link MINIMUM_KUBELET_VERSION}, or (when `kubernetesVersion` is given, i.e. on `init`) when
 * the kubelet's major or minor is above the control plane's.
 */
export function kubeletVersionCheck(kubernetesVersion = ""): Check {
  return {
    name: "KubeletVersion",
    severity: "error",
    async run(host, log) {
      log?.(1, "versions.ts", "validating kubelet version");
      let kubelet: SemVer;
      try {
        kubelet = parseKubeletVersion(await host.kubeletVersionOutput());
      } catch (e) {
        return fail(`couldn't get kubelet version: ${errorMessage(e)}`);
      }
      if (compareSemVer(kubelet, MINIMUM_KUBELET_VERSION) < 0) {
        return fail(
          `Kubelet version ${
            JSON.stringify(formatSemVer(kubelet))
          } is lower than kubeadm can support. Please upgrade kubelet`,
        );
      }
      if (kubernetesVersion !== "") {
        let cp: SemVer;
        try {
          cp = parse(kubernetesVersion);
        } catch (e) {
          return fail(
            `couldn't parse Kubernetes version ${JSON.stringify(kubernetesVersion)}: ${
              errorMessage(e)
            }`,
          );
        }
        if (kubelet.major > cp.major || kubelet.minor > cp.minor) {
          return fail(
            "the kubelet version is higher than the control plane version. This is not a " +
              "supported version skew and may lead to a malfunctional cluster. Kubelet version: " +
              `${JSON.stringify(formatSemVer(kubelet))} Control plane version: ${
                JSON.stringify(formatSemVer(cp))
              }`,
          );
        }
      }
      return pass();
    },
  };
}
