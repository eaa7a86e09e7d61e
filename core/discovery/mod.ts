/**
 * Discovery: how a joining node learns and trusts the cluster (token, file and HTTPS
 * discovery), the detached JWS on `cluster-info`, the offline `discovery-check` verdict, and
 * the TLS-bootstrap kubeconfig that follows.
 *
 * @module
 */
export * from "./ca_bundle.ts";
export * from "./cluster_info.ts";
export * from "./fetch.ts";
export * from "./file.ts";
export * from "./jws.ts";
export * from "./tls_bootstrap.ts";
export * from "./token.ts";
export * from "./verdict.ts";
