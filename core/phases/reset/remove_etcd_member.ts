/**
 * The reset `remove-etcd-member` phase: on a node with local (stacked) etcd, remove this
 * node's member from the etcd cluster and empty the etcd data directory.
 *
 * The data directory comes from the cluster's configuration, else from the local etcd
 * manifest (`etcd-data` volume), else the default `/var/lib/etcd`. The member is found by its
 * peer URL (`https://<advertiseAddress>:2380` from the cluster configuration, else the
 * manifest's `--initial-advertise-peer-urls`) through the cluster's etcd endpoints (else the
 * manifest's client URLs and peers), using the `apiserver-etcd-client` certificate (or
 * `etcd/healthcheck-client`). Upstream only removes the member when it could read the cluster
 * configuration; kubeadm-ts also does it from the manifest alone, and — a join killed after it
 * added this node's member as a learner, before it wrote the etcd manifest (k/kubeadm#3269) —
 * from the kube-apiserver manifest's `--advertise-address` and the cluster's etcd Pods.
 *
 * @module
 */
import { DEFAULT_ETCD_DATA_DIR, MANIFESTS_DIR } from "../../constants.ts";
import { errorMessage, KubeadmError } from "../../errors.ts";
import { utf8 } from "../../text/utf8.ts";
import type { TlsClientMaterial } from "../../ports/http.ts";
import type { ResetData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";
import { type LocalEtcdManifest, parseEtcdManifest } from "../../manifests/etcd_manifest.ts";
import { parseKubeYamlOne } from "../../yaml/kube_yaml.ts";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import { endpointsFromManifest, removeEtcdMember } from "../../etcd/member_remove.ts";
import { etcdClientURL, etcdPeerURL } from "../../manifests/etcd.ts";
import { cleanupDirProblem } from "./safety.ts";

/** The local etcd manifest. */
const ETCD_MANIFEST = `${MANIFESTS_DIR}/etcd.yaml`;

interface MemberTarget {
  peerURL: string;
  clientURL: string;
  endpoints: string[];
}

async function readManifest(data: ResetData): Promise<LocalEtcdManifest | undefined> {
  const bytes = await data.node.machine.files.read(ETCD_MANIFEST);
  return bytes === undefined ? undefined : parseEtcdManifest(utf8(bytes), ETCD_MANIFEST);
}

/**
 * The `--advertise-address` of this node's kube-apiserver manifest: the address a control
 * plane's etcd member is added with, when the etcd manifest never got written (a join killed
 * after adding the member as a learner).
 */
async function apiServerAdvertiseAddress(data: ResetData): Promise<string | undefined> {
  const bytes = await data.node.machine.files.read(`${MANIFESTS_DIR}/kube-apiserver.yaml`);
  if (bytes === undefined) return undefined;
  try {
    const pod = parseKubeYamlOne(utf8(bytes), "kube-apiserver.yaml") as Pod;
    const command = pod.spec?.containers?.[0]?.command ?? [];
    return command.find((a) => a.startsWith("--advertise-address="))?.split("=")[1] || undefined;
  } catch {
    return undefined;
  }
}

async function memberTarget(
  data: ResetData,
  manifest: LocalEtcdManifest | undefined,
): Promise<MemberTarget | undefined> {
  const address = data.cluster?.localAPIEndpoint?.advertiseAddress ??
    (manifest || !data.cluster?.etcdEndpoints?.length
      ? undefined
      : await apiServerAdvertiseAddress(data));
  const endpoint = address ? { advertiseAddress: address } : undefined;
  if (endpoint?.advertiseAddress) {
    const endpoints = data.cluster?.etcdEndpoints?.length
      ? data.cluster.etcdEndpoints
      : manifest
      ? endpointsFromManifest(manifest)
      : [etcdClientURL(endpoint.advertiseAddress)];
    return {
      peerURL: etcdPeerURL(endpoint.advertiseAddress),
      clientURL: etcdClientURL(endpoint.advertiseAddress),
      endpoints,
    };
  }
  if (manifest && manifest.peerURLs.length > 0 && manifest.advertiseClientURLs.length > 0) {
    return {
      peerURL: manifest.peerURLs[0],
      clientURL: manifest.advertiseClientURLs[0],
      endpoints: endpointsFromManifest(manifest),
    };
  }
  return undefined;
}

/** The etcd client certificate: `apiserver-etcd-client`, else `etcd/healthcheck-client`. */
async function etcdClientTLS(data: ResetData): Promise<TlsClientMaterial> {
  const dir = data.certificatesDir;
  const ca = await data.node.machine.files.read(`${dir}/etcd/ca.crt`);
  if (ca === undefined) throw new KubeadmError(`could not read the etcd CA ${dir}/etcd/ca.crt`);
  for (const base of ["apiserver-etcd-client", "etcd/healthcheck-client"]) {
    const cert = await data.node.machine.files.read(`${dir}/${base}.crt`);
    const key = await data.node.machine.files.read(`${dir}/${base}.key`);
    if (cert && key) return { caPem: utf8(ca), certPem: utf8(cert), keyPem: utf8(key) };
  }
  throw new KubeadmError(
    `no etcd client certificate found in ${dir} (apiserver-etcd-client or etcd/healthcheck-client)`,
  );
}

/** Empties the etcd data directory `dir` (when it is safe to), saying so. */
export async function cleanDataDir(data: ResetData, dir: string): Promise<void> {
  const problem = cleanupDirProblem(dir);
  if (problem !== undefined) {
    data.out.warn(
      `[reset] Not deleting the contents of the etcd data directory ${
        JSON.stringify(dir)
      }: ${problem}`,
    );
    return;
  }
  try {
    await data.node.cleanDir(dir);
    data.etcdDataDirEmptied = dir;
    data.out.info(`[reset] Deleted contents of the etcd data directory: ${dir}`);
  } catch (e) {
    data.out.warn(
      `[reset] Failed to delete contents of the etcd directory: ${JSON.stringify(dir)}, error: ${
        errorMessage(e)
      }`,
    );
  }
}

/** Runs the phase. */
export async function runRemoveEtcdMember(data: ResetData): Promise<void> {
  data.out.log?.(1, "remove_etcd_member.ts", "[reset] Checking for etcd config");
  let manifest: LocalEtcdManifest | undefined;
  let dataDir: string;
  try {
    if (data.cluster?.etcd?.local) {
      dataDir = data.cluster.etcd.local.dataDir || DEFAULT_ETCD_DATA_DIR;
      manifest = await readManifest(data).catch(() => undefined);
    } else {
      if (!data.cluster) {
        data.out.warn("[reset] No kubeadm config, using etcd pod spec to get data directory");
      }
      manifest = await readManifest(data);
      // A missing manifest (removed by an earlier cleanup-node run) means the default.
      dataDir = manifest?.dataDir ?? DEFAULT_ETCD_DATA_DIR;
      if (data.cluster?.etcd?.external) throw new KubeadmError("external etcd");
    }
  } catch {
    data.out.info("[reset] No etcd config found. Assuming external etcd");
    data.out.info("[reset] Please, manually reset etcd to prevent further issues");
    return;
  }

  const target = await memberTarget(data, manifest);
  let cleaned = false;
  if (target) {
    if (data.dryRun) {
      data.out.info("[dryrun] Would remove the etcd member on this node from the etcd cluster");
      data.out.info(`[dryrun] Would delete contents of the etcd data directory: ${dataDir}`);
    } else {
      let removed = false;
      try {
        const tls = await etcdClientTLS(data);
        await removeEtcdMember(
          (endpoints) => data.node.etcdClient(endpoints, tls),
          target.endpoints,
          target.peerURL,
          target.clientURL,
          data.out.log,
        );
        removed = true;
      } catch (e) {
        data.out.warn(
          `[reset] Failed to remove etcd member: ${
            errorMessage(e)
          }, please manually remove this etcd member using etcdctl`,
        );
      }
      if (removed) {
        await cleanDataDir(data, dataDir);
        cleaned = true;
      }
    }
  }
  // Also when the member could not be handled (or cleanup-node ran first): stale data would
  // break the next init or join.
  if (!data.dryRun && !cleaned) {
    const entries = await data.node.machine.files.list(dataDir);
    if (entries !== undefined && entries.length > 0) await cleanDataDir(data, dataDir);
  }
}

/** `reset phase remove-etcd-member`. */
export const removeEtcdMemberPhase: Phase<ResetData> = {
  name: "remove-etcd-member",
  short: "Remove a local etcd member.",
  long: "Remove a local etcd member for a control plane node.",
  run: runRemoveEtcdMember,
  inputs: ["kubeconfig", "dryRun"],
};
