/**
 * Upstream kubeadm v1.37.2's default image list (`kubeadm config images list`, captured from
 * the binary): what a default v1.37.2 control plane pulls, in upstream's order.
 *
 * @module
 */

/** The images of `kubeadm config images list` (v1.37.2, default configuration). */
export const UPSTREAM_DEFAULT_IMAGES: readonly string[] = [
  "registry.k8s.io/kube-apiserver:v1.37.2",
  "registry.k8s.io/kube-controller-manager:v1.37.2",
  "registry.k8s.io/kube-scheduler:v1.37.2",
  "registry.k8s.io/kube-proxy:v1.37.2",
  "registry.k8s.io/coredns/coredns:v1.14.6",
  "registry.k8s.io/pause:3.10.2",
  "registry.k8s.io/etcd:3.7.0-0",
];
