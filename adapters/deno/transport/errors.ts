/**
 * Turning runtime network failures into the core's `ApiError` (status 0) with Go-like wording
 * (`Get "https://...": dial tcp 10.0.0.1:6443: connect: connection refused`,
 * `... x509: certificate signed by unknown authority`) and a hint naming the server.
 *
 * @module
 */
import { ApiError } from "../../../core/errors.ts";
import { describeRequest } from "../../../core/kube/describe_call.ts";

function collectMessages(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur; i++) {
    if (cur instanceof Error) {
      parts.push(`${cur.name}: ${cur.message}`);
      const code = (cur as { code?: unknown }).code;
      if (typeof code === "string") parts.push(code);
      cur = cur.cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  return parts.join(" | ");
}

interface Mapped {
  reason: string;
  detail: string;
  hint?: string;
}

function classify(text: string, host: string, server: string): Mapped {
  const t = text.toLowerCase();
  if (t.includes("timeouterror") || t.includes("timed out") || t.includes("etimedout")) {
    return {
      reason: "Timeout",
      detail: "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
      hint: `the API server at ${server} did not answer in time`,
    };
  }
  if (
    t.includes("unknownissuer") || t.includes("unable_to_verify_leaf_signature") ||
    t.includes("self_signed_cert") || t.includes("unable to get local issuer") ||
    t.includes("self-signed certificate") || t.includes("caused as end entity") ||
    t.includes("causedasendentity") || t.includes("causedasendentity")
  ) {
    return {
      reason: "UnknownAuthority",
      detail: "tls: failed to verify certificate: x509: certificate signed by unknown authority",
      hint: `the certificate presented by ${server} is not signed by the CA in the kubeconfig ` +
        "(certificate-authority-data); check that the kubeconfig belongs to this cluster",
    };
  }
  if (
    t.includes("notvalidforname") || t.includes("not valid for name") ||
    t.includes("err_tls_cert_altname_invalid") || t.includes("altnames")
  ) {
    return {
      reason: "HostnameMismatch",
      detail: `tls: failed to verify certificate: x509: certificate is not valid for ${host}`,
      hint: `the API server certificate does not list ${host} in its subject alternative names`,
    };
  }
  if (t.includes("expired") || t.includes("notvalidyet") || t.includes("cert_not_yet_valid")) {
    return {
      reason: "UnknownAuthority",
      detail:
        "tls: failed to verify certificate: x509: certificate has expired or is not yet valid",
      hint:
        `the certificate presented by ${server} is outside its validity period; check the clocks`,
    };
  }
  if (t.includes("certificaterequired") || t.includes("certificate required")) {
    return {
      reason: "CertificateRequired",
      detail: "remote error: tls: certificate required",
      hint: `${server} requires a client certificate; the kubeconfig has none`,
    };
  }
  if (
    t.includes("badcertificate") || t.includes("bad certificate") || t.includes("unknownca") ||
    t.includes("unknown ca") || t.includes("decrypterror")
  ) {
    return {
      reason: "CertificateRequired",
      detail: "remote error: tls: bad certificate",
      hint: `${server} rejected the client certificate; check that it is signed by the cluster CA`,
    };
  }
  if (t.includes("connection refused") || t.includes("econnrefused")) {
    return {
      reason: "ConnectionRefused",
      detail: `dial tcp ${host}: connect: connection refused`,
      hint: `nothing is listening at ${server}; check that the kube-apiserver is running`,
    };
  }
  if (
    t.includes("connection reset") || t.includes("econnreset") || t.includes("broken pipe") ||
    t.includes("connection closed") || t.includes("unexpected eof")
  ) {
    return { reason: "ConnectionReset", detail: "read: connection reset by peer" };
  }
  if (
    t.includes("dns error") || t.includes("failed to lookup") || t.includes("enotfound") ||
    t.includes("name or service not known")
  ) {
    return {
      reason: "ConnectionFailed",
      detail: `dial tcp: lookup ${host.replace(/:\d+$/, "")}: no such host`,
    };
  }
  return { reason: "ConnectionFailed", detail: text.split(" | ").pop() ?? text };
}

/** Maps an error thrown while sending `request` to an `ApiError` with status 0. */
export function transportError(e: unknown, request: Request): ApiError {
  if (e instanceof ApiError) return e;
  const url = new URL(request.url);
  const server = `${url.protocol}//${url.host}`;
  const m = classify(collectMessages(e), url.host, server);
  return new ApiError(`${describeRequest(request)}: ${m.detail}`, {
    status: 0,
    reason: m.reason,
    hint: m.hint,
    cause: e,
  });
}

/**
 * The reason of a transport failure without the `Get "https://..."` prefix, for callers that
 * name the request themselves.
 */
export function transportDetail(e: unknown, request: Request): string {
  const message = transportError(e, request).message;
  const prefix = `${describeRequest(request)}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}
