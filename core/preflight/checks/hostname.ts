/**
 * `Hostname`: the node name should be a valid qualified name and resolve, or the kubelet will
 * not start the static Pods.
 *
 * @module
 */
import { dns1123SubdomainErrors } from "../../net/dns_name.ts";
import { errorMessage } from "../../errors.ts";
import { type Check, pass } from "../check.ts";

const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MAX_LENGTH = 63;
const QUALIFIED_NAME_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must " +
  "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', " +
  `regex used for validation is '${QUALIFIED_NAME_FMT}')`;

/**
 * Problems with `value` as a Kubernetes qualified name (`[prefix/]name`), in apimachinery's
 * `IsQualifiedName` wording; empty when valid.
 */
function qualifiedNameProblems(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const [prefix, n] = parts;
    name = n;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else for (const msg of dns1123SubdomainErrors(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a qualified name ${QUALIFIED_NAME_ERR} with an optional DNS subdomain prefix and '/' ` +
      "(e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) {
    errs.push("name part must be non-empty");
  } else if (name.length > QUALIFIED_NAME_MAX_LENGTH) {
    errs.push(`name part must be no more than ${QUALIFIED_NAME_MAX_LENGTH} characters`);
  }
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${QUALIFIED_NAME_ERR}`);
  return errs;
}

/** Warns when `nodeName` is not a qualified name or does not resolve. */
export function hostnameCheck(nodeName: string): Check {
  return {
    name: "Hostname",
    severity: "warning",
    async run(host, log) {
      log?.(
        1,
        "hostname.ts",
        "checking whether the given node name is valid and reachable using net.LookupHost",
      );
      const out = pass();
      for (const msg of qualifiedNameProblems(nodeName)) {
        out.warnings.push(`invalid node name format ${JSON.stringify(nodeName)}: ${msg}`);
      }
      let addrs: string[] | undefined;
      let lookupError: unknown;
      try {
        addrs = await host.lookupHost(nodeName);
      } catch (e) {
        lookupError = e;
      }
      if (!addrs || addrs.length === 0) {
        out.warnings.push(`hostname ${JSON.stringify(nodeName)} could not be reached`);
      }
      if (lookupError !== undefined) {
        out.warnings.push(`hostname ${JSON.stringify(nodeName)}: ${errorMessage(lookupError)}`);
      }
      return out;
    },
  };
}
