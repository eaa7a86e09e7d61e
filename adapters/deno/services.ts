/**
 * systemd and OpenRC through their command-line tools, as upstream's `initsystem` package:
 * `systemctl` in `$PATH` means systemd, else `openrc` means OpenRC, else no supported init
 * system.
 *
 * @module
 */
import type { InitSystem } from "../../core/ports/services.ts";
import { type CommandResult, exitStatus, lookPath, runCommand } from "./host/exec.ts";
import { faultPoint } from "./fault_injection.ts";

/** systemd via `systemctl`. */
export class SystemdInitSystem implements InitSystem {
  readonly name = "systemd";

  enableCommand(service: string): string {
    return `systemctl enable ${service}.service`;
  }

  async serviceExists(service: string): Promise<boolean> {
    const r = await runCommand("systemctl", ["status", service]);
    return !r.stdout.includes("Loaded: not-found");
  }

  async serviceInstalled(service: string): Promise<boolean> {
    const unit = service.includes(".") ? service : `${service}.service`;
    return (await runCommand("systemctl", ["cat", unit], { timeoutMs: 10_000 })).code === 0;
  }

  async serviceIsEnabled(service: string): Promise<boolean> {
    return (await runCommand("systemctl", ["is-enabled", service])).code === 0;
  }

  async serviceIsActive(service: string): Promise<boolean> {
    // "activating" counts: a crash-looping kubelet is still considered active.
    const out = (await runCommand("systemctl", ["is-active", service])).stdout.trim();
    return out === "active" || out === "activating";
  }

  async serviceStop(service: string): Promise<void> {
    const r = await runCommand("systemctl", ["stop", service], { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(exitStatus(r));
    faultPoint(`service:stop:${service}`);
  }

  async serviceRestart(service: string): Promise<void> {
    await this.#reload();
    const r = await runCommand("systemctl", ["restart", service], { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(exitStatus(r));
    faultPoint(`service:restart:${service}`);
  }

  async serviceEnableNow(unit: string): Promise<void> {
    await this.#reload();
    const r = await runCommand("systemctl", ["enable", "--now", unit], { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(commandFailure("systemctl enable --now", unit, r));
  }

  async serviceDisableNow(unit: string): Promise<void> {
    if (!(await this.serviceInstalled(unit))) return;
    const r = await runCommand("systemctl", ["disable", "--now", unit], { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(commandFailure("systemctl disable --now", unit, r));
  }

  reload(): Promise<void> {
    return this.#reload();
  }

  async unitProperties(unit: string, names: readonly string[]): Promise<Record<string, string>> {
    const r = await runCommand("systemctl", ["show", unit, `--property=${names.join(",")}`], {
      timeoutMs: 10_000,
    });
    if (r.code !== 0) throw new Error(commandFailure("systemctl show", unit, r));
    const out: Record<string, string> = {};
    for (const line of r.stdout.split("\n")) {
      const eq = line.indexOf("=");
      if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
    }
    return out;
  }

  /** `systemctl daemon-reload`: kubeadm may have changed the unit's drop-ins. */
  async #reload(): Promise<void> {
    const reload = await runCommand("systemctl", ["daemon-reload"], { timeoutMs: 60_000 });
    if (reload.code !== 0) throw new Error(`failed to reload systemd: ${exitStatus(reload)}`);
  }
}

/** `<command> <unit>: exit status 5: <stderr>`. */
function commandFailure(command: string, unit: string, r: CommandResult): string {
  const detail = r.stderr.trim();
  return `${command} ${unit}: ${exitStatus(r)}${detail ? `: ${detail}` : ""}`;
}

/** OpenRC via `rc-service` and `rc-update`. */
export class OpenRCInitSystem implements InitSystem {
  readonly name = "openrc";

  enableCommand(service: string): string {
    return `rc-update add ${service} default`;
  }

  async serviceExists(service: string): Promise<boolean> {
    const r = await runCommand("rc-service", [service, "status"]);
    return !(r.stdout + r.stderr).includes("does not exist");
  }

  serviceInstalled(service: string): Promise<boolean> {
    return this.serviceExists(service);
  }

  async serviceIsEnabled(service: string): Promise<boolean> {
    return (await runCommand("rc-update", ["show", "default"])).stdout.includes(service);
  }

  async serviceIsActive(service: string): Promise<boolean> {
    return !(await runCommand("rc-service", [service, "status"])).stdout.includes("stopped");
  }

  async serviceStop(service: string): Promise<void> {
    const r = await runCommand("rc-service", [service, "stop"]);
    if (r.code !== 0) throw new Error(exitStatus(r));
    faultPoint(`service:stop:${service}`);
  }

  async serviceRestart(service: string): Promise<void> {
    const r = await runCommand("rc-service", [service, "restart"], { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(exitStatus(r));
    faultPoint(`service:restart:${service}`);
  }

  async serviceEnableNow(service: string): Promise<void> {
    if (!(await this.serviceIsEnabled(service))) {
      const add = await runCommand("rc-update", ["add", service, "default"]);
      if (add.code !== 0) throw new Error(commandFailure("rc-update add", service, add));
    }
    if (await this.serviceIsActive(service)) return;
    const r = await runCommand("rc-service", [service, "start"], { timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(commandFailure("rc-service start", service, r));
  }

  async serviceDisableNow(service: string): Promise<void> {
    if (!(await this.serviceExists(service))) return;
    await runCommand("rc-service", [service, "stop"], { timeoutMs: 60_000 });
    const r = await runCommand("rc-update", ["del", service, "default"]);
    if (r.code !== 0 && (await this.serviceIsEnabled(service))) {
      throw new Error(commandFailure("rc-update del", service, r));
    }
  }

  reload(): Promise<void> {
    return Promise.resolve();
  }

  unitProperties(): Promise<Record<string, string>> {
    return Promise.resolve({});
  }
}

/** The host's init system, or `undefined` when neither systemd nor OpenRC is found. */
export async function detectInitSystem(): Promise<InitSystem | undefined> {
  if (await lookPath("systemctl")) return new SystemdInitSystem();
  if (await lookPath("openrc")) return new OpenRCInitSystem();
  return undefined;
}
