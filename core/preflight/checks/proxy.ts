/**
 * `HTTPProxy` and `HTTPProxyCIDR`: warn when traffic to the API server, or to the Service and
 * Pod ranges, would be sent through an HTTPS proxy from the environment.
 *
 * @module
 */
import { cidrNthAddress, formatCIDR, parseCIDR } from "../../net/cidr.ts";
import { joinHostPort } from "../../net/host_port.ts";
import { isIPv6 } from "../../net/ip.ts";
import { errorMessage } from "../../errors.ts";
import { type Check, fail, pass, warn } from "../check.ts";
import { httpsProxyFor } from "../proxy_env.ts";

/** Warns when a connection to `https://<host>` would use a proxy. */
export function httpProxyCheck(host: string): Check {
  return {
    name: "HTTPProxy",
    severity: "warning",
    run(h, log) {
      log?.(1, "proxy.ts", "validating if the connectivity type is via proxy or direct");
      // Upstream gives IPv6 literals a dummy port so the URL parses.
      const v6 = isIPv6(host);
      const url = v6 ? `https://${joinHostPort(host, 1234)}` : `https://${host}`;
      const proxy = httpsProxyFor((n) => h.env(n), host, v6 ? "1234" : "443");
      return Promise.resolve(
        proxy === undefined ? pass() : warn(
          `Connection to ${JSON.stringify(url)} uses proxy ${
            JSON.stringify(proxy)
          }. If that is not intended, adjust your proxy settings`,
        ),
      );
    },
  };
}

/** Warns when a connection to the first address of `cidr` would use a proxy; empty passes. */
export function httpProxyCIDRCheck(cidr: string): Check {
  return {
    name: "HTTPProxyCIDR",
    severity: "warning",
    run(h, log) {
      log?.(1, "proxy.ts", "validating http connectivity to first IP address in the CIDR");
      if (cidr === "") return Promise.resolve(pass());
      const parsed = parseCIDR(cidr);
      if (!parsed) {
        return Promise.resolve(
          fail(`error parsing CIDR ${JSON.stringify(cidr)}: invalid CIDR address: ${cidr}`),
        );
      }
      let ip: string;
      try {
        ip = cidrNthAddress(parsed, 1);
      } catch (e) {
        return Promise.resolve(fail(
          `unable to get first IP address from the given CIDR (${formatCIDR(parsed)}): ${
            errorMessage(e)
          }`,
        ));
      }
      const proxy = httpsProxyFor((n) => h.env(n), ip, "1234");
      return Promise.resolve(
        proxy === undefined ? pass() : warn(
          `connection to ${JSON.stringify(cidr)} uses proxy ${
            JSON.stringify(proxy)
          }. This may lead to malfunctional cluster setup. Make sure that Pod and Services ` +
            "IP ranges specified correctly as exceptions in proxy configuration",
        ),
      );
    },
  };
}
