/**
 * Token and file discovery over the caller's own network code, for library callers: the core's
 * functions with the library's clock, sleep and crypto port (`./adapters.ts`) where the caller
 * passes none.
 *
 * @module
 */
import type { Clock, Sleep } from "../core/ports/clock.ts";
import type { Hashing } from "../core/ports/crypto.ts";
import type { Kubeconfig } from "../core/kubeconfig/kubeconfig.ts";
import type { CaCertSummary } from "../core/discovery/ca_bundle.ts";
import * as token from "../core/discovery/token.ts";
import type { DiscoveredClusterInfo } from "../core/discovery/token.ts";
import * as file from "../core/discovery/file.ts";
import type { FileDiscoveryResult } from "../core/discovery/file.ts";
import * as tlsBootstrap from "../core/discovery/tls_bootstrap.ts";
import * as fetch from "../core/discovery/fetch.ts";
import type { FetchClusterInfoWith } from "../core/discovery/file.ts";
import type { FetchClusterInfo } from "../core/discovery/token.ts";
import type { Timing } from "../core/kube/retry.ts";
import type { TransportFactory } from "../core/ports/transport.ts";
import { realSleep, systemClock, webHashing } from "./adapters.ts";

/** The platform's clock and sleep. */
const platformTime: Timing = { clock: systemClock, sleep: realSleep };

/** The time of a discovery: the caller's, or the platform's. */
interface DiscoveryTime {
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: `setTimeout`. */
  sleep?: Sleep;
}

/** Inputs of {@link discoverWithToken}. */
export interface TokenDiscoveryOptions
  extends Omit<token.TokenDiscoveryInput, "crypto" | "clock" | "sleep">, DiscoveryTime {
  /** What checks the JWS signatures and computes the CA pins (default WebCrypto). */
  crypto?: Hashing;
}

/**
 * Runs token discovery and returns the validated cluster-info. Throws a `DiscoveryError`
 * `couldn't validate the identity of the API Server: <reason>`.
 */
export function discoverWithToken(options: TokenDiscoveryOptions): Promise<DiscoveredClusterInfo> {
  return token.discoverWithToken({
    ...options,
    crypto: options.crypto ?? webHashing,
    clock: options.clock ?? platformTime.clock,
    sleep: options.sleep ?? platformTime.sleep,
  });
}

/** Inputs of {@link discoverWithFile}. */
export interface FileDiscoveryOptions
  extends Omit<file.FileDiscoveryInput, "clock" | "sleep">, DiscoveryTime {}

/**
 * Runs file (or, with a kubeconfig fetched by `fetchDiscoveryKubeconfig`, HTTPS) discovery.
 * Throws a `DiscoveryError` `couldn't validate the identity of the API Server: <reason>`.
 */
export function discoverWithFile(options: FileDiscoveryOptions): Promise<FileDiscoveryResult> {
  return file.discoverWithFile({
    ...options,
    clock: options.clock ?? platformTime.clock,
    sleep: options.sleep ?? platformTime.sleep,
  });
}

/**
 * The first CA certificate of a bootstrap kubeconfig, summarised (what kubeadm logs after
 * discovery). Throws `could not get CA certificate from discovery kubeconfig: ...`.
 */
export function bootstrapCaSummary(
  kubeconfig: Kubeconfig,
  crypto: Hashing = webHashing,
): Promise<CaCertSummary> {
  return tlsBootstrap.bootstrapCaSummary(kubeconfig, crypto);
}
/**
 * A `FetchClusterInfo` for token discovery against `endpoint` (`host:port`) over the caller's
 * transports, on `time` (default the platform's clock and sleep).
 */
export function clusterInfoFetcher(
  endpoint: string,
  transportFor: TransportFactory,
  time: Timing = platformTime,
): FetchClusterInfo {
  return fetch.clusterInfoFetcher(endpoint, transportFor, time);
}

/**
 * A `FetchClusterInfoWith` for file/HTTPS discovery over the caller's transports, on `time`
 * (default the platform's clock and sleep).
 */
export function clusterInfoFetcherWithKubeconfig(
  transportFor: TransportFactory,
  time: Timing = platformTime,
): FetchClusterInfoWith {
  return fetch.clusterInfoFetcherWithKubeconfig(transportFor, time);
}
