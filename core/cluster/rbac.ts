/**
 * RBAC objects in the shape kubeadm creates them: Roles that allow `get` on one named
 * ConfigMap or Secret, and bindings of (Cluster)Roles to groups, users and service accounts.
 *
 * @module
 */
import type {
  ClusterRole,
  ClusterRoleBinding,
  PolicyRule,
  Role,
  RoleBinding,
  Subject,
} from "kubernetes-types/rbac/v1.d.ts";

/** `rbac.authorization.k8s.io/v1`. */
const RBAC_API_VERSION = "rbac.authorization.k8s.io/v1";
/** `rbac.authorization.k8s.io`. */
const RBAC_GROUP = "rbac.authorization.k8s.io";

/** A `Group` subject. */
export function groupSubject(name: string): Subject {
  return { kind: "Group", name };
}

/** A `User` subject. */
export function userSubject(name: string): Subject {
  return { kind: "User", name };
}

/** A `ServiceAccount` subject. */
export function serviceAccountSubject(namespace: string, name: string): Subject {
  return { kind: "ServiceAccount", name, namespace };
}

/** A Role (namespaced). */
function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: RBAC_API_VERSION, kind: "Role", metadata: { name, namespace }, rules };
}

/** A Role allowing `get` of one named object of a core resource (`configmaps`, `secrets`). */
export function getOneObjectRole(
  namespace: string,
  name: string,
  resource: "configmaps" | "secrets",
  objectName: string,
): Role {
  return role(namespace, name, [{
    verbs: ["get"],
    apiGroups: [""],
    resources: [resource],
    resourceNames: [objectName],
  }]);
}

/** A RoleBinding of Role `roleName` (defaults to the binding's own name). */
export function roleBinding(
  namespace: string,
  name: string,
  subjects: Subject[],
  roleName = name,
): RoleBinding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: "RoleBinding",
    metadata: { name, namespace },
    roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: roleName },
    subjects,
  };
}

/** A ClusterRole. */
export function clusterRole(name: string, rules: PolicyRule[]): ClusterRole {
  return { apiVersion: RBAC_API_VERSION, kind: "ClusterRole", metadata: { name }, rules };
}

/** A ClusterRoleBinding of ClusterRole `roleName`. */
export function clusterRoleBinding(
  name: string,
  roleName: string,
  subjects: Subject[],
): ClusterRoleBinding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: roleName },
    subjects,
  };
}
