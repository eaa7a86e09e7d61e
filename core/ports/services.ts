/**
 * The node's service manager (upstream's `initsystem.InitSystem`): systemd or OpenRC. Which
 * one a machine has is the runtime's business; what kubeadm does with the kubelet service is
 * `core/kubelet/service.ts`.
 *
 * @module
 */

/** A service manager. */
export interface InitSystem {
  /** `systemd` or `openrc`. */
  readonly name: string;
  /** The command that enables a service, as shown to the user. */
  enableCommand(service: string): string;
  /**
   * Whether the service unit is defined, as upstream's preflight asks it (systemd: `systemctl
   * status` not saying `Loaded: not-found`), so that preflight words its warnings as upstream.
   */
  serviceExists(service: string): Promise<boolean>;
  /**
   * Whether the manager has the service's unit installed (systemd: `systemctl cat
   * <service>.service` succeeds): what the kubelet control asks before it stops or restarts
   * the kubelet. Unlike {@link serviceExists}, a manager that cannot be reached answers no.
   */
  serviceInstalled(service: string): Promise<boolean>;
  /** Whether the service starts on boot. */
  serviceIsEnabled(service: string): Promise<boolean>;
  /** Whether the service is running (or activating). */
  serviceIsActive(service: string): Promise<boolean>;
  /**
   * Stops a service (`systemctl stop`, without reloading the unit definitions first, as
   * upstream: a reload costs a whole systemd pass and a stop does not need it); rejects with the
   * command's failure (`exit status 5`).
   */
  serviceStop(service: string): Promise<void>;
  /** Reloads the unit definitions and restarts a service; rejects with the failure. */
  serviceRestart(service: string): Promise<void>;
  /**
   * Reloads the unit definitions, enables a unit and starts it now (systemd: `systemctl
   * daemon-reload`, `systemctl enable --now <unit>`, which takes a `.timer`; OpenRC: `rc-update
   * add <service> default`, `rc-service <service> start`); rejects with the failure.
   */
  serviceEnableNow(unit: string): Promise<void>;
  /**
   * Stops and disables a unit (systemd: `systemctl disable --now <unit>`; OpenRC: `rc-service
   * stop`, `rc-update del`); a unit that is not installed is not an error.
   */
  serviceDisableNow(unit: string): Promise<void>;
  /** Reloads the unit definitions after unit files changed (systemd; nothing on OpenRC). */
  reload(): Promise<void>;
  /**
   * Properties of a unit (systemd: `systemctl show <unit> --property=…`, e.g.
   * `NextElapseUSecRealtime`, `Result`); OpenRC has none and answers `{}`.
   */
  unitProperties(unit: string, names: readonly string[]): Promise<Record<string, string>>;
}
