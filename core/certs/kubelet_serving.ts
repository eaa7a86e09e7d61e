/**
 * Approving the kubelets' serving certificates (beyond upstream, k/kubeadm#1223): with
 * `serverTLSBootstrap: true` each kubelet asks for its serving certificate with a
 * `kubernetes.io/kubelet-serving` CertificateSigningRequest, which Kubernetes never approves by
 * itself. This module approves one only when
 *
 * - the requester (`spec.username`, set by the API server from the credentials that created
 *   it) is `system:node:<name>` in the `system:nodes` group, and a Node `<name>` exists;
 * - the request's subject is that same `system:node:<name>` with the organization
 *   `system:nodes` and nothing else;
 * - every SAN is a DNS name or IP address of that Node (`status.addresses`: its `Hostname`,
 *   `InternalDNS`, `ExternalDNS`, `InternalIP` and `ExternalIP`), there is at least one, and
 *   there are no other kinds of names (e-mail, URI);
 * - the usages are exactly the serving ones: `digital signature`, `server auth`, and for an
 *   RSA key `key encipherment` (the kube-controller-manager signer's own rule);
 *
 * and leaves every other request Pending, with the reasons, for a human to look at. Requests
 * already approved, denied or failed are not touched.
 *
 * @module
 */
import type { Node, NodeAddress } from "kubernetes-types/core/v1.d.ts";
import { Identity } from "../constants.ts";
import { errorMessage } from "../errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { isConflict, isNotFound } from "../kube/status.ts";
import { canonicalIP } from "../net/ip.ts";
import { parseCSR } from "../pki/csr.ts";
import { base64Decode } from "../text/base64.ts";
import { utf8 } from "../text/utf8.ts";
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1.d.ts";

/** The signer of the kubelets' serving certificates. */
export const KUBELET_SERVING_SIGNER = "kubernetes.io/kubelet-serving";

/** The usages of a serving certificate with an RSA key. */
const SERVING_USAGES_RSA = ["digital signature", "key encipherment", "server auth"];
/** The usages of a serving certificate with any other key. */
const SERVING_USAGES = ["digital signature", "server auth"];

/** The `reason` of the Approved condition this approver sets. */
export const APPROVAL_REASON = "KubeadmKubeletServingApprover";

/** Node address types whose values may be DNS SANs. */
const DNS_ADDRESS_TYPES = new Set(["Hostname", "InternalDNS", "ExternalDNS"]);
/** Node address types whose values may be IP SANs. */
const IP_ADDRESS_TYPES = new Set(["InternalIP", "ExternalIP"]);

/** The verdict on one request. */
export interface ServingCsrReview {
  /** The CertificateSigningRequest's name. */
  name: string;
  /** The requester (`spec.username`). */
  requester: string;
  /** The Node it is for, when the requester names one. */
  node?: string;
  /** The request's DNS and IP SANs (empty when it does not parse). */
  sans: string[];
  /** Why it is not approved; empty means approve. */
  problems: string[];
}

/** Whether a request is still undecided (no Approved, Denied or Failed condition). */
export function isPending(csr: CertificateSigningRequest): boolean {
  return !(csr.status?.conditions ?? []).some((c) =>
    (c.type === "Approved" || c.type === "Denied" || c.type === "Failed") && c.status !== "False"
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  return sa.size === a.length && a.length === b.length && b.every((x) => sa.has(x));
}

/** Canonical text of an IP, so that `::1` and `0:0::1` compare equal. */
function normalizeIP(ip: string): string {
  return canonicalIP(ip) ?? ip;
}

/**
 * Reviews one `kubernetes.io/kubelet-serving` request against the Nodes (by name). Pure: the
 * caller lists both.
 */
export function reviewServingCsr(
  csr: CertificateSigningRequest,
  nodes: ReadonlyMap<string, Node>,
): ServingCsrReview {
  const name = csr.metadata?.name ?? "";
  const requester = csr.spec.username ?? "";
  const problems: string[] = [];
  const review: ServingCsrReview = { name, requester, sans: [], problems };
  if (csr.spec.signerName !== KUBELET_SERVING_SIGNER) {
    problems.push(
      `its signer is ${JSON.stringify(csr.spec.signerName)}, not ${KUBELET_SERVING_SIGNER}`,
    );
    return review;
  }
  const prefix = Identity.nodeUserPrefix;
  const nodeName = requester.startsWith(prefix) ? requester.slice(prefix.length) : undefined;
  if (!nodeName) {
    problems.push(`the requester ${JSON.stringify(requester)} is not a node (system:node:<name>)`);
  } else {
    review.node = nodeName;
    if (!(csr.spec.groups ?? []).includes(Identity.nodesGroup)) {
      problems.push(`the requester is not in the ${Identity.nodesGroup} group`);
    }
  }
  const node = nodeName === undefined ? undefined : nodes.get(nodeName);
  if (nodeName !== undefined && !node) {
    problems.push(`there is no Node ${JSON.stringify(nodeName)}`);
  }
  const usages = csr.spec.usages ?? [];
  if (!sameSet(usages, SERVING_USAGES_RSA) && !sameSet(usages, SERVING_USAGES)) {
    problems.push(
      `its usages [${usages.join(", ")}] are not exactly [${
        SERVING_USAGES.join(", ")
      }] (with "key encipherment" for an RSA key)`,
    );
  }
  let request;
  try {
    request = parseCSR(utf8(base64Decode(csr.spec.request)));
  } catch (e) {
    problems.push(`its request does not parse: ${errorMessage(e)}`);
    return review;
  }
  review.sans = [...request.dnsNames, ...request.ipAddresses];
  const subject = request.subject;
  if (subject.commonName !== requester) {
    problems.push(
      `its subject's common name ${JSON.stringify(subject.commonName ?? "")} is not the requester`,
    );
  }
  const orgs = subject.organization ?? [];
  if (orgs.length !== 1 || orgs[0] !== Identity.nodesGroup) {
    problems.push(
      `its subject's organization [${orgs.join(", ")}] is not [${Identity.nodesGroup}]`,
    );
  }
  if (subject.attributes.length !== 1 + orgs.length) {
    problems.push("its subject has attributes other than the common name and organization");
  }
  for (const other of request.otherAltNames) problems.push(`it asks for the SAN ${other}`);
  if (review.sans.length === 0) problems.push("it asks for no DNS name or IP address");
  if (node) {
    const addresses: NodeAddress[] = node.status?.addresses ?? [];
    const dns = new Set(
      addresses.filter((a) => DNS_ADDRESS_TYPES.has(a.type)).map((a) => a.address.toLowerCase()),
    );
    const ips = new Set(
      addresses.filter((a) => IP_ADDRESS_TYPES.has(a.type)).map((a) => normalizeIP(a.address)),
    );
    for (const d of request.dnsNames) {
      if (!dns.has(d.toLowerCase())) {
        problems.push(`the DNS name ${d} is not a host name of Node ${nodeName}`);
      }
    }
    for (const ip of request.ipAddresses) {
      if (!ips.has(normalizeIP(ip))) {
        problems.push(`the IP address ${ip} is not an address of Node ${nodeName}`);
      }
    }
  }
  return review;
}

/** What one approval run did. */
export interface ServingCsrReport {
  /** Requests approved (or, in a dry run, that would be). */
  approved: ServingCsrReview[];
  /** Requests left Pending, with their problems. */
  leftPending: ServingCsrReview[];
}

/** Options of {@link approveKubeletServingCsrs}. */
export interface ServingApprovalOptions {
  /** A client allowed to list Nodes and CSRs and to approve for the signer (admin). */
  client: KubeClient;
  /** Review only: approve nothing. */
  dryRun: boolean;
  /** Now: the `lastUpdateTime` of the Approved condition. */
  now: Date;
}

/** The Approved condition this approver adds. */
function approvedCondition(review: ServingCsrReview, now: Date) {
  const at = now.toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    type: "Approved",
    status: "True",
    reason: APPROVAL_REASON,
    message:
      `kubeadm approved the serving certificate of Node ${review.node}: requested by the node, for its own addresses`,
    lastUpdateTime: at,
    lastTransitionTime: at,
  };
}

/**
 * Reviews every Pending `kubernetes.io/kubelet-serving` request and approves those that pass
 * (see the module documentation). A request decided by someone else meanwhile (a conflict, or
 * gone) is skipped.
 */
export async function approveKubeletServingCsrs(
  options: ServingApprovalOptions,
): Promise<ServingCsrReport> {
  const { client } = options;
  const csrs = await client.list<CertificateSigningRequest>("CertificateSigningRequest", {
    fieldSelector: `spec.signerName=${KUBELET_SERVING_SIGNER}`,
  });
  const pending = csrs.filter((c) => c.spec.signerName === KUBELET_SERVING_SIGNER && isPending(c))
    .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  const report: ServingCsrReport = { approved: [], leftPending: [] };
  if (pending.length === 0) return report;
  const nodes = new Map(
    (await client.list<Node>("Node")).map((n) => [n.metadata?.name ?? "", n]),
  );
  for (const csr of pending) {
    const review = reviewServingCsr(csr, nodes);
    if (review.problems.length > 0) {
      report.leftPending.push(review);
      continue;
    }
    if (!options.dryRun) {
      const approved: CertificateSigningRequest = {
        ...csr,
        status: {
          ...csr.status,
          conditions: [...(csr.status?.conditions ?? []), approvedCondition(review, options.now)],
        },
      };
      try {
        await client.updateSubresource(approved, "approval");
      } catch (e) {
        if (isConflict(e) || isNotFound(e)) continue;
        throw e;
      }
    }
    report.approved.push(review);
  }
  return report;
}

/** The report as lines (`[kubelet-serving] …`). */
export function servingReportLines(report: ServingCsrReport, dryRun: boolean): string[] {
  const lines: string[] = [];
  for (const r of report.approved) {
    lines.push(
      `[kubelet-serving] ${dryRun ? "Would approve" : "Approved"} ${r.name} of Node ${r.node} (${
        r.sans.join(", ")
      })`,
    );
  }
  for (const r of report.leftPending) {
    lines.push(
      `[kubelet-serving] Left ${r.name} of ${JSON.stringify(r.requester)} Pending: ${
        r.problems.join("; ")
      }`,
    );
  }
  if (lines.length === 0) {
    lines.push("[kubelet-serving] No pending kubelet serving certificate request");
  }
  return lines;
}
