/**
 * DNS name checks from Kubernetes' apimachinery validation (RFC 1123 subdomains), used to sort
 * user-supplied SANs and endpoints into DNS names and IPs.
 *
 * @module
 */

const LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const SUBDOMAIN_RE = new RegExp(`^${LABEL}(\\.${LABEL})*$`);
const WILDCARD_RE = new RegExp(`^\\*\\.${LABEL}(\\.${LABEL})*$`);
/** Maximum length of a DNS-1123 subdomain. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

/** True for a lowercase RFC 1123 subdomain of at most 253 characters (`IsDNS1123Subdomain`). */
export function isDNS1123Subdomain(s: string): boolean {
  return s.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && SUBDOMAIN_RE.test(s);
}

/** True for `*.` followed by an RFC 1123 subdomain (`IsWildcardDNS1123Subdomain`). */
export function isWildcardDNS1123Subdomain(s: string): boolean {
  return s.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && WILDCARD_RE.test(s);
}
