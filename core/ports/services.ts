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
   * Reloads the unit definitions and stops a service (`systemctl daemon-reload`, `systemctl
   * stop`); rejects with the command's failure (`exit status 5`).
   */
  serviceStop(service: string): Promise<void>;
  /** Reloads the unit definitions and restarts a service; rejects with the failure. */
  serviceRestart(service: string): Promise<void>;
}
