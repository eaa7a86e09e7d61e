/**
 * Where `kubeadm upgrade` learns versions (upstream `phases/upgrade/versiongetter.go`): the API
 * server's version, this kubeadm's, the kubelets' (from the Nodes), the control-plane
 * components' (from the image tags of their mirror Pods, per node), the deployed CoreDNS tag,
 * and release labels (`stable`, `stable-1.36`).
 *
 * kubeadm-ts never fetches release labels from `dl.k8s.io` (the core has no network): a label
 * resolves as upstream's does when the fetch fails (an air-gapped host), to this kubeadm's own
 * version with upstream's two warnings (`resolveKubernetesVersion`, as `init` resolves its
 * `kubernetesVersion`). An explicit version (`upgrade plan v1.37.2`, `upgrade apply`'s target)
 * answers every label ({@link offlineVersionGetter}, upstream's `OfflineVersionGetter`).
 *
 * @module
 */
import type { Deployment } from "kubernetes-types/apps/v1.d.ts";
import type { Node, Pod } from "kubernetes-types/core/v1.d.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { parseSemVer, resolveKubernetesVersion } from "../config/version.ts";
import type { PolicyVersionSource } from "./policy.ts";

/** Version → names of the nodes that run it. */
export type VersionMap = Record<string, string[]>;

/** Every version `upgrade plan` and `upgrade apply` look at (upstream `VersionGetter`). */
export interface VersionGetter extends PolicyVersionSource {
  /** Resolves a release label (`stable`, `stable-1.36`); rejects when it cannot. */
  versionFromLabel(label: string, description: string): Promise<string>;
  /** Image tag of each node's static Pod of a control-plane component. */
  componentVersions(component: string): Promise<VersionMap>;
  /** Tag of the CoreDNS image deployed (`""` when none is). */
  dnsAddonVersion(): Promise<string>;
}

/**
 * The tag of an image reference (upstream `image.TagFromImage`), `""` when it has none; a
 * digest after the tag is ignored.
 */
export function tagFromImage(image: string): string {
  const m = /^.*?(?::(\w[\w.-]*))?(?:@sha256:[a-fA-F\d]{64})?$/.exec(image);
  return m?.[1] ?? "";
}

/**
 * An image tag as a semantic version: registries do not allow `+`, so Kubernetes tags use
 * `_` for build metadata (upstream `convertImageTagMetadataToSemver`).
 */
export function imageTagToSemver(tag: string): string {
  return tag.replace("_", "+");
}

function addTo(map: VersionMap, version: string, node: string): void {
  (map[version] ??= []).push(node);
}

/** The DNS addon's image tag (upstream `dns.DeployedDNSAddon`). */
export async function deployedDNSAddonVersion(client: KubeClient): Promise<string> {
  let items: Deployment[];
  try {
    items = await client.list<Deployment>("Deployment", {
      namespace: "kube-system",
      labelSelector: "k8s-app=kube-dns",
    });
  } catch (e) {
    throw new KubeadmError(`couldn't retrieve DNS addon deployments: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  if (items.length === 0) return "";
  if (items.length > 1) {
    throw new KubeadmError(
      `multiple DNS addon deployments found: [${items.map((d) => d.metadata?.name).join(" ")}]`,
    );
  }
  return tagFromImage(items[0].spec?.template.spec?.containers[0]?.image ?? "");
}

/** Options of {@link kubeVersionGetter}. */
export interface KubeVersionGetterOptions {
  /** This kubeadm's version (`v1.37.2`). */
  kubeadmVersion: string;
  /**
   * The API server version to report instead of asking (upstream's dry-run client answers
   * with a faked server version).
   */
  serverVersion?: string;
  /** Where a release label's fallback warnings go (upstream logs them); default: dropped. */
  warn?: (line: string) => void;
}

/** The versions of a live cluster through an API client (upstream `KubeVersionGetter`). */
export function kubeVersionGetter(
  client: KubeClient,
  opts: KubeVersionGetterOptions,
): VersionGetter {
  return {
    async clusterVersion() {
      let version = opts.serverVersion;
      if (version === undefined) {
        try {
          version = (await client.version()).gitVersion;
        } catch (e) {
          throw new KubeadmError(
            `Couldn't fetch cluster version from the API Server: ${errorMessage(e)}`,
            { cause: e },
          );
        }
      }
      if (!parseSemVer(version)) {
        throw new KubeadmError(
          `Couldn't parse cluster version: could not parse ${JSON.stringify(version)} as version`,
        );
      }
      return version;
    },
    kubeadmVersion: () => opts.kubeadmVersion,
    versionFromLabel(label, description) {
      let resolved;
      try {
        resolved = resolveKubernetesVersion(label);
      } catch (e) {
        return Promise.reject(
          new KubeadmError(
            `Couldn't fetch latest ${description} from the internet: ${errorMessage(e)}`,
            { cause: e },
          ),
        );
      }
      for (const w of resolved.warnings) opts.warn?.(w);
      return Promise.resolve(resolved.version);
    },
    async kubeletVersions() {
      let nodes: Node[];
      try {
        nodes = await client.list<Node>("Node");
      } catch (e) {
        throw new KubeadmError("couldn't list all nodes in cluster", { cause: e });
      }
      const out: VersionMap = {};
      for (const n of nodes) {
        addTo(out, n.status?.nodeInfo?.kubeletVersion ?? "", n.metadata!.name!);
      }
      return out;
    },
    async componentVersions(component) {
      let pods: Pod[];
      try {
        pods = await client.list<Pod>("Pod", {
          namespace: "kube-system",
          labelSelector: `component=${component},tier=control-plane`,
        });
      } catch (e) {
        throw new KubeadmError(`couldn't list pods in cluster: ${errorMessage(e)}`, { cause: e });
      }
      const out: VersionMap = {};
      for (const p of pods) {
        const tag = imageTagToSemver(tagFromImage(p.spec?.containers[0]?.image ?? ""));
        addTo(out, tag, p.spec?.nodeName ?? "");
      }
      return out;
    },
    dnsAddonVersion: () => deployedDNSAddonVersion(client),
  };
}

/**
 * A getter whose labels all resolve to `version` (upstream `OfflineVersionGetter`); with an
 * empty `version` it is the wrapped getter.
 */
export function offlineVersionGetter(getter: VersionGetter, version: string): VersionGetter {
  if (version === "") return getter;
  return {
    ...getter,
    versionFromLabel(_label, description) {
      if (!parseSemVer(version)) {
        return Promise.reject(
          new KubeadmError(
            `Couldn't parse version ${description}: could not parse ${
              JSON.stringify(version)
            } as version`,
          ),
        );
      }
      return Promise.resolve(version);
    },
  };
}
