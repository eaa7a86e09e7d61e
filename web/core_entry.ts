/**
 * Entry point of `dist/kubeadm-core.js`, the whole library as one ES module for browsers,
 * edge functions (Cloudflare Workers, Deno Deploy, Vercel Edge), Node and Bun: the high-level
 * API of `mod.ts` (plans, cloud-init, tokens, cluster-info, pins, the crypto port), the
 * verifier (`web/verify_entry.ts`) and the discovery helpers. See `web/README.md`.
 *
 * @module
 */
export * from "../mod.ts";
export * from "./verify_entry.ts";

// Token, file and HTTPS discovery over the caller's own network code; TLS bootstrap.
export type {
  ClusterInfoFetchMode,
  DiscoveredClusterInfo,
  FetchClusterInfo,
} from "../core/discovery/token.ts";
export {
  type FetchClusterInfoWith,
  fetchDiscoveryKubeconfig,
  type FetchDiscoveryUrl,
  type FileDiscoveryResult,
  hasAuthenticationCredentials,
  validateKubeconfig,
} from "../core/discovery/file.ts";
export {
  bootstrapCaSummary,
  clusterInfoFetcher,
  clusterInfoFetcherWithKubeconfig,
  discoverWithFile,
  discoverWithToken,
  type FileDiscoveryOptions,
  type TokenDiscoveryOptions,
} from "../library/discovery.ts";
export { connectionFromDiscoveryKubeconfig, discoveryConnection } from "../core/discovery/fetch.ts";
export {
  bootstrapKubeletConfFile,
  buildTlsBootstrapKubeconfig,
  tlsBootstrapKubeconfigFor,
} from "../core/discovery/tls_bootstrap.ts";
export { realSleep } from "../library/adapters.ts";
export type { Sleep } from "../core/ports/clock.ts";
export type { TransportFactory } from "../core/ports/transport.ts";
