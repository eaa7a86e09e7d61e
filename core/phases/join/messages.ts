/**
 * What `kubeadm join` prints when it is done (upstream `joinWorkerNodeDoneMsg` and
 * `joinControlPlaneDoneTemp`).
 *
 * @module
 */
import { KubeconfigFile, KUBERNETES_DIR } from "../../constants.ts";

/** The worker's success text. */
export function joinWorkerDoneMessage(): string {
  return [
    "",
    "This node has joined the cluster:",
    "* Certificate signing request was sent to apiserver and a response was received.",
    "* The Kubelet was informed of the new secure connection details.",
    "",
    "Run 'kubectl get nodes' on the control-plane to see this node join the cluster.",
    "",
  ].join("\n");
}

/** The control-plane node's success text; the etcd line only for stacked etcd. */
export function joinControlPlaneDoneMessage(stackedEtcd: boolean): string {
  return [
    "",
    "This node has joined the cluster and a new control plane instance was created:",
    "",
    "* Certificate signing request was sent to apiserver and approval was received.",
    "* The Kubelet was informed of the new secure connection details.",
    "* Control plane label and taint were applied to the new node.",
    "* The Kubernetes control plane instances scaled up.",
    stackedEtcd ? "* A new etcd member was added to the local/stacked etcd cluster." : "",
    "",
    "To start administering your cluster from this node, you need to run the following as a regular user:",
    "",
    "\tmkdir -p $HOME/.kube",
    `\tsudo cp -i ${KUBERNETES_DIR}/${KubeconfigFile.admin} $HOME/.kube/config`,
    "\tsudo chown $(id -u):$(id -g) $HOME/.kube/config",
    "",
    "Run 'kubectl get nodes' to see this node join the cluster.",
    "",
  ].join("\n");
}
