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
  /** Whether the service unit is defined. */
  serviceExists(service: string): Promise<boolean>;
  /** Whether the service starts on boot. */
  serviceIsEnabled(service: string): Promise<boolean>;
  /** Whether the service is running (or activating). */
  serviceIsActive(service: string): Promise<boolean>;
  /** Stops a service; rejects with the command's failure (`exit status 5`). */
  serviceStop(service: string): Promise<void>;
  /** Reloads the unit definitions and restarts a service; rejects with the failure. */
  serviceRestart(service: string): Promise<void>;
}
