/**
 * `discovery-check`: an offline verdict on a `cluster-info` ConfigMap for a bootstrap token
 * and CA pins, beyond upstream (which only ever runs these checks inside `kubeadm join`).
 *
 * Given the ConfigMap (object, or the text `kubectl get cm cluster-info -n kube-public -o
 * yaml|json` prints), the token and the `sha256:` hashes, it runs, in upstream's order and
 * with upstream's messages, every check token discovery makes before it trusts the API
 * server: token format, pin syntax, kubeconfig and signature keys, the JWS signature, the
 * kubeconfig and its one cluster (exactly one is required), the CA bundle, and the pin match. The result is plain data
 * (JSON-serialisable, for `-o json` and the browser page). It never contains the token secret.
 *
 * Not covered offline: the second, pinned-TLS fetch a live join makes to prove the server
 * holds the CA's key.
 *
 * @module
 */
import type { Hashing } from "../ports/crypto.ts";
import { CLUSTER_INFO_CONFIGMAP, CLUSTER_INFO_KUBECONFIG_KEY } from "../constants.ts";
import { DiscoveryError, errorMessage } from "../errors.ts";
import { parseToken, redactToken } from "../bootstraptoken/token.ts";
import { type Certificate, parseCertificatesPEM } from "../pki/cert.ts";
import { PinSet } from "../pki/pin.ts";
import { type CaCertSummary, summarizeCertificate } from "./ca_bundle.ts";
import {
  clusterInfoCluster,
  type ClusterInfoConfigMap,
  parseClusterInfo,
  signatureKey,
  signedTokenIds,
} from "./cluster_info.ts";
import { parseKubeconfig } from "../kubeconfig/kubeconfig.ts";
import { detachedTokenIsValid } from "./jws.ts";

/** Outcome of one check. `warning` does not reject; `skipped` was not run. */
export type CheckStatus = "ok" | "fail" | "warning" | "skipped";

/** One step of the verdict. */
export interface VerdictCheck {
  /** Stable identifier: `cluster-info`, `token`, `ca-cert-hashes`, `kubeconfig-key`, ... */
  name: string;
  /** `ok`, `fail`, `warning` or `skipped`. */
  status: CheckStatus;
  /** False only for `fail`. */
  ok: boolean;
  /** What was found, or upstream's error text. */
  message: string;
}

/**
 * The CA the verdict is about: the pinned certificate, else the bundle's first (also when the
 * pin check failed, so its real pin can be compared).
 */
export interface VerdictCa {
  /** Subject DN, e.g. `CN=kubernetes`. */
  subject: string;
  /** Issuer DN. */
  issuer: string;
  /** Serial number (decimal). */
  serialNumber: string;
  /** Start of validity (RFC 3339). */
  notBefore: string;
  /** End of validity (RFC 3339). */
  notAfter: string;
  /** `sha256:<hex>` of its public key. */
  pin: string;
  /** Whether this pin is among the given hashes. */
  pinned: boolean;
}

/** The verdict of {@link checkClusterInfo}. */
export interface DiscoveryVerdict {
  /** Whether kubeadm join would trust this cluster-info. */
  verdict: "verified" | "rejected";
  /** Why: the first failing check's message, or what was verified. */
  reason: string;
  /** The token id (public). */
  tokenId?: string;
  /** API server URL from the signed kubeconfig. */
  server?: string;
  /** True when the CA was matched against the given hashes. */
  caPinned: boolean;
  /** Every check, in order. */
  checks: VerdictCheck[];
  /** The CA the verdict is about. */
  ca?: VerdictCa;
  /** Every certificate of the CA bundle. */
  caCerts: CaCertSummary[];
}

/** Inputs of {@link checkClusterInfo}. */
export interface VerdictInput {
  /** The ConfigMap as an object, or its YAML/JSON text. */
  clusterInfo: unknown;
  /** The bootstrap token `<id>.<secret>`. Secret: only its id appears in the result. */
  token: string;
  /** `sha256:<hex>` CA pins (`--discovery-token-ca-cert-hash`). */
  caCertHashes?: readonly string[];
  /**
   * Accept a signed cluster-info without hashes (`--discovery-token-unsafe-skip-ca-verification`).
   * Without it, no hashes is a failure, as in upstream's config validation.
   */
  unsafeSkipCAVerification?: boolean;
  /** Time for the CA validity check (default: now). */
  now?: Date;
}

class Fail extends DiscoveryError {}

function describeCa(c: CaCertSummary, pinned: boolean): VerdictCa {
  return {
    subject: c.subject,
    issuer: c.issuer,
    serialNumber: c.serialNumber,
    notBefore: c.notBefore,
    notAfter: c.notAfter,
    pin: c.pin,
    pinned,
  };
}

const CHECK_NAMES = [
  "cluster-info",
  "token",
  "ca-cert-hashes",
  "kubeconfig-key",
  "signature-key",
  "signature",
  "kubeconfig",
  "ca-certificates",
  "ca-pin",
  "ca-validity",
] as const;

type CheckName = typeof CHECK_NAMES[number];

/**
 * Checks a cluster-info ConfigMap against a token and CA hashes without any network, `crypto`
 * checking the JWS signature and computing the pins. Never throws for bad input: problems
 * become a `rejected` verdict with the failing check.
 */
export async function checkClusterInfo(
  input: VerdictInput,
  crypto: Hashing,
): Promise<DiscoveryVerdict> {
  const checks: VerdictCheck[] = [];
  const result: DiscoveryVerdict = {
    verdict: "rejected",
    reason: "",
    caPinned: false,
    checks,
    caCerts: [],
  };
  const pass = (name: CheckName, message: string, status: CheckStatus = "ok") =>
    checks.push({ name, status, ok: status !== "fail", message });
  const fail = (name: CheckName, message: string): never => {
    checks.push({ name, status: "fail", ok: false, message });
    throw new Fail(message);
  };
  let successReason = "";

  try {
    // cluster-info
    let cm: ClusterInfoConfigMap;
    try {
      cm = parseClusterInfo(input.clusterInfo);
    } catch (e) {
      return fail(
        "cluster-info",
        `could not read the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${errorMessage(e)}`,
      );
    }
    const signed = signedTokenIds(cm);
    pass(
      "cluster-info",
      `ConfigMap read; signatures present for token ID(s): ${
        signed.length ? signed.join(", ") : "none"
      }`,
    );

    // token
    let id: string, secret: string;
    try {
      ({ id, secret } = parseToken(input.token));
    } catch (e) {
      return fail("token", errorMessage(e));
    }
    result.tokenId = id;
    pass("token", `token ID ${JSON.stringify(id)}`);

    // ca-cert-hashes
    const hashes = input.caCertHashes ?? [];
    const pins = new PinSet(crypto);
    try {
      pins.allow(...hashes);
    } catch (e) {
      return fail(
        "ca-cert-hashes",
        `invalid discovery token CA certificate hash: ${errorMessage(e)}`,
      );
    }
    if (pins.isEmpty()) {
      if (!input.unsafeSkipCAVerification) {
        fail(
          "ca-cert-hashes",
          "using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue",
        );
      }
      pass("ca-cert-hashes", "no hash given: the CA will NOT be verified (unsafe skip)", "warning");
    } else {
      pass("ca-cert-hashes", `${hashes.length} hash(es) given`);
    }

    // kubeconfig-key
    const kubeconfigText = cm.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
    if (!kubeconfigText) {
      fail(
        "kubeconfig-key",
        `there is no ${CLUSTER_INFO_KUBECONFIG_KEY} key in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap. This API Server isn't set up for token bootstrapping, can't connect`,
      );
    }
    pass("kubeconfig-key", `${kubeconfigText!.length} bytes`);

    // signature-key
    const signature = cm.data?.[signatureKey(id)];
    if (!signature) {
      fail(
        "signature-key",
        `token id ${
          JSON.stringify(id)
        } is invalid for this cluster or it has expired. Use "kubeadm token create" on the control-plane node to create a new valid token`,
      );
    }
    pass("signature-key", `${signatureKey(id)} present`);

    // signature
    if (!await detachedTokenIsValid(signature!, kubeconfigText!, id, secret, crypto)) {
      fail(
        "signature",
        "failed to verify JWS signature of received cluster info object, can't trust this API Server",
      );
    }
    pass("signature", `the kubeconfig is signed with token ${JSON.stringify(id)}`);

    // kubeconfig
    let caPem: string;
    try {
      const config = (() => {
        try {
          return parseKubeconfig(kubeconfigText!, "kubeconfig", { clientcmd: true });
        } catch (e) {
          throw new DiscoveryError(
            `couldn't parse the kubeconfig file in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${
              errorMessage(e)
            }`,
          );
        }
      })();
      let named;
      try {
        named = clusterInfoCluster(config);
      } catch (e) {
        throw new DiscoveryError(
          `malformed kubeconfig in the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${errorMessage(e)}`,
        );
      }
      caPem = named.caPem;
      result.server = named.cluster.server ?? "";
      pass("kubeconfig", `API server ${result.server || "(none)"}`);
    } catch (e) {
      return fail("kubeconfig", errorMessage(e));
    }

    // ca-certificates
    let certs: Certificate[];
    try {
      certs = parseCertificatesPEM(caPem);
    } catch (e) {
      return fail(
        "ca-certificates",
        `failed to parse cluster CA from the ${CLUSTER_INFO_CONFIGMAP} ConfigMap: ${
          errorMessage(e)
        }`,
      );
    }
    result.caCerts = await Promise.all(certs.map((c) => summarizeCertificate(c, crypto)));
    pass(
      "ca-certificates",
      `${certs.length} certificate(s): ${result.caCerts.map((c) => c.subject).join("; ")}`,
    );
    // Described even if the pin check fails, so the user can compare the pins.
    result.ca = describeCa(result.caCerts[0], false);

    // ca-pin
    let chosen = 0;
    if (pins.isEmpty()) {
      pass("ca-pin", "not checked: no hash given", "skipped");
      successReason = `the ${CLUSTER_INFO_CONFIGMAP} kubeconfig is signed with token ${
        JSON.stringify(id)
      }, but its CA was NOT verified: no CA hash given`;
    } else {
      try {
        await pins.checkAny(certs);
      } catch (e) {
        fail(
          "ca-pin",
          `cluster CA found in ${CLUSTER_INFO_CONFIGMAP} ConfigMap is invalid: ${errorMessage(e)}`,
        );
      }
      for (let i = 0; i < certs.length; i++) {
        if (await pins.has(certs[i])) {
          chosen = i;
          break;
        }
      }
      result.caPinned = true;
      pass("ca-pin", `CA public key ${result.caCerts[chosen].pin} is pinned`);
      successReason = `the ${CLUSTER_INFO_CONFIGMAP} kubeconfig is signed with token ${
        JSON.stringify(id)
      } and its CA public key ${result.caCerts[chosen].pin} matches a given hash`;
    }
    const c = result.caCerts[chosen];
    result.ca = describeCa(c, result.caPinned);

    // ca-validity (informational)
    const now = input.now ?? new Date();
    const cert = certs[chosen];
    if (now < cert.notBefore) {
      pass(
        "ca-validity",
        `the CA certificate is not valid yet (NotBefore ${c.notBefore})`,
        "warning",
      );
    } else if (now > cert.notAfter) {
      pass("ca-validity", `the CA certificate has expired (NotAfter ${c.notAfter})`, "warning");
    } else {
      pass("ca-validity", `valid until ${c.notAfter}`);
    }
    result.verdict = "verified";
    result.reason = successReason;
  } catch (e) {
    if (!(e instanceof Fail)) {
      checks.push({ name: "internal", status: "fail", ok: false, message: errorMessage(e) });
    }
    result.verdict = "rejected";
    result.reason = checks[checks.length - 1].message;
    for (const name of CHECK_NAMES) {
      if (!checks.some((ch) => ch.name === name)) {
        checks.push({
          name,
          status: "skipped",
          ok: true,
          message: "not run: an earlier check failed",
        });
      }
    }
  }
  // The token secret must never leak, whatever an error message quoted.
  const secretFree = (s: string) => s.split(input.token).join(redactToken(input.token));
  result.reason = secretFree(result.reason);
  for (const ch of checks) ch.message = secretFree(ch.message);
  return result;
}
