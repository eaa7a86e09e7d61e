/**
 * What the static Pod builders need: the cluster configuration, this node's API endpoint and
 * name, the control-plane health-check timeout and a few host facts.
 *
 * Kept separate from `InitData` so the same builders serve `init`, a control-plane `join` and
 * `upgrade`, and so tests can call them without any port.
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import type { LogFn } from "../ports/printer.ts";
import { parseDuration } from "../text/duration.ts";
import { DefaultTimeouts } from "../constants.ts";

/** Input of every static Pod builder. */
export interface ManifestInput {
  /** The defaulted ClusterConfiguration. */
  cluster: ResolvedConfig["cluster"];
  /** This node's API server endpoint (`localAPIEndpoint`). */
  localAPIEndpoint: { advertiseAddress: string; bindPort: number };
  /** This node's name (etcd member name). */
  nodeName: string;
  /** `timeouts.controlPlaneComponentHealthCheck` as a Go duration (default `4m0s`). */
  controlPlaneComponentHealthCheck?: string;
  /** CA-trust directories that exist on the host (see `CA_CERTS_EXTRA_PATHS`). */
  existingDirs?: ReadonlySet<string>;
  /** Host `*_proxy` variables copied into the control-plane containers. */
  proxyEnv?: Readonly<Record<string, string>>;
  /** External CA mode (ca.crt present, ca.key absent): empty cluster-signing flags. */
  externalCA?: boolean;
  /** Receives warnings (upstream's `klog.Warningf`), e.g. about `authorization-mode`. */
  warn?: (message: string) => void;
  /** Verbose log lines (the etcd image's version fallback). */
  log?: LogFn;
}

/** Builds a {@link ManifestInput} from a resolved init configuration and host facts. */
export function manifestInputFromInit(
  cfg: ResolvedConfig,
  extra: Omit<
    ManifestInput,
    "cluster" | "localAPIEndpoint" | "nodeName" | "controlPlaneComponentHealthCheck"
  > = {},
): ManifestInput {
  return {
    cluster: cfg.cluster,
    localAPIEndpoint: cfg.init.localAPIEndpoint,
    nodeName: cfg.init.nodeRegistration.name,
    controlPlaneComponentHealthCheck: cfg.init.timeouts?.controlPlaneComponentHealthCheck,
    ...extra,
  };
}

/** The control-plane health-check timeout in milliseconds. */
export function healthCheckTimeoutMs(input: ManifestInput): number {
  const text = input.controlPlaneComponentHealthCheck;
  return text ? parseDuration(text) : DefaultTimeouts.controlPlaneComponentHealthCheck;
}
