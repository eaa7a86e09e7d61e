/**
 * The node side of the kubelet's TLS bootstrap: the CSR the kubelet sends (subject, usages,
 * deterministic `node-csr-` name), waiting for the cluster to approve and sign it, and the
 * `kubelet.conf` + `kubelet-client-current.pem` the kubelet writes afterwards.
 *
 * @module
 */
export * from "./bootstrap.ts";
export * from "./csr_name.ts";
export * from "./kubelet_conf.ts";
export * from "./request.ts";
export * from "./sha512_256.ts";
