/**
 * Bootstrap-token discovery (upstream `discovery/token`): learn the cluster's CA and API
 * server URL from the `cluster-info` ConfigMap, trusting it only when its kubeconfig is
 * JWS-signed with the bootstrap token and, when pins are given, its CA public key is pinned and
 * a second fetch over TLS verified with that CA returns the very same kubeconfig.
 *
 * The network comes in as {@link FetchClusterInfo}; time as a clock and a sleep. The steps,
 * their order and their error texts are upstream's:
 *
 * 1. Poll (immediately, then every 1s until the 5m timeout; upstream every 5s; longer when the
 *    server asks with a `Retry-After`) an insecure GET of cluster-info until it has a
 *    `jws-kubeconfig-<id>` key; on timeout return the last error seen.
 *    Unlike upstream (which gives each of the two polls the whole timeout and no request a
 *    deadline), one deadline bounds the whole discovery, and each request (connect, TLS,
 *    headers, body) ends by it: a server that answers slowly cannot stretch it.
 * 2. Check the kubeconfig key and the signature; load the kubeconfig and take its one cluster
 *    (exactly one is required, unlike upstream; it must be unnamed or the current context's). (The pins are parsed before step 1, so that a
 *    malformed one fails before any request; upstream parses them here.)
 * 3. No pins: done (the caller must warn that the CA was not verified).
 * 4. Check the CA bundle against the pins, poll again over TLS pinned to that bundle, and
 *    require the second kubeconfig to equal the first byte for byte.
 *
 * Every failure is a {@link DiscoveryError} `couldn't validate the identity of the API Server:
 * ...`. Messages carry the token id only, never the secret.
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import {
  CLUSTER_INFO_CONFIGMAP,
  CLUSTER_INFO_KUBECONFIG_KEY,
  DefaultTimeouts,
  DISCOVERY_RETRY_INTERVAL_MS,
} from "../constants.ts";
import { formatDuration } from "../text/duration.ts";
import { DiscoveryError, errorMessage } from "../errors.ts";
import type { Clock, Sleep } from "../ports/clock.ts";
import { parseToken, redactToken, type TokenParts } from "../bootstraptoken/token.ts";
import { poll } from "../kube/retry.ts";
import type { TransportLimits } from "../ports/transport.ts";
import { askedRetryDelayMs, discoveryAttemptLimits } from "./fetch.ts";
import { PinSet } from "../pki/pin.ts";
import { type CaCertSummary, summarizeCaBundle, validateClusterCA } from "./ca_bundle.ts";
import {
  clusterInfoCluster,
  type ClusterInfoConfigMap,
  hasSignatureFor,
  validateClusterInfoToken,
} from "./cluster_info.ts";
import { type Kubeconfig, parseKubeconfig } from "../kubeconfig/kubeconfig.ts";

/** How to reach the API server for one cluster-info fetch. */
export type ClusterInfoFetchMode =
  /** Anonymous, TLS certificate NOT verified (`insecure-skip-tls-verify`). */
  | { kind: "insecure" }
  /** Anonymous, TLS verified against exactly this PEM bundle (incl. the host name). */
  | { kind: "pinned"; caPem: string };

/**
 * Fetches `kube-public/cluster-info` from the discovery endpoint. Resolves with the ConfigMap;
 * rejects (or resolves with an `Error`) when the request fails.
 */
export type FetchClusterInfo = (
  mode: ClusterInfoFetchMode,
  limits?: TransportLimits,
) => Promise<ClusterInfoConfigMap | Error>;

/** Inputs of {@link discoverWithToken}. */
export interface TokenDiscoveryInput {
  /** The discovery bootstrap token `<id>.<secret>`. Secret. */
  token: string;
  /** `sha256:<hex>` pins of the cluster CA; empty means "unsafe skip CA verification". */
  caCertHashes?: readonly string[];
  /** The network port. */
  fetchClusterInfo: FetchClusterInfo;
  /** What checks the JWS signatures and computes the CA pins. */
  crypto: Hashing;
  clock: Clock;
  sleep: Sleep;
  /**
   * Overall bound of the whole discovery, both fetches and every request's connect, TLS,
   * headers and body included (`timeouts.discovery`, 5m).
   */
  timeoutMs?: number;
  /** Delay between attempts (1s, {@link DISCOVERY_RETRY_INTERVAL_MS}; capped at the timeout). */
  intervalMs?: number;
  /** Progress lines (upstream's `-v=1` `[discovery] ...` messages). */
  log?: (line: string) => void;
  /** The discovery endpoint (`host:port`), for the progress lines only. */
  endpoint?: string;
}

/** What token discovery learnt, all JSON-serialisable. */
export interface DiscoveredClusterInfo {
  /** The validated cluster-info kubeconfig, parsed. */
  kubeconfig: Kubeconfig;
  /** The same kubeconfig exactly as signed and served. */
  kubeconfigText: string;
  /** Name of the cluster entry used (`""` for kubeadm's own cluster-info). */
  clusterName: string;
  /** The API server URL from cluster-info. */
  server: string;
  /** The CA bundle (PEM) from cluster-info. */
  caPem: string;
  /** One summary per certificate of the bundle (empty when it has none or cannot be parsed). */
  caCerts: CaCertSummary[];
  /** True when the CA was checked against pins; false for an unsafe (unpinned) discovery. */
  pinned: boolean;
  /** The token id used (public). */
  tokenId: string;
}

const WRAP = "couldn't validate the identity of the API Server";

function parseTokenForDiscovery(token: string): TokenParts {
  try {
    return parseToken(token);
  } catch (e) {
    throw new DiscoveryError(
      `could not construct token string for token: ${redactToken(token)}: ${errorMessage(e)}`,
      { cause: e },
    );
  }
}

interface PollTiming {
  clock: Clock;
  sleep: Sleep;
  /** Epoch milliseconds by which the whole discovery must be over. */
  deadline: number;
  intervalMs: number;
  log: (line: string) => void;
}

/** Upstream `getClusterInfo`: polls until the ConfigMap carries the token's signature. */
async function getClusterInfo(
  fetchClusterInfo: FetchClusterInfo,
  mode: ClusterInfoFetchMode,
  token: string,
  t: PollTiming,
): Promise<ClusterInfoConfigMap> {
  return await poll<ClusterInfoConfigMap>(async () => {
    const { id } = parseTokenForDiscovery(token);
    t.log(
      `[discovery] Waiting for the cluster-info ConfigMap to receive a JWS signature for token ID ${
        JSON.stringify(id)
      }`,
    );
    let cm: ClusterInfoConfigMap | Error;
    try {
      cm = await fetchClusterInfo(
        mode,
        discoveryAttemptLimits(t.deadline, t.clock.now().getTime()),
      );
    } catch (e) {
      cm = e instanceof Error ? e : new DiscoveryError(String(e));
    }
    if (cm instanceof Error) {
      const error = new DiscoveryError(
        `failed to request the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${errorMessage(cm)}`,
        { cause: cm },
      );
      t.log(`[discovery] Retrying due to error: ${error.message}`);
      return { done: false, error, retryAfterMs: askedRetryDelayMs(cm) };
    }
    if (!hasSignatureFor(cm, id)) {
      const error = new DiscoveryError(
        `could not find a JWS signature in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap for token ID ${
          JSON.stringify(id)
        }`,
      );
      t.log(`[discovery] Retrying due to error: ${error.message}`);
      return { done: false, error };
    }
    return { done: true, value: cm };
  }, {
    clock: t.clock,
    sleep: t.sleep,
    intervalMs: t.intervalMs,
    timeoutMs: Math.max(0, t.deadline - t.clock.now().getTime()),
    timeoutError: () =>
      new DiscoveryError(`timed out waiting for the ${CLUSTER_INFO_CONFIGMAP} ConfigMap`),
  });
}

function loadClusterInfoKubeconfig(text: string): Kubeconfig {
  try {
    return parseKubeconfig(text, "kubeconfig", { clientcmd: true });
  } catch (e) {
    throw new DiscoveryError(
      `couldn't parse the kubeconfig file in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${
        errorMessage(e)
      }`,
      { cause: e },
    );
  }
}

async function summaries(caPem: string, crypto: Hashing): Promise<CaCertSummary[]> {
  try {
    return await summarizeCaBundle(caPem, crypto);
  } catch {
    return [];
  }
}

/**
 * The pinned CA must be valid by this node's clock for the TLS check that follows to pass; when
 * it is not, no retry will help, and the TLS stack's error would not say why (beyond upstream,
 * whose TLS check fails with Go's `x509: certificate has expired or is not yet valid` until the
 * discovery times out): say at once that the clock is off, with both times.
 */
function checkClockAgainstCA(cas: readonly CaCertSummary[], now: Date): void {
  if (cas.length === 0) return;
  const t = now.getTime();
  if (cas.some((c) => Date.parse(c.notBefore) <= t && t <= Date.parse(c.notAfter))) return;
  const ca = cas[0];
  const behind = t < Date.parse(ca.notBefore);
  throw new DiscoveryError(
    behind
      ? `the cluster CA certificate (${ca.subject}) is valid only from ${ca.notBefore}, and this node's clock says ${now.toISOString()}: the node's clock is behind`
      : `the cluster CA certificate (${ca.subject}) expired at ${ca.notAfter}, and this node's clock says ${now.toISOString()}`,
    {
      hint: behind
        ? "set this node's clock right (e.g. with NTP) and join again"
        : "check this node's clock; if it is right, the cluster's CA must be renewed",
    },
  );
}

async function retrieveValidatedClusterInfo(
  o: TokenDiscoveryInput,
): Promise<DiscoveredClusterInfo> {
  const timeoutMs = o.timeoutMs ?? DefaultTimeouts.discovery;
  const clock = o.clock;
  const t: PollTiming = {
    clock,
    sleep: o.sleep,
    deadline: clock.now().getTime() + timeoutMs,
    intervalMs: Math.min(o.intervalMs ?? DISCOVERY_RETRY_INTERVAL_MS, timeoutMs),
    log: o.log ?? (() => {}),
  };
  // Unlike upstream (after the first fetch), the pins are checked before any request.
  const pins = new PinSet(o.crypto);
  try {
    pins.allow(...(o.caCertHashes ?? []));
  } catch (e) {
    throw new DiscoveryError(`invalid discovery token CA certificate hash: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  const from = ` ${JSON.stringify(o.endpoint ?? "")}`;
  t.log(`[discovery] Created cluster-info discovery client, requesting info from${from}`);
  const insecure = await getClusterInfo(o.fetchClusterInfo, { kind: "insecure" }, o.token, t);

  const { id, secret } = parseTokenForDiscovery(o.token);
  const insecureText = await validateClusterInfoToken(insecure, id, secret, o.crypto);
  const insecureConfig = loadClusterInfoKubeconfig(insecureText);
  let named;
  try {
    named = clusterInfoCluster(insecureConfig);
  } catch (e) {
    throw new DiscoveryError(
      `malformed kubeconfig in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  const caPem = named.caPem;

  if (pins.isEmpty()) {
    t.log(
      `[discovery] Cluster info signature and contents are valid and no TLS pinning was specified, will use API Server${from}`,
    );
    return {
      kubeconfig: insecureConfig,
      kubeconfigText: insecureText,
      clusterName: named.name,
      server: named.cluster.server ?? "",
      caPem,
      caCerts: await summaries(caPem, o.crypto),
      pinned: false,
      tokenId: id,
    };
  }

  // The one cluster's CA bundle (see clusterInfoCluster) is what the pins must match.
  await validateClusterCA(caPem, pins);
  checkClockAgainstCA(await summaries(caPem, o.crypto), clock.now());

  t.log(
    `[discovery] Requesting info from${from} again to validate TLS against the pinned public key`,
  );
  const secure = await getClusterInfo(
    o.fetchClusterInfo,
    { kind: "pinned", caPem },
    o.token,
    t,
  );
  const secureText = secure.data?.[CLUSTER_INFO_KUBECONFIG_KEY] ?? "";
  if (secureText !== insecureText) {
    throw new DiscoveryError(
      `the second kubeconfig from the ${CLUSTER_INFO_CONFIGMAP} ConfigMap (using validated TLS) was different from the first`,
    );
  }
  const secureConfig = loadClusterInfoKubeconfig(secureText);
  t.log(
    `[discovery] Cluster info signature and contents are valid and TLS certificate validates against pinned roots, will use API Server${from}`,
  );
  return {
    kubeconfig: secureConfig,
    kubeconfigText: secureText,
    clusterName: named.name,
    server: named.cluster.server ?? "",
    caPem,
    caCerts: await summaries(caPem, o.crypto),
    pinned: true,
    tokenId: id,
  };
}

/**
 * Runs token discovery and returns the validated cluster-info. Throws a
 * {@link DiscoveryError} `couldn't validate the identity of the API Server: <reason>`.
 */
export async function discoverWithToken(
  options: TokenDiscoveryInput,
): Promise<DiscoveredClusterInfo> {
  try {
    return await retrieveValidatedClusterInfo(options);
  } catch (e) {
    throw new DiscoveryError(`${WRAP}: ${errorMessage(e)}`, {
      cause: e,
      hint: (e instanceof DiscoveryError ? e.hint : undefined) ??
        hintFor(errorMessage(e), options.timeoutMs ?? DefaultTimeouts.discovery),
    });
  }
}

function hintFor(message: string, timeoutMs: number): string | undefined {
  if (message.includes("context deadline exceeded")) {
    return `the API server did not answer completely in time; the whole discovery is bounded by timeouts.discovery (${
      formatDuration(timeoutMs)
    })`;
  }
  if (message.includes("JWS signature")) {
    return 'check the token (kubeadm token list), or create a new one with "kubeadm token create"';
  }
  if (message.includes("are pinned")) {
    return "check --discovery-token-ca-cert-hash against the cluster CA (kubeadm token create --print-join-command)";
  }
  if (message.includes("failed to request")) {
    return "check that the API server endpoint is reachable from this node";
  }
  return undefined;
}
