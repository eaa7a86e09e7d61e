/**
 * `kubeadm kubeconfig user` as data (upstream `WriteKubeConfigWithClientCert` and
 * `WriteKubeConfigWithToken`): a kubeconfig for an additional user of the cluster, pointing at
 * the control-plane endpoint and trusting `ca.crt`, authenticated either by a new client
 * certificate (CN = client name, O = organizations, clientAuth, signed by `ca`, NotAfter =
 * start + validity) or by a token. Both need the CA certificate and key to load, as upstream.
 *
 * @module
 */
import type { CryptoPort } from "../ports/crypto.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { formatDuration } from "../text/duration.ts";
import { CERT_VALIDITY_HOURS } from "../constants.ts";
import { errorMessage, KubeadmError, PkiError } from "../errors.ts";
import type { FileReader } from "../ports/files.ts";
import type { RandomSource } from "../ports/random.ts";
import { encodeCertificatePEM } from "../pki/cert.ts";
import { generateKeyPair, type KeyPair } from "../pki/keys.ts";
import { controlPlaneEndpointURL } from "../net/endpoint.ts";
import { type CertAndKey, periodWarning, PkiDirectory } from "../certs/pki_dir.ts";
import { createKubeconfigWithToken, serializeKubeconfig } from "./kubeconfig.ts";
import { buildClientCertKubeconfig } from "./files.ts";

/** Upstream's default (and recommended maximum) client certificate validity: 8760h. */
const DEFAULT_USER_VALIDITY_MS = CERT_VALIDITY_HOURS * 3600 * 1000;

/** Input of {@link userKubeconfig}. */
export interface UserKubeconfigInput {
  cfg: ResolvedConfig;
  files: FileReader;
  /** The user name, and the certificate's CN. */
  clientName: string;
  /** The certificate's O values. */
  organizations: readonly string[];
  /** Authenticate with this token instead of a client certificate. */
  token?: string;
  /** Certificate validity from `startTime` (`--validity-period`). */
  validityMs: number;
  startTime: Date;
  now: Date;
  random: RandomSource;
  crypto: CryptoPort;
  /** Receives upstream's warnings (long validity, CA period, endpoint port). */
  warn?: (line: string) => void;
  /** The client key (default: a new one per `encryptionAlgorithm`). */
  key?: KeyPair;
}

/** Upstream's warning for a validity longer than the default. */
export function longValidityWarning(validityMs: number): string | undefined {
  return validityMs > DEFAULT_USER_VALIDITY_MS
    ? `WARNING: the specified certificate validity period ${
      formatDuration(validityMs)
    } is longer than the default duration ${
      formatDuration(DEFAULT_USER_VALIDITY_MS)
    }, this may increase security risks.`
    : undefined;
}

async function loadCA(pki: PkiDirectory): Promise<CertAndKey> {
  try {
    return await pki.loadCertAndKey("ca");
  } catch (e) {
    throw new PkiError(
      `couldn't create a kubeconfig; the CA files couldn't be loaded: ${errorMessage(e)}`,
      {
        field: e instanceof KubeadmError ? e.field : undefined,
        cause: e,
        hint: "run this command on a control-plane node, or pass --config",
      },
    );
  }
}

/** Builds the user's kubeconfig and returns it as `clientcmd.Write` serializes it. */
export async function userKubeconfig(input: UserKubeconfigInput): Promise<string> {
  const { cfg } = input;
  const warn = input.warn ?? (() => {});
  const long = longValidityWarning(input.validityMs);
  if (long) warn(long);
  const ca = await loadCA(PkiDirectory.of(input));
  const period = periodWarning("ca", ca.cert, input.now);
  if (period) warn(period);
  const server = controlPlaneEndpointURL(
    cfg.cluster.controlPlaneEndpoint,
    cfg.init.localAPIEndpoint,
    warn,
  );
  const caPEM = encodeCertificatePEM(ca.cert);
  const clusterName = cfg.cluster.clusterName;
  if (input.token) {
    return serializeKubeconfig(
      createKubeconfigWithToken(server, clusterName, input.clientName, caPEM, input.token),
      { nullEmptyLists: true },
    );
  }
  const key = input.key ?? await generateKeyPair(cfg.cluster.encryptionAlgorithm, input);
  const { kubeconfig } = await buildClientCertKubeconfig(
    { clientName: input.clientName, organizations: [...input.organizations], serverURL: server },
    clusterName,
    ca,
    key,
    input.random,
    input.crypto,
    { notAfter: new Date(input.startTime.getTime() + input.validityMs) },
  );
  return serializeKubeconfig(kubeconfig, { nullEmptyLists: true });
}
