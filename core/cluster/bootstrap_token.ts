/**
 * The `bootstrap-token` phase's objects: the bootstrap token Secrets, the RBAC that lets
 * bootstrap tokens get Nodes, post CSRs and have them auto-approved, the rotation auto-approval
 * for all nodes, the API server's access to the kubelet API (v1.37) and the cluster-info
 * ConfigMap (upstream `phases/bootstraptoken/node`, `cmd/phases/init/bootstraptoken.go`).
 *
 * @module
 */
import type { ClusterRole, ClusterRoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import { tokenToSecret } from "../bootstraptoken/secret.ts";
import { parseToken, tokenSecretName } from "../bootstraptoken/token.ts";
import type { BootstrapToken } from "../config/types.ts";
import {
  Identity,
  KUBELET_API_ADMIN_CLUSTER_ROLE,
  KUBELET_API_ADMIN_CLUSTER_ROLE_BINDING,
} from "../constants.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { Printer } from "../ports/printer.ts";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import type { Kubeconfig } from "../kubeconfig/kubeconfig.ts";
import {
  applyClusterInfo,
  applyClusterInfoRBAC,
  CLUSTER_INFO_CONFIGMAP,
  KUBE_PUBLIC,
} from "./cluster_info.ts";
import { clusterRole, clusterRoleBinding, groupSubject, userSubject } from "./rbac.ts";

/** ClusterRole and ClusterRoleBinding letting bootstrap tokens get Nodes. */
const GET_NODES_ROLE = "kubeadm:get-nodes";
/** Binding that lets bootstrap tokens post CSRs. */
const KUBELET_BOOTSTRAP_BINDING = "kubeadm:kubelet-bootstrap";
/** Built-in ClusterRole for posting CSRs. */
const NODE_BOOTSTRAPPER_ROLE = "system:node-bootstrapper";
/** Binding that makes the csrapprover approve bootstrap-token CSRs. */
const NODE_AUTOAPPROVE_BOOTSTRAP_BINDING = "kubeadm:node-autoapprove-bootstrap";
/** Built-in ClusterRole for auto-approving node client CSRs. */
const CSR_AUTO_APPROVAL_ROLE = "system:certificates.k8s.io:certificatesigningrequests:nodeclient";
/** Binding that makes the csrapprover approve node client certificate renewals. */
const NODE_AUTOAPPROVE_ROTATION_BINDING = "kubeadm:node-autoapprove-certificate-rotation";
/** Built-in ClusterRole for auto-approving renewals of a node's own client certificate. */
const NODE_SELF_CSR_AUTO_APPROVAL_ROLE =
  "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient";

/** ClusterRole `kubeadm:get-nodes`: get nodes. */
export function getNodesClusterRole(): ClusterRole {
  return clusterRole(GET_NODES_ROLE, [{ verbs: ["get"], apiGroups: [""], resources: ["nodes"] }]);
}

/** ClusterRoleBinding `kubeadm:get-nodes` → the default bootstrap-token group. */
function getNodesClusterRoleBinding(): ClusterRoleBinding {
  return clusterRoleBinding(GET_NODES_ROLE, GET_NODES_ROLE, [
    groupSubject(Identity.bootstrapDefaultGroup),
  ]);
}

/** ClusterRoleBinding `kubeadm:kubelet-bootstrap` → `system:node-bootstrapper`. */
function kubeletBootstrapBinding(): ClusterRoleBinding {
  return clusterRoleBinding(KUBELET_BOOTSTRAP_BINDING, NODE_BOOTSTRAPPER_ROLE, [
    groupSubject(Identity.bootstrapDefaultGroup),
  ]);
}

/** ClusterRoleBinding `kubeadm:node-autoapprove-bootstrap` → `...:nodeclient`. */
function nodeAutoApproveBootstrapBinding(): ClusterRoleBinding {
  return clusterRoleBinding(NODE_AUTOAPPROVE_BOOTSTRAP_BINDING, CSR_AUTO_APPROVAL_ROLE, [
    groupSubject(Identity.bootstrapDefaultGroup),
  ]);
}

/** ClusterRoleBinding `kubeadm:node-autoapprove-certificate-rotation` → `system:nodes`. */
function nodeAutoApproveRotationBinding(): ClusterRoleBinding {
  return clusterRoleBinding(NODE_AUTOAPPROVE_ROTATION_BINDING, NODE_SELF_CSR_AUTO_APPROVAL_ROLE, [
    groupSubject(Identity.nodesGroup),
  ]);
}

/**
 * ClusterRoleBinding `kubeadm:apiserver-kubelet-client` → `system:kubelet-api-admin` for the
 * user of `apiserver-kubelet-client.crt` (kubeadm v1.37: the certificate is no longer in
 * `kubeadm:cluster-admins`).
 */
function apiServerKubeletClientBinding(): ClusterRoleBinding {
  return clusterRoleBinding(
    KUBELET_API_ADMIN_CLUSTER_ROLE_BINDING,
    KUBELET_API_ADMIN_CLUSTER_ROLE,
    [
      userSubject(Identity.apiServerKubeletClientUser),
    ],
  );
}

/** One RBAC step of the `bootstrap-token` phase: the line upstream prints, then its objects. */
interface RbacStep {
  line: string;
  objects: KubeObject[];
  /** How `init` wraps its error (upstream wraps only the kubelet API one). */
  wrap?: string;
}

/** The bootstrap-token RBAC steps in upstream's order (`init` and `upgrade apply` both run them). */
function bootstrapTokenRbacSteps(): RbacStep[] {
  const line = (what: string) => `[bootstrap-token] Configured RBAC rules to allow ${what}`;
  return [
    {
      line: line("Node Bootstrap tokens to get nodes"),
      objects: [getNodesClusterRole(), getNodesClusterRoleBinding()],
    },
    {
      line: line(
        "Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials",
      ),
      objects: [kubeletBootstrapBinding()],
    },
    {
      line: line(
        "the csrapprover controller automatically approve CSRs from a Node Bootstrap Token",
      ),
      objects: [nodeAutoApproveBootstrapBinding()],
    },
    {
      line: line("certificate rotation for all node client certificates in the cluster"),
      objects: [nodeAutoApproveRotationBinding()],
    },
    {
      line: line("the API server kubelet client certificate to access the kubelet API"),
      objects: [apiServerKubeletClientBinding()],
      wrap: "error allowing API server to access kubelet API",
    },
  ];
}

/**
 * Stores each token as its Secret (create or update). With `failIfExists` an existing Secret
 * for the same token id is an error (`kubeadm token create` semantics).
 */
export async function updateOrCreateTokens(
  client: KubeClient,
  tokens: readonly BootstrapToken[],
  now: Date,
  options: { failIfExists?: boolean } = {},
): Promise<void> {
  for (const token of tokens) {
    const { id } = parseToken(token.token ?? "");
    const name = tokenSecretName(id);
    if (options.failIfExists) {
      const existing = await client.tryGet({ kind: "Secret", namespace: "kube-system", name });
      if (existing) throw new KubeadmError(`a token with id ${JSON.stringify(id)} already exists`);
    }
    try {
      await client.createOrUpdate(tokenToSecret(token, now));
    } catch (e) {
      throw new KubeadmError(
        `failed to create or update bootstrap token with name ${name}: ${errorMessage(e)}`,
        { cause: e, hint: e instanceof KubeadmError ? e.hint : undefined },
      );
    }
  }
}

/** Input of {@link applyBootstrapTokenPhase}. */
export interface BootstrapTokenPhaseInput {
  /** The configured tokens (each with `token` set). */
  tokens: readonly BootstrapToken[];
  /** Reference time for TTL-based expiration. */
  now: Date;
  /** The admin kubeconfig; its current cluster goes into cluster-info. */
  admin: Kubeconfig;
  /** `--skip-token-print`. */
  skipTokenPrint?: boolean;
}

/** Runs the whole `bootstrap-token` phase against the cluster, printing upstream's lines. */
export async function applyBootstrapTokenPhase(
  client: KubeClient,
  input: BootstrapTokenPhaseInput,
  out: Printer,
): Promise<void> {
  if (!input.skipTokenPrint) {
    const values = input.tokens.map((t) => t.token ?? "");
    if (values.length === 1) out.info(`[bootstrap-token] Using token: ${values[0]}`);
    else if (values.length > 1) out.info(`[bootstrap-token] Using tokens: [${values.join(" ")}]`);
  }
  out.info("[bootstrap-token] Configuring bootstrap tokens, cluster-info ConfigMap, RBAC Roles");
  await updateOrCreateTokens(client, input.tokens, input.now);

  for (const step of bootstrapTokenRbacSteps()) {
    out.info(step.line);
    try {
      await client.createOrUpdateAll(step.objects);
    } catch (e) {
      if (!step.wrap) throw e;
      throw new KubeadmError(`${step.wrap}: ${errorMessage(e)}`, { cause: e });
    }
  }

  out.info(
    `[bootstrap-token] Creating the "${CLUSTER_INFO_CONFIGMAP}" ConfigMap in the "${KUBE_PUBLIC}" namespace`,
  );
  await applyClusterInfo(client, input.admin, out.log);
}

/**
 * The RBAC rules of bootstrap tokens and of `cluster-info` alone, every one attempted (upstream
 * `upgrade apply phase bootstrap-token`): nodes readable, CSRs postable and auto-approved,
 * certificate rotation auto-approved, the API server's kubelet client admitted to the kubelet
 * API, `cluster-info` readable anonymously. Prints upstream's lines; fails with every error
 * met, after trying all of them.
 */
export async function applyBootstrapTokenRBAC(client: KubeClient, out: Printer): Promise<void> {
  const errors: unknown[] = [];
  const attempt = async (apply: () => Promise<void>) => {
    try {
      await apply();
    } catch (e) {
      errors.push(e);
    }
  };
  for (const step of bootstrapTokenRbacSteps()) {
    out.info(step.line);
    await attempt(() => client.createOrUpdateAll(step.objects));
  }
  await attempt(() => applyClusterInfoRBAC(client, out.log));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    throw new KubeadmError(`[${errors.map(errorMessage).join(", ")}]`, { cause: errors[0] });
  }
}
