/**
 * The CoreDNS preflight checks of an upgrade (upstream `phases/upgrade/preflight.go`):
 * `CoreDNSUnsupportedPlugins` and `CoreDNSMigration` make sure the deployed Corefile can be
 * carried to the CoreDNS version this kubeadm deploys.
 *
 * Upstream migrates customized Corefiles between CoreDNS releases with the corefile-migration
 * tables; kubeadm-ts does not carry them. So: the same CoreDNS version, no CoreDNS, or
 * kubeadm's own default Corefile for the domain it serves (which the addon phase simply
 * replaces) pass; a customized Corefile of another CoreDNS version fails `CoreDNSMigration`
 * (ignorable: the addon phase then keeps the customized Corefile, as upstream does when a
 * migration fails). Like upstream's, the check needs the cluster only, not its configuration,
 * so `upgrade plan` runs it before the configuration is fetched.
 *
 * @module
 */
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import { corefile } from "../addons/coredns.ts";
import { errorMessage, KubeadmError } from "../errors.ts";
import type { LogFn } from "../ports/printer.ts";
import type { KubeClient } from "../kube/client.ts";
import { isNotFound } from "../kube/status.ts";
import { type Check, fail, pass } from "../preflight/check.ts";
import { deployedDNSAddonVersion } from "./version_getter.ts";

/** This module's name in verbose log lines. */
const LOG_SOURCE = "coredns_check.ts";

/** The names of the checks, for `--ignore-preflight-errors`. */
export const COREDNS_CHECK_NAMES = ["CoreDNSUnsupportedPlugins", "CoreDNSMigration"] as const;

/** The deployed Corefile and CoreDNS version (upstream `GetCoreDNSInfo`); empty when none. */
async function coreDNSInfo(
  client: KubeClient,
): Promise<{ corefile: string; version: string }> {
  let cm: ConfigMap;
  try {
    cm = await client.get<ConfigMap>({
      kind: "ConfigMap",
      namespace: "kube-system",
      name: "coredns",
    });
  } catch (e) {
    if (isNotFound(e)) return { corefile: "", version: "" };
    throw e;
  }
  const text = cm.data?.Corefile;
  if (text === undefined) throw new KubeadmError("unable to find the CoreDNS Corefile data");
  return { corefile: text, version: await deployedDNSAddonVersion(client) };
}

/** Input of {@link coreDNSMigrationChecks}. */
export interface CoreDNSCheckInput {
  client: KubeClient;
  /** The CoreDNS version this kubeadm deploys (`v1.14.6`). */
  targetVersion: string;
}

/** Whether a Corefile is kubeadm's default one for the DNS domain its `kubernetes` block serves. */
function isDefaultCorefile(text: string): boolean {
  const served = /^\s*kubernetes (\S*) ?in-addr\.arpa ip6\.arpa \{$/m.exec(text);
  return served !== null && text.trim() === corefile(served[1]).trim();
}

/** The migration check (its name is ignorable like upstream's two). */
export function coreDNSMigrationChecks(input: CoreDNSCheckInput): Check[] {
  const target = input.targetVersion.replace(/^v+/, "");
  let info: Promise<{ corefile: string; version: string }> | undefined;
  const load = () => info ??= coreDNSInfo(input.client);
  const check = (name: string, run: (i: { corefile: string; version: string }) => string[]) => ({
    name,
    severity: "error" as const,
    async run(_host: unknown, log?: LogFn) {
      // Upstream's two checks each log what they validate; this one answers both questions.
      log?.(
        1,
        LOG_SOURCE,
        "validating if there are any unsupported CoreDNS plugins in the Corefile",
      );
      log?.(1, LOG_SOURCE, "validating if migration can be done for the current CoreDNS release.");
      try {
        const errors = run(await load());
        return errors.length === 0 ? pass() : fail(...errors);
      } catch (e) {
        return fail(errorMessage(e));
      }
    },
  });
  const needsMigration = (i: { corefile: string; version: string }) => {
    const current = i.version.replace(/^v+/, "");
    return i.corefile !== "" && current !== "" && current !== target &&
      !isDefaultCorefile(i.corefile);
  };
  // Upstream's CoreDNSUnsupportedPlugins lists the plugins the migration tables do not know;
  // without the tables, a customized Corefile is reported once, by CoreDNSMigration.
  return [
    check("CoreDNSMigration", (i) =>
      needsMigration(i)
        ? [
          `CoreDNS will not be upgraded: kubeadm-ts cannot migrate a customized Corefile from CoreDNS ${i.version} to v${target}`,
        ]
        : []),
  ];
}
