/**
 * The kubeconfig inside the `cluster-info` ConfigMap, as discovery reads and writes it:
 * loading with `clientcmd.Load`'s rules, picking the cluster the way kubeadm does (the unnamed
 * cluster `""` first, else the current context's: upstream `GetClusterFromKubeConfig`), and
 * writing in `clientcmd.Write`'s exact layout.
 *
 * Built on `core/kubeconfig/kubeconfig.ts` (types, parsing, embedding). Two things are added
 * here: `clientcmd.Load` semantics (empty text is an empty config, `*-data` must be base64,
 * `apiVersion` must be `v1`) and client-go's `null` for empty lists when writing, which
 * upstream's `expected-kubeconfig.yaml` shows (`users: null`).
 *
 * @module
 */
import { errorMessage } from "../errors.ts";
import {
  embedData,
  embeddedText,
  type Kubeconfig,
  type KubeconfigCluster,
  type KubeconfigContext,
  type KubeconfigUser,
  parseKubeconfig,
} from "../kubeconfig/kubeconfig.ts";
import { base64Decode } from "../pki/pem.ts";
import { parseKubeYaml, toKubeYaml } from "../yaml/kube_yaml.ts";

export type { Kubeconfig, KubeconfigCluster, KubeconfigContext, KubeconfigUser };

/** An empty `kind: Config`. */
export function emptyKubeconfig(): Kubeconfig {
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [],
    contexts: [],
    "current-context": "",
    preferences: {},
    users: [],
  };
}

function checkBase64(v: unknown, field: string): void {
  if (v === undefined || v === null || v === "") return;
  if (typeof v !== "string") throw new Error(`${field}: expected a base64 string`);
  try {
    base64Decode(v);
  } catch {
    throw new Error(`${field}: illegal base64 data`);
  }
}

/**
 * Parses kubeconfig text (YAML or JSON) like `clientcmd.Load`: empty text is an empty config;
 * `kind`/`apiVersion`, when present, must be `Config`/`v1`; `*-data` fields must be base64.
 * Throws a plain `Error` with the reason (callers wrap it with their context).
 */
export function loadKubeconfig(text: string): Kubeconfig {
  const docs = parseKubeYaml(text, "kubeconfig");
  if (docs.length === 0) return emptyKubeconfig();
  const value = docs[0].value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(
      `couldn't get version/kind; json parse error: expected a mapping, got ${
        Array.isArray(value) ? "a list" : JSON.stringify(value)
      }`,
    );
  }
  const rec = value as Record<string, unknown>;
  if (rec.kind !== undefined && rec.kind !== "" && rec.kind !== "Config") {
    throw new Error(`no kind ${JSON.stringify(rec.kind)} is registered for version "v1"`);
  }
  if (rec.apiVersion !== undefined && rec.apiVersion !== "" && rec.apiVersion !== "v1") {
    throw new Error(
      `no kind "Config" is registered for version ${JSON.stringify(rec.apiVersion)}`,
    );
  }
  let config: Kubeconfig;
  try {
    config = parseKubeconfig(text, "kubeconfig");
  } catch (e) {
    throw new Error(errorMessage(e).replace(/^kubeconfig: /, ""), { cause: e });
  }
  config.clusters.forEach((c, i) => {
    if (typeof c.cluster !== "object" || c.cluster === null || Array.isArray(c.cluster)) {
      throw new Error(`clusters[${i}].cluster: expected an object`);
    }
    checkBase64(
      c.cluster["certificate-authority-data"],
      `clusters[${i}].certificate-authority-data`,
    );
  });
  config.users.forEach((u, i) => {
    checkBase64(u.user?.["client-certificate-data"], `users[${i}].client-certificate-data`);
    checkBase64(u.user?.["client-key-data"], `users[${i}].client-key-data`);
  });
  return config;
}

/** A cluster entry with its name. */
export interface NamedCluster {
  name: string;
  cluster: KubeconfigCluster;
}

/**
 * The cluster kubeadm uses from a kubeconfig (upstream `GetClusterFromKubeConfig`): the
 * cluster named `""` when there is one, else the current context's cluster. Throws when the
 * current context or its cluster is missing.
 */
export function clusterFromKubeconfig(config: Kubeconfig): NamedCluster {
  const clusters = config.clusters ?? [];
  const unnamed = clusters.find((c) => (c.name ?? "") === "" && c.cluster);
  if (unnamed) return { name: "", cluster: unnamed.cluster };
  const current = config["current-context"] ?? "";
  const context = (config.contexts ?? []).find((c) => (c.name ?? "") === current)?.context;
  if (!context) {
    throw new Error(
      `the current context ${JSON.stringify(current)} is not defined in the kubeconfig`,
    );
  }
  const name = context.cluster ?? "";
  const cluster = clusters.find((c) => (c.name ?? "") === name)?.cluster;
  if (!cluster) {
    throw new Error(
      `the cluster ${JSON.stringify(name)} of the current context ${
        JSON.stringify(current)
      } is not defined in the kubeconfig`,
    );
  }
  return { name, cluster };
}

/** The PEM text of a cluster's `certificate-authority-data` (empty when absent). */
export function certificateAuthorityPem(cluster: KubeconfigCluster): string {
  const data = cluster["certificate-authority-data"];
  if (!data) return "";
  try {
    return embeddedText(data);
  } catch (e) {
    throw new Error(`certificate-authority-data: ${errorMessage(e)}`);
  }
}

/** Base64 of PEM text, for `certificate-authority-data` / `client-*-data`. */
export function encodeKubeconfigData(pem: string): string {
  return embedData(pem);
}

/**
 * Serialises a kubeconfig exactly as `clientcmd.Write` does: keys sorted, empty `clusters`,
 * `contexts` and `users` as `null`, empty `preferences` left out.
 */
export function writeKubeconfig(config: Kubeconfig): string {
  const list = <T>(l: T[] | null | undefined) => (l && l.length > 0 ? l : null);
  const { preferences, ...rest } = config;
  return toKubeYaml({
    ...rest,
    ...(preferences && Object.keys(preferences).length > 0 ? { preferences } : {}),
    apiVersion: "v1",
    kind: "Config",
    clusters: list(config.clusters),
    contexts: list(config.contexts),
    "current-context": config["current-context"] ?? "",
    users: list(config.users),
  });
}
