/**
 * Discovery for `kubeadm join` (upstream `discovery.For`): token discovery against the
 * positional endpoint, or file / HTTPS discovery from `discovery.file.kubeConfigPath`, then
 * the TLS-bootstrap kubeconfig (`bootstrap-kubelet.conf` content) built from what was learnt.
 *
 * The network and the discovery file come in through {@link DiscoveryPorts}. A discovery that
 * did not pin the CA (`unsafeSkipCAVerification`) is reported with a loud warning.
 *
 * @module
 */
import type { Hashing } from "../../ports/crypto.ts";
import { parseDuration } from "../../text/duration.ts";
import type { ResolvedJoinConfig } from "../../config/join.ts";
import { clusterInfoFetcher, clusterInfoFetcherWithKubeconfig } from "../../discovery/fetch.ts";
import {
  discoverWithFile,
  fetchDiscoveryKubeconfig,
  type FetchDiscoveryUrl,
} from "../../discovery/file.ts";
import { bootstrapCaSummary, tlsBootstrapKubeconfigFor } from "../../discovery/tls_bootstrap.ts";
import { discoverWithToken } from "../../discovery/token.ts";
import { DiscoveryError, errorMessage } from "../../errors.ts";
import type { Clock, Sleep } from "../../ports/clock.ts";
import type { FileReader } from "../../ports/files.ts";
import type { Printer } from "../../ports/printer.ts";
import type { Kubeconfig } from "../../kubeconfig/kubeconfig.ts";
import type { TransportFactory } from "../../ports/transport.ts";
import { utf8 } from "../../text/utf8.ts";

/** What discovery needs from the runtime. */
export interface DiscoveryPorts {
  /**
   * Transports for discovery requests: anonymous; `insecureSkipTLSVerify` for the first
   * token-discovery fetch; otherwise verifying the server against exactly `caPem`.
   */
  transportFor: TransportFactory;
  /** Reads the discovery file and the files it refers to (the host's, not the node's). */
  hostFiles: FileReader;
  /** GETs an `https://` discovery URL with the host's trust store. */
  fetchUrl: FetchDiscoveryUrl;
}

/** What discovery takes of the run: its output, time and crypto port. */
export interface DiscoveryRun {
  out: Printer;
  clock: Clock;
  sleep: Sleep;
  /** Checks the JWS signature and computes the CA pins. */
  crypto: Hashing;
}

/** The warning printed when token discovery does not pin the CA. */
const UNSAFE_DISCOVERY_WARNING = [
  "[discovery] WARNING: ************************************************************************",
  "[discovery] WARNING: The cluster CA was NOT verified: --discovery-token-unsafe-skip-ca-verification",
  "[discovery] WARNING: (unsafeSkipCAVerification) is set and no --discovery-token-ca-cert-hash was",
  "[discovery] WARNING: given. Anyone who can intercept the connection to the API server endpoint and",
  "[discovery] WARNING: knows the token can impersonate the control plane to this node. Pass",
  "[discovery] WARNING: --discovery-token-ca-cert-hash sha256:<hash of the cluster CA public key>.",
  "[discovery] WARNING: ************************************************************************",
];

/** What discovery settled on. */
export interface JoinDiscovery {
  /** The TLS-bootstrap kubeconfig (server, CA and bootstrap credentials). */
  tlsBootstrap: Kubeconfig;
  /** `token` or `file`. */
  method: "token" | "file";
  /** False for token discovery without CA pins. */
  pinned: boolean;
}

function isHttpsURL(path: string): boolean {
  return /^https:\/\//i.test(path);
}

/**
 * The TLS bootstrap kubeconfig once its CA certificate is read (upstream v1.35+ fails discovery
 * when the CA data holds no certificate, and logs the CA's summary at `-v=1`).
 */
async function withCaCertificate(
  kubeconfig: Kubeconfig,
  crypto: Hashing,
  log: (line: string) => void,
): Promise<Kubeconfig> {
  const ca = await bootstrapCaSummary(kubeconfig, crypto);
  log(
    [
      "[discovery] Using CA certificate from discovery kubeconfig:",
      "CA Certificate:",
      `\tSubject: ${ca.subject}`,
      `\tIssuer: ${ca.issuer}`,
      `\tSerialNumber: ${ca.serialNumber}`,
      `\tNotBefore: ${ca.notBefore}`,
      `\tNotAfter: ${ca.notAfter}`,
      `\tSignatureAlgorithm: ${ca.signatureAlgorithm}`,
      `\tPublicKeyAlgorithm: ${ca.publicKeyAlgorithm}`,
      `\tHash: ${ca.pin}`,
    ].join("\n"),
  );
  return kubeconfig;
}

/** Runs the configured discovery. Throws a {@link DiscoveryError}. */
export async function discoverCluster(
  cfg: ResolvedJoinConfig,
  ports: DiscoveryPorts,
  run: DiscoveryRun,
): Promise<JoinDiscovery> {
  const { out, clock, sleep, crypto } = run;
  const timeoutMs = parseDuration(cfg.timeouts.discovery);
  const d = cfg.discovery;
  // Upstream logs discovery progress at -v=1 only; each line names the module it comes from.
  const logFrom = (source: string) => (line: string) => out.log?.(1, source, line);
  const log = logFrom("discovery.ts");
  const tlsBootstrapOf = (discovered: Kubeconfig) =>
    withCaCertificate(
      tlsBootstrapKubeconfigFor(discovered, d.tlsBootstrapToken, log),
      crypto,
      log,
    );
  if (d.file?.kubeConfigPath) {
    const path = d.file.kubeConfigPath;
    let kubeconfig: Kubeconfig | string;
    if (isHttpsURL(path)) {
      try {
        kubeconfig = await fetchDiscoveryKubeconfig(path, ports.fetchUrl);
      } catch (e) {
        throw new DiscoveryError(
          `couldn't validate the identity of the API Server: ${errorMessage(e)}`,
          {
            cause: e,
            hint: "check the discovery URL and that its certificate is trusted by this host",
          },
        );
      }
    } else {
      const data = await ports.hostFiles.read(path);
      if (data === undefined) {
        throw new DiscoveryError(
          `couldn't validate the identity of the API Server: open ${path}: no such file or directory`,
          { field: "discovery.file.kubeConfigPath", value: path },
        );
      }
      kubeconfig = utf8(data);
    }
    const result = await discoverWithFile({
      kubeconfig,
      files: ports.hostFiles,
      fetchClusterInfo: clusterInfoFetcherWithKubeconfig(ports.transportFor, { clock, sleep }),
      clock,
      sleep,
      timeoutMs,
      log: logFrom("file.ts"),
      warn: (l) => out.warn(l),
    });
    return { tlsBootstrap: await tlsBootstrapOf(result.kubeconfig), method: "file", pinned: true };
  }
  if (d.bootstrapToken) {
    const b = d.bootstrapToken;
    const endpoint = b.apiServerEndpoint ?? "";
    const result = await discoverWithToken({
      token: b.token ?? "",
      caCertHashes: b.caCertHashes ?? [],
      fetchClusterInfo: clusterInfoFetcher(endpoint, ports.transportFor, { clock, sleep }),
      crypto,
      clock,
      sleep,
      timeoutMs,
      log: logFrom("token.ts"),
      endpoint,
    });
    if (!result.pinned) { for (const line of UNSAFE_DISCOVERY_WARNING) out.warn(line); }
    return {
      tlsBootstrap: await tlsBootstrapOf(result.kubeconfig),
      method: "token",
      pinned: result.pinned,
    };
  }
  throw new DiscoveryError(
    "couldn't validate the identity of the API Server: couldn't find a valid discovery configuration",
  );
}
