/**
 * File and HTTPS discovery (upstream `discovery/file` and `discovery/https`): the joining node
 * is given a kubeconfig (a local file, or the body of an `https://` URL) that it trusts as is.
 * kubeadm validates it, embeds referenced CA and client-credential files, checks it can read
 * `cluster-info` with it over verified TLS (a 403 is accepted: the TLS handshake proved the
 * CA), and refreshes nothing but a missing CA from `cluster-info`. No JWS check is done.
 *
 * Pure: the files come through a {@link FileReader}, the network through
 * {@link FetchClusterInfoWith} / {@link FetchDiscoveryUrl}, time through a clock and a sleep.
 *
 * @module
 */
import {
  CLUSTER_INFO_CONFIGMAP,
  CLUSTER_INFO_KUBECONFIG_KEY,
  DefaultTimeouts,
  DISCOVERY_RETRY_INTERVAL_MS,
} from "../constants.ts";
import { formatDuration } from "../text/duration.ts";
import { DiscoveryError, errorMessage } from "../errors.ts";
import type { Clock, Sleep } from "../ports/clock.ts";
import type { FileReader } from "../ports/files.ts";
import { utf8 } from "../text/utf8.ts";
import { poll } from "../kube/retry.ts";
import { isForbidden } from "../kube/status.ts";
import type { TransportLimits } from "../ports/transport.ts";
import { askedRetryDelayMs, discoveryAttemptLimits } from "./fetch.ts";
import { clusterInfoCluster, type ClusterInfoConfigMap } from "./cluster_info.ts";
import {
  clusterFromKubeconfig,
  embedData,
  type Kubeconfig,
  type KubeconfigUser,
  lookupContext,
  parseKubeconfig,
} from "../kubeconfig/kubeconfig.ts";

/**
 * GETs `kube-public/cluster-info` with the discovery kubeconfig (its CA, its credentials).
 * Rejects (or resolves with an `Error`) on failure; a 403 must surface as an `ApiError` with
 * status 403 so that it is told apart.
 */
export type FetchClusterInfoWith = (
  kubeconfig: Kubeconfig,
  limits?: TransportLimits,
) => Promise<ClusterInfoConfigMap | Error>;

/** What {@link FetchDiscoveryUrl} got: the HTTP status and the body. */
export interface DiscoveryUrlResponse {
  status: number;
  body: string | Uint8Array;
}

/** GETs an `https://` URL with the host's trust store and returns the status and body. */
export type FetchDiscoveryUrl = (url: string) => Promise<DiscoveryUrlResponse>;

/** Inputs of {@link discoverWithFile}. */
export interface FileDiscoveryInput {
  /** The discovery kubeconfig: parsed, or the text of the file / HTTPS body. */
  kubeconfig: Kubeconfig | string;
  /** Reads files the kubeconfig refers to (`certificate-authority`, `client-*`). */
  files?: FileReader;
  /** The network port. */
  fetchClusterInfo: FetchClusterInfoWith;
  clock: Clock;
  sleep: Sleep;
  /** Upstream `timeouts.discovery` (5m). */
  timeoutMs?: number;
  /** Delay between attempts (1s, {@link DISCOVERY_RETRY_INTERVAL_MS}; capped at the timeout). */
  intervalMs?: number;
  /** `-v=1` progress lines. */
  log?: (line: string) => void;
  /** Warnings (`[discovery] ...`) that upstream prints with klog.Warning. */
  warn?: (line: string) => void;
}

/** What file discovery settled on. */
export interface FileDiscoveryResult {
  /** The kubeconfig to use for the TLS bootstrap, files embedded, CA possibly refreshed. */
  kubeconfig: Kubeconfig;
  /** Name of the cluster entry used. */
  clusterName: string;
  /** Its API server URL. */
  server: string;
  /** Whether `cluster-info` could be read (false after a 403). */
  clusterInfoRead: boolean;
  /** Whether the CA data was copied from `cluster-info` (the file had none). */
  caRefreshed: boolean;
}

function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

/** The subset of client-go's `clientcmd.Validate` that applies to a discovery kubeconfig. */
export function validateKubeconfig(config: Kubeconfig): string | undefined {
  const clusters = config.clusters ?? [];
  const contexts = config.contexts ?? [];
  const users = config.users ?? [];
  if (
    clusters.length === 0 && contexts.length === 0 && users.length === 0 &&
    !config["current-context"]
  ) {
    return "invalid configuration: no configuration has been provided";
  }
  const errs: string[] = [];
  const current = config["current-context"];
  if (current && !contexts.some((c) => c.name === current)) {
    errs.push(`context was not found for specified context: ${current}`);
  }
  for (const { name, context } of contexts) {
    const user = context?.user ?? "";
    const cluster = context?.cluster ?? "";
    if (!user) errs.push(`user was not specified for context ${JSON.stringify(name)}`);
    else if (!users.some((u) => u.name === user)) {
      errs.push(`user ${JSON.stringify(user)} was not found for context ${JSON.stringify(name)}`);
    }
    if (!cluster) errs.push(`cluster was not specified for context ${JSON.stringify(name)}`);
    else if (!clusters.some((c) => c.name === cluster)) {
      errs.push(
        `cluster ${JSON.stringify(cluster)} was not found for context ${JSON.stringify(name)}`,
      );
    }
  }
  for (const { name, user } of users) {
    const u = user ?? {};
    if (u["client-certificate"] && u["client-certificate-data"]) {
      errs.push(
        `client-cert-data and client-cert are both specified for ${name}. client-cert-data will override.`,
      );
    }
    if (u["client-key"] && u["client-key-data"]) {
      errs.push(
        `client-key-data and client-key are both specified for ${name}; client-key-data will override`,
      );
    }
    if (
      (u["client-certificate"] || u["client-certificate-data"]) &&
      !u["client-key"] && !u["client-key-data"]
    ) {
      errs.push(
        `client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`,
      );
    }
    const methods = [
      ...(u.token ? ["token"] : []),
      ...(u.username || u.password ? ["basicAuth"] : []),
    ];
    if (methods.length > 1) {
      errs.push(
        `more than one authentication method found for ${name}; found [${
          methods.join(" ")
        }], only one is allowed`,
      );
    }
  }
  for (const { name, cluster } of clusters) {
    const c = cluster ?? { server: "" };
    if (Object.keys(c).length === 0) {
      errs.push("cluster has no server defined");
      continue;
    }
    if (!c.server) {
      errs.push(
        name
          ? `no server found for cluster ${JSON.stringify(name)}`
          : "default cluster has no server defined",
      );
    }
    if (c["certificate-authority"] && c["certificate-authority-data"]) {
      errs.push(
        `certificate-authority-data and certificate-authority are both specified for ${name}. certificate-authority-data will override.`,
      );
    }
  }
  return errs.length === 0 ? undefined : `invalid configuration: ${aggregate(errs)}`;
}

/** Whether the current user has credentials (token, basic auth, client cert + key). */
export function hasAuthenticationCredentials(config: Kubeconfig): boolean {
  const user = currentUser(config);
  if (!user) return false;
  if (user.token) return true;
  if (user.username && user.password) return true;
  return Boolean(
    (user["client-certificate"] || user["client-certificate-data"]) &&
      (user["client-key"] || user["client-key-data"]),
  );
}

function currentUser(config: Kubeconfig): KubeconfigUser | undefined {
  return config["current-context"] ? lookupContext(config).user : undefined;
}

async function readEmbedded(files: FileReader | undefined, path: string): Promise<string> {
  const data = files ? await files.read(path) : undefined;
  if (data === undefined) throw new DiscoveryError(`open ${path}: no such file or directory`);
  return utf8(data);
}

/**
 * Loads the body of an HTTPS discovery URL as a kubeconfig; any status but 200 is refused
 * (upstream v1.35+).
 */
export async function fetchDiscoveryKubeconfig(
  url: string,
  fetchUrl: FetchDiscoveryUrl,
): Promise<Kubeconfig> {
  const { status, body } = await fetchUrl(url);
  if (status !== 200) {
    throw new DiscoveryError(
      `error trying to fetch discovery kubeconfig over HTTPS from ${url}, received status ${status}`,
      { field: "--discovery-file", value: url },
    );
  }
  return parseKubeconfig(typeof body === "string" ? body : utf8(body), "kubeconfig", {
    clientcmd: true,
  });
}

async function validateConfigInfo(o: FileDiscoveryInput): Promise<FileDiscoveryResult> {
  const log = o.log ?? (() => {});
  const warn = o.warn ?? (() => {});
  const config: Kubeconfig = structuredClone(
    typeof o.kubeconfig === "string"
      ? parseKubeconfig(o.kubeconfig, "kubeconfig", { clientcmd: true })
      : o.kubeconfig,
  );
  if ((config.clusters ?? []).length < 1) {
    throw new DiscoveryError("the provided kubeconfig file must have at least one Cluster defined");
  }
  let current;
  try {
    current = clusterFromKubeconfig(config);
  } catch (e) {
    throw new DiscoveryError(`the provided kubeconfig file is malformed: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  const invalid = validateKubeconfig(config);
  if (invalid) throw new DiscoveryError(invalid);

  const cluster = current.cluster;
  if (!cluster["certificate-authority-data"] && cluster["certificate-authority"]) {
    try {
      cluster["certificate-authority-data"] = embedData(
        await readEmbedded(o.files, cluster["certificate-authority"]),
      );
      delete cluster["certificate-authority"];
    } catch (e) {
      throw new DiscoveryError(
        `error while reading certificate authority file defined in kubeconfig: ${errorMessage(e)}`,
        { cause: e },
      );
    }
  }

  if (hasAuthenticationCredentials(config)) {
    log(
      "[discovery] Using authentication credentials from the discovery file for validating TLS connection",
    );
    const user = currentUser(config)!;
    for (
      const [file, data, what] of [
        ["client-certificate", "client-certificate-data", "client cert"],
        ["client-key", "client-key-data", "client key"],
      ] as const
    ) {
      const path = user[file];
      if (!user[data] && path) {
        try {
          user[data] = embedData(await readEmbedded(o.files, path));
          delete user[file];
        } catch (e) {
          throw new DiscoveryError(
            `error while reading ${what} file defined in kubeconfig: ${errorMessage(e)}`,
            { cause: e },
          );
        }
      }
    }
  } else {
    log(
      "[discovery] Discovery file does not contains authentication credentials, using unauthenticated request for validating TLS connection",
    );
  }

  const timeoutMs = o.timeoutMs ?? DefaultTimeouts.discovery;
  const clock = o.clock;
  const deadline = clock.now().getTime() + timeoutMs;
  let clusterInfo: ClusterInfoConfigMap | undefined;
  try {
    clusterInfo = await poll<ClusterInfoConfigMap | undefined>(async () => {
      let r: ClusterInfoConfigMap | Error;
      try {
        r = await o.fetchClusterInfo(
          config,
          discoveryAttemptLimits(deadline, clock.now().getTime()),
        );
      } catch (e) {
        r = e instanceof Error ? e : new DiscoveryError(String(e));
      }
      if (!(r instanceof Error)) return { done: true, value: r };
      if (isForbidden(r)) {
        warn(
          `[discovery] Could not access the ${CLUSTER_INFO_CONFIGMAP} ConfigMap for refreshing the cluster-info information, but the TLS cert is valid so proceeding...`,
        );
        return { done: true, value: undefined };
      }
      log(
        `[discovery] Error reading the ${CLUSTER_INFO_CONFIGMAP} ConfigMap, will try again: ${r.message}`,
      );
      return { done: false, error: r, retryAfterMs: askedRetryDelayMs(r) };
    }, {
      clock,
      sleep: o.sleep,
      timeoutMs,
      intervalMs: Math.min(o.intervalMs ?? DISCOVERY_RETRY_INTERVAL_MS, timeoutMs),
    });
  } catch (e) {
    throw new DiscoveryError(
      `Abort reading the ${CLUSTER_INFO_CONFIGMAP} ConfigMap after timeout of ${
        formatDuration(timeoutMs)
      }: ${errorMessage(e)}`,
      { cause: e },
    );
  }

  const result: FileDiscoveryResult = {
    kubeconfig: config,
    clusterName: current.name,
    server: cluster.server ?? "",
    clusterInfoRead: clusterInfo !== undefined,
    caRefreshed: false,
  };
  const refreshedText = clusterInfo?.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
  if (!clusterInfo) return result;
  if (!refreshedText) {
    log(
      `[discovery] The ${CLUSTER_INFO_CONFIGMAP} ConfigMap isn't set up properly (no ${CLUSTER_INFO_KUBECONFIG_KEY} key in ConfigMap), but the TLS cert is valid so proceeding...`,
    );
    return result;
  }
  let refreshed: Kubeconfig;
  try {
    refreshed = parseKubeconfig(refreshedText, "kubeconfig", { clientcmd: true });
  } catch (e) {
    log(
      `[discovery] The ${CLUSTER_INFO_CONFIGMAP} ConfigMap isn't set up properly (couldn't parse the kubeconfig file in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${
        errorMessage(e)
      }), but the TLS cert is valid so proceeding...`,
    );
    return result;
  }
  let refreshedCluster;
  try {
    refreshedCluster = clusterInfoCluster(refreshed).cluster;
  } catch (e) {
    throw new DiscoveryError(
      `malformed kubeconfig in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  if ((cluster.server ?? "") !== (refreshedCluster.server ?? "")) {
    warn(
      `[discovery] the API Server endpoint ${
        JSON.stringify(cluster.server ?? "")
      } in use is different from the endpoint ${
        JSON.stringify(refreshedCluster.server ?? "")
      } which defined in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap`,
    );
  }
  if (!cluster["certificate-authority-data"] && refreshedCluster["certificate-authority-data"]) {
    cluster["certificate-authority-data"] = refreshedCluster["certificate-authority-data"];
    result.caRefreshed = true;
    log(`[discovery] Synced CertificateAuthorityData from the ${CLUSTER_INFO_CONFIGMAP} ConfigMap`);
  }
  return result;
}

/**
 * Runs file (or, with a kubeconfig fetched by {@link fetchDiscoveryKubeconfig}, HTTPS)
 * discovery. Throws a {@link DiscoveryError}
 * `couldn't validate the identity of the API Server: <reason>`.
 */
export async function discoverWithFile(o: FileDiscoveryInput): Promise<FileDiscoveryResult> {
  try {
    return await validateConfigInfo(o);
  } catch (e) {
    throw new DiscoveryError(
      `couldn't validate the identity of the API Server: ${errorMessage(e)}`,
      {
        cause: e,
      },
    );
  }
}
