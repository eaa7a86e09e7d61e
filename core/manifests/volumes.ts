/**
 * hostPath volumes of the control-plane static Pods (upstream `phases/controlplane/volumes.go`).
 *
 * kube-apiserver: the certificates dir, `/etc/ssl/certs`, the CA-trust directories that exist
 * on the host and, with external etcd, the directories of its CA/cert/key files. The
 * controller-manager: the certificates dir, `/etc/ssl/certs`, its kubeconfig and the CA-trust
 * directories (kubeadm v1.37 no longer mounts the flexvolume plugin dir). The scheduler: its
 * kubeconfig. User `extraVolumes` come last and replace defaults of the same name.
 *
 * @module
 */
import type {
  ClusterConfiguration,
  ExternalEtcd,
  HostPathMount as UserMount,
} from "../config/types.ts";
import { Component, KubeconfigFile, KUBERNETES_DIR } from "../constants.ts";
import { type HostPathMount, HostPathMounts } from "./static_pod.ts";

/** Name of the certificates-dir volume. */
const K8S_CERTS_VOLUME = "k8s-certs";
/** Name of the `/etc/ssl/certs` volume. */
const CA_CERTS_VOLUME = "ca-certs";
/** `/etc/ssl/certs`, always mounted into the API server and controller-manager. */
const CA_CERTS_PATH = "/etc/ssl/certs";
/** Name of the kubeconfig volume of the controller-manager and scheduler. */
const KUBECONFIG_VOLUME = "kubeconfig";

/**
 * CA-trust directories `/etc/ssl/certs` may link into; each is mounted (as `etc-pki-ca-trust`
 * etc.) only when it exists on the host when the manifests are generated.
 */
const CA_CERTS_EXTRA_PATHS: readonly string[] = [
  "/etc/pki/ca-trust",
  "/etc/pki/tls/certs",
  "/etc/ca-certificates",
  "/usr/share/ca-certificates",
  "/usr/local/share/ca-certificates",
];

const DIRECTORY_OR_CREATE = "DirectoryOrCreate";
const FILE_OR_CREATE = "FileOrCreate";

/** Go's `path.Clean`. */
function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  if (rooted) return `/${joined}`;
  return joined === "" ? "." : joined;
}

/** Go's `filepath.Dir`. */
function dirName(p: string): string {
  const i = p.lastIndexOf("/");
  return cleanPath(i < 0 ? "" : p.slice(0, i + 1));
}

function volumeNameForPath(path: string): string {
  return path.replaceAll("/", "-").slice(1);
}

/**
 * Volumes for the directories holding the external etcd CA, cert and key: directories already
 * covered by `/etc/ssl/certs`, the CA-trust paths or the certificates dir are skipped, nested
 * directories collapse into their parent, and the rest are named `etcd-certs-<i>` in sorted
 * order (upstream `getEtcdCertVolumes`).
 */
function externalEtcdCertMounts(
  external: ExternalEtcd,
  certificatesDir: string,
): HostPathMount[] {
  const dirs = new Set<string>();
  for (const file of [external.caFile ?? "", external.certFile ?? "", external.keyFile ?? ""]) {
    const dir = dirName(file);
    if (
      dir === "." || CA_CERTS_EXTRA_PATHS.some((p) => dir.startsWith(p)) ||
      dir.startsWith(CA_CERTS_PATH) || dir.startsWith(certificatesDir)
    ) {
      continue;
    }
    let covered = false;
    for (const existing of [...dirs].sort()) {
      if (existing.startsWith(dir)) dirs.delete(existing);
      else if (dir.startsWith(existing)) covered = true;
    }
    if (!covered) dirs.add(dir);
  }
  return [...dirs].sort().map((dir, i) => ({
    name: `etcd-certs-${i}`,
    hostPath: dir,
    mountPath: dir,
    readOnly: true,
    pathType: DIRECTORY_OR_CREATE,
  }));
}

function userMount(v: UserMount): HostPathMount {
  return {
    name: v.name,
    hostPath: v.hostPath,
    mountPath: v.mountPath,
    readOnly: v.readOnly ?? false,
    pathType: v.pathType ?? "",
  };
}

function readOnlyDir(name: string, path: string): HostPathMount {
  return { name, hostPath: path, mountPath: path, readOnly: true, pathType: DIRECTORY_OR_CREATE };
}

function caTrustMounts(existingDirs: ReadonlySet<string>): HostPathMount[] {
  return CA_CERTS_EXTRA_PATHS.filter((p) => existingDirs.has(p)).map((p) =>
    readOnlyDir(volumeNameForPath(p), p)
  );
}

/** The control-plane component whose volumes are asked for. */
export type ControlPlaneComponent =
  | typeof Component.apiServer
  | typeof Component.controllerManager
  | typeof Component.scheduler;

/**
 * The hostPath mounts of one control-plane component, defaults first, then the component's
 * `extraVolumes` (replacing same-named defaults).
 */
export function controlPlaneMounts(
  component: ControlPlaneComponent,
  cluster: ClusterConfiguration & { certificatesDir: string },
  existingDirs: ReadonlySet<string>,
): HostPathMounts {
  const mounts = new HostPathMounts();
  const { certificatesDir } = cluster;
  switch (component) {
    case Component.apiServer: {
      mounts.add(readOnlyDir(K8S_CERTS_VOLUME, certificatesDir));
      mounts.add(readOnlyDir(CA_CERTS_VOLUME, CA_CERTS_PATH));
      if (cluster.etcd?.external) {
        for (const m of externalEtcdCertMounts(cluster.etcd.external, certificatesDir)) {
          mounts.add(m);
        }
      }
      for (const m of caTrustMounts(existingDirs)) mounts.add(m);
      for (const v of cluster.apiServer?.extraVolumes ?? []) mounts.add(userMount(v));
      break;
    }
    case Component.controllerManager: {
      const kubeconfig = `${KUBERNETES_DIR}/${KubeconfigFile.controllerManager}`;
      mounts.add(readOnlyDir(K8S_CERTS_VOLUME, certificatesDir));
      mounts.add(readOnlyDir(CA_CERTS_VOLUME, CA_CERTS_PATH));
      mounts.add({
        name: KUBECONFIG_VOLUME,
        hostPath: kubeconfig,
        mountPath: kubeconfig,
        readOnly: true,
        pathType: FILE_OR_CREATE,
      });
      for (const m of caTrustMounts(existingDirs)) mounts.add(m);
      for (const v of cluster.controllerManager?.extraVolumes ?? []) mounts.add(userMount(v));
      break;
    }
    case Component.scheduler: {
      const kubeconfig = `${KUBERNETES_DIR}/${KubeconfigFile.scheduler}`;
      mounts.add({
        name: KUBECONFIG_VOLUME,
        hostPath: kubeconfig,
        mountPath: kubeconfig,
        readOnly: true,
        pathType: FILE_OR_CREATE,
      });
      for (const v of cluster.scheduler?.extraVolumes ?? []) mounts.add(userMount(v));
      break;
    }
  }
  return mounts;
}
