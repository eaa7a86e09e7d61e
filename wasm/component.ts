/**
 * Entry point of `dist/kubeadm-core.wasm` (built by `scripts/wasm` with componentize-js): the
 * interface `kubeadm:core/api` of the world `kubeadm-core` (`wit/kubeadm-core.wit`).
 *
 * @module
 */
import "./no_ambient_entropy.ts";
export { api } from "./api.ts";
