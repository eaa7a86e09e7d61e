/**
 * What `reset` reads from the local etcd static Pod manifest
 * (`/etc/kubernetes/manifests/etcd.yaml`): the data directory (the `etcd-data` volume), this
 * member's peer and client URLs, and the peers it was started with.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import { parseKubeYamlOne } from "../yaml/kube_yaml.ts";

/** The etcd settings found in the manifest. */
export interface LocalEtcdManifest {
  /** Host path of the `etcd-data` volume. */
  dataDir: string;
  /** `--name`. */
  name?: string;
  /** `--advertise-client-urls`. */
  advertiseClientURLs: string[];
  /** `--initial-advertise-peer-urls`. */
  peerURLs: string[];
  /** `--initial-cluster` entries. */
  initialCluster: { name: string; peerURL: string }[];
}

function list(value: string | undefined): string[] {
  return (value ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/** Parses the manifest; throws `invalid etcd pod manifest` when it has no `etcd-data` volume. */
export function parseEtcdManifest(text: string, source: string): LocalEtcdManifest {
  const pod = parseKubeYamlOne(text, source) as {
    spec?: {
      volumes?: { name?: string; hostPath?: { path?: string } }[];
      containers?: { name?: string; command?: string[]; args?: string[] }[];
    };
  };
  const dataDir = pod?.spec?.volumes?.find((v) => v?.name === "etcd-data")?.hostPath?.path ?? "";
  if (dataDir === "") throw new KubeadmError("invalid etcd pod manifest");
  const container = pod.spec?.containers?.find((c) => c?.name === "etcd") ??
    pod.spec?.containers?.[0];
  const flags = new Map<string, string>();
  for (const arg of [...(container?.command ?? []), ...(container?.args ?? [])]) {
    const m = /^--([^=]+)=(.*)$/.exec(String(arg));
    if (m) flags.set(m[1], m[2]);
  }
  return {
    dataDir,
    name: flags.get("name"),
    advertiseClientURLs: list(flags.get("advertise-client-urls")),
    peerURLs: list(flags.get("initial-advertise-peer-urls")),
    initialCluster: list(flags.get("initial-cluster")).map((entry) => {
      const i = entry.indexOf("=");
      return { name: entry.slice(0, i), peerURL: entry.slice(i + 1) };
    }).filter((e) => e.name !== "" && e.peerURL !== ""),
  };
}
