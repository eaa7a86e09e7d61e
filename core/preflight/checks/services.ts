/**
 * Checks about services: `Service-kubelet` (the kubelet unit exists and is enabled) and
 * `Firewalld` (an active firewalld may block the API server and kubelet ports).
 *
 * @module
 */
import { type Check, pass, warn } from "../check.ts";

/** Warning given when neither systemd nor OpenRC is found. */
const NO_INIT_SYSTEM = "no supported init system detected, skipping checking for services";

/**
 * Warns when `service` does not exist or is not enabled; with `checkIfActive`, also fails when
 * it is not running. Named `Service-<service>` (v1.35+: the service name as is).
 */
export function serviceCheck(service: string, checkIfActive = false, label?: string): Check {
  return {
    name: label ?? `Service-${service}`,
    severity: "warning",
    async run(host, log) {
      log?.(
        1,
        "services.ts",
        `validating if the ${JSON.stringify(service)} service is enabled and active`,
      );
      const init = await host.initSystem();
      if (!init) return warn(NO_INIT_SYSTEM);
      if (!(await init.serviceExists(service))) return warn(`${service} service does not exist`);
      const out = pass();
      if (!(await init.serviceIsEnabled(service))) {
        out.warnings.push(
          `${service} service is not enabled, please run '${init.enableCommand(service)}'`,
        );
      }
      if (checkIfActive && !(await init.serviceIsActive(service))) {
        out.errors.push(
          `${service} service is not active, please run 'systemctl start ${service}.service'`,
        );
      }
      return out;
    },
  };
}

/** Warns when firewalld exists and is active, naming the ports that must be open. */
export function firewalldCheck(ports: readonly number[]): Check {
  return {
    name: "Firewalld",
    severity: "warning",
    async run(host, log) {
      log?.(1, "services.ts", "validating if the firewall is enabled and active");
      const init = await host.initSystem();
      if (!init) return warn(NO_INIT_SYSTEM);
      if (!(await init.serviceExists("firewalld"))) return pass();
      if (await init.serviceIsActive("firewalld")) {
        return warn(
          `firewalld is active, please ensure ports [${ports.join(" ")}] are open ` +
            "or your cluster may not function correctly",
        );
      }
      return pass();
    },
  };
}
