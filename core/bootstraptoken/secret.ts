/**
 * The `bootstrap.kubernetes.io/token` Secret that stores a bootstrap token in `kube-system`.
 *
 * Encoding mirrors upstream's `BootstrapTokenToSecret`: id and secret always, description when
 * set, `expiration` from `expires` (preferred) or now + TTL (none when TTL is 0), one
 * `usage-bootstrap-<usage>: "true"` per usage and comma-joined `auth-extra-groups`.
 * Decoding mirrors `BootstrapTokenFromSecret` (usages come back sorted).
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import type { Secret } from "kubernetes-types/core/v1.d.ts";
import type { BootstrapToken } from "./token.ts";
import { parseDuration } from "../text/duration.ts";
import { isValidToken, tokenIdFromSecretName, tokenSecretName } from "./token.ts";
import { base64Decode, base64Encode } from "../text/base64.ts";

/** Secret type of bootstrap tokens. */
export const BOOTSTRAP_TOKEN_SECRET_TYPE = "bootstrap.kubernetes.io/token";
/** Prefix of the usage keys. */
const USAGE_KEY_PREFIX = "usage-bootstrap-";

/** Formats a date as RFC 3339 UTC with second precision (`1970-01-01T03:01:01Z`). */
export function formatRFC3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The Secret's string data for a token (values unencoded, as `stringData` would hold them).
 * `now` is the reference time for TTL-based expiration.
 */
export function encodeTokenSecretData(token: BootstrapToken, now: Date): Record<string, string> {
  if (!token.token || !isValidToken(token.token)) {
    throw new KubeadmError("cannot encode a bootstrap token Secret without a valid token");
  }
  const [id, secret] = token.token.split(".");
  const data: Record<string, string> = { "token-id": id, "token-secret": secret };
  if (token.description) data.description = token.description;
  if (token.expires) {
    data.expiration = formatRFC3339(new Date(token.expires));
  } else if (token.ttl) {
    const ms = parseDuration(token.ttl);
    if (ms > 0) data.expiration = formatRFC3339(new Date(now.getTime() + ms));
  }
  for (const usage of token.usages ?? []) data[`${USAGE_KEY_PREFIX}${usage}`] = "true";
  if (token.groups && token.groups.length > 0) data["auth-extra-groups"] = token.groups.join(",");
  return data;
}

/** Base64 of a UTF-8 string (for Secret `data`). */
function b64(text: string): string {
  return base64Encode(new TextEncoder().encode(text));
}

/** Decodes Secret `data` (base64, as the API server serves it) to UTF-8. */
function unb64(text: string): string {
  return new TextDecoder().decode(base64Decode(text));
}

/** The full Secret object for a token (`data` base64-encoded, keys sorted). */
export function tokenToSecret(token: BootstrapToken, now: Date): Secret {
  const data = encodeTokenSecretData(token, now);
  const encoded: Record<string, string> = {};
  for (const key of Object.keys(data).sort()) encoded[key] = b64(data[key]);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: tokenSecretName(data["token-id"]), namespace: "kube-system" },
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    data: encoded,
  };
}

/**
 * Reads a token back from a Secret (`data` base64 or `stringData` plain). Throws upstream's
 * messages on malformed Secrets.
 */
export function tokenFromSecret(secret: Secret): BootstrapToken {
  const name = secret.metadata?.name ?? "";
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) raw[k] = unb64(v);
  for (const [k, v] of Object.entries(secret.stringData ?? {})) raw[k] = v;
  const id = raw["token-id"];
  if (!id) throw new KubeadmError(`bootstrap Token Secret has no token-id data: ${name}`);
  if (tokenIdFromSecretName(name) !== id) {
    throw new KubeadmError(
      `bootstrap token name is not of the form '${tokenSecretName("(token-id)")}'. Actual: ${
        JSON.stringify(name)
      }. Expected: ${JSON.stringify(tokenSecretName(id))}`,
    );
  }
  const tokenSecret = raw["token-secret"];
  if (!tokenSecret) {
    throw new KubeadmError(`bootstrap Token Secret has no token-secret data: ${name}`);
  }
  const token = `${id}.${tokenSecret}`;
  if (!isValidToken(token)) {
    throw new KubeadmError(`bootstrap Token Secret ${name} does not hold a valid bootstrap token`);
  }
  const out: BootstrapToken = { token };
  if (raw.description) out.description = raw.description;
  if (raw.expiration) {
    const t = Date.parse(raw.expiration);
    if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(raw.expiration)) {
      throw new KubeadmError(
        `can't parse expiration time of bootstrap token ${JSON.stringify(name)}`,
      );
    }
    out.expires = formatRFC3339(new Date(t));
  }
  const usages = Object.keys(raw)
    .filter((k) => k.startsWith(USAGE_KEY_PREFIX) && raw[k] === "true")
    .map((k) => k.slice(USAGE_KEY_PREFIX.length))
    .sort();
  if (usages.length > 0) out.usages = usages;
  if (raw["auth-extra-groups"]) out.groups = raw["auth-extra-groups"].split(",");
  return out;
}
