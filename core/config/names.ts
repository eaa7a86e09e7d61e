/**
 * DNS name rules from `k8s.io/apimachinery/pkg/util/validation`, with upstream's messages.
 *
 * Each check returns the list of problems (empty when the name is valid), as upstream's
 * `IsDNS1123Subdomain` and friends do.
 *
 * @module
 */

const DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const LABEL_RE = new RegExp(`^${DNS1123_LABEL}$`);
const WILDCARD_RE = new RegExp(`^\\*\\.${DNS1123_SUBDOMAIN}$`);

/** Longest DNS-1123 subdomain. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Longest DNS-1123 label. */
export const DNS1123_LABEL_MAX_LENGTH = 63;

/** Problems with `value` as a lowercase RFC 1123 subdomain (`example.com`). */
export function isDNS1123Subdomain(value: string): string[] {
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

/** Problems with `value` as a lowercase RFC 1123 label (`my-name`). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX_LENGTH) {
    errs.push(`must be no more than ${DNS1123_LABEL_MAX_LENGTH} characters`);
  }
  if (!LABEL_RE.test(value)) {
    errs.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " +
        "and must start and end with an alphanumeric character (e.g. 'my-name',  or " +
        `'123-abc', regex used for validation is '${DNS1123_LABEL}')`,
    );
  }
  return errs;
}

/** Problems with `value` as a wildcard subdomain (`*.example.com`). */
export function isWildcardDNS1123Subdomain(value: string): string[] {
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
