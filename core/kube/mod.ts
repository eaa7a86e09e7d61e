/**
 * The Kubernetes API client: transport port, typed REST client, idempotent helpers, retries,
 * dry-run recording and kubeconfig → connection parameters.
 *
 * @module
 */
export * from "./client.ts";
export * from "./dry_run.ts";
export * from "./kubeconfig_connection.ts";
export * from "./merge_patch.ts";
export * from "./resources.ts";
export * from "./retry.ts";
export * from "./status.ts";
export * from "./transport.ts";
