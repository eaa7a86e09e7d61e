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
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

/** True for a lowercase RFC 1123 subdomain of at most 253 characters (`IsDNS1123Subdomain`). */
export function isDNS1123Subdomain(s: string): boolean {
  return s.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && SUBDOMAIN_RE.test(s);
}

/** True for `*.` followed by an RFC 1123 subdomain (`IsWildcardDNS1123Subdomain`). */
export function isWildcardDNS1123Subdomain(s: string): boolean {
  return s.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && WILDCARD_RE.test(s);
}

const DNS1123_SUBDOMAIN = `${LABEL}(\\.${LABEL})*`;

/**
 * Problems with `value` as a lowercase RFC 1123 subdomain (`example.com`), in upstream's words
 * (`validation.IsDNS1123Subdomain`); empty when valid.
 */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    errs.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX_LENGTH} characters`);
  }
  if (!SUBDOMAIN_RE.test(value)) {
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " +
        "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', " +
        `regex used for validation is '${DNS1123_SUBDOMAIN}')`,
    );
  }
  return errs;
}

/** Problems with `value` as a wildcard subdomain (`*.example.com`); empty when valid. */
export function wildcardDNS1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    errs.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX_LENGTH} characters`);
  }
  if (!WILDCARD_RE.test(value)) {
    errs.push(
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, " +
        "which must consist of lower case alphanumeric characters, '-' or '.' and end with an " +
        `alphanumeric character (e.g. '*.example.com', regex used for validation is ` +
        `'\\*\\.${DNS1123_SUBDOMAIN}')`,
    );
  }
  return errs;
}
