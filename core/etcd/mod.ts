/**
 * Stacked etcd for a joining control-plane node: the etcd client port, finding the cluster's
 * endpoints, adding this node as a learner, promoting it, and checking the cluster's health.
 *
 * @module
 */
export * from "./client.ts";
export * from "./endpoints.ts";
export * from "./member_join.ts";
export * from "./timing.ts";
