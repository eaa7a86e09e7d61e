/**
 * External-CA mode detection (upstream `UsingExternalCA`, `UsingExternalFrontProxyCA`,
 * `UsingExternalEtcdCA`): a CA whose certificate is present but whose key is not. In that mode
 * kubeadm cannot sign anything with that CA, so every certificate it would sign must already
 * exist, with its key, and verify against the CA.
 *
 * @module
 */
import { errorMessage, ExistingFileError } from "../errors.ts";
import { type Certificate, verifyCertChain } from "../pki/cert.ts";
import { periodWarning, type PkiDirectory } from "./pki_dir.ts";

/** One certificate that must exist when its CA is external. */
interface SignedCertCheck {
  baseName: string;
  /** Name used in messages, as upstream words it ("API server"). */
  uxName: string;
}

/**
 * Checks that `<base>.key` loads and `<base>.crt` verifies against the CA (upstream
 * `validateSignedCertWithCA`); throws an {@link ExistingFileError} naming the problem.
 */
async function validateSignedCertWithCA(
  pki: PkiDirectory,
  check: SignedCertCheck,
  ca: Certificate,
  now: Date,
  warn?: (line: string) => void,
): Promise<void> {
  try {
    await pki.loadKey(check.baseName);
  } catch (e) {
    throw new ExistingFileError(`failure loading key for ${check.baseName}: ${errorMessage(e)}`, {
      field: pki.keyPath(check.baseName),
      cause: e,
    });
  }
  let chain;
  try {
    chain = await pki.loadCertChain(check.baseName);
  } catch (e) {
    throw new ExistingFileError(
      `failure loading certificate for ${check.uxName}: ${errorMessage(e)}`,
      { cause: e },
    );
  }
  const period = warn && periodWarning(check.uxName, chain.cert, now);
  if (period) warn!(period);
  try {
    await verifyCertChain(chain.cert, chain.intermediates, ca, now, pki.crypto);
  } catch (e) {
    throw new ExistingFileError(
      `certificate ${check.uxName} is not signed by corresponding CA: ${errorMessage(e)}`,
      {
        field: chain.path,
        cause: e,
      },
    );
  }
}

/** What each CA's external mode requires: the leaves it signs, with upstream's names. */
const EXTERNAL_CA_LEAVES: Readonly<Record<string, { uxName: string; leaves: SignedCertCheck[] }>> =
  {
    "ca": {
      uxName: "CA",
      leaves: [
        { baseName: "apiserver", uxName: "API server" },
        { baseName: "apiserver-kubelet-client", uxName: "API server kubelet client" },
      ],
    },
    "front-proxy-ca": {
      uxName: "front-proxy CA",
      leaves: [{ baseName: "front-proxy-client", uxName: "front-proxy client" }],
    },
    "etcd/ca": {
      uxName: "etcd CA",
      leaves: [
        { baseName: "apiserver-etcd-client", uxName: "apiserver etcd client" },
        { baseName: "etcd/server", uxName: "etcd server" },
        { baseName: "etcd/peer", uxName: "etcd peer" },
        { baseName: "etcd/healthcheck-client", uxName: "etcd health-check client" },
      ],
    },
  };

/**
 * Upstream's `UsingExternalCA` and its front-proxy and etcd twins, with the rule of
 * `certs renew` and `check-expiration`: a CA certificate that does not load is an error
 * (`failure loading certificate for CA: ...`), not "no external CA".
 */
async function usingExternal(
  pki: PkiDirectory,
  caBaseName: string,
  now: Date,
  warn?: (line: string) => void,
): Promise<boolean> {
  const { uxName: caUxName, leaves } = EXTERNAL_CA_LEAVES[caBaseName];
  let ca: Certificate;
  try {
    ca = await pki.loadCert(caBaseName);
  } catch (e) {
    throw new ExistingFileError(`failure loading certificate for ${caUxName}: ${errorMessage(e)}`, {
      field: pki.certPath(caBaseName),
      cause: e,
    });
  }
  const caPeriod = warn && periodWarning(caUxName, ca, now);
  if (caPeriod) warn!(caPeriod);
  if (!ca.isCA) {
    throw new ExistingFileError(`certificate ${caUxName} is not a CA`, {
      field: pki.certPath(caBaseName),
    });
  }
  if (await pki.hasKey(caBaseName)) return false;
  for (const leaf of leaves) await validateSignedCertWithCA(pki, leaf, ca, now, warn);
  return true;
}

/**
 * Whether the CA with this base name (`ca`, `front-proxy-ca`, `etcd/ca`) is managed outside
 * kubeadm (upstream renewal `IsExternallyManaged`): its key is absent and the leaves it signs
 * verify. A CA certificate that does not load, or a keyless CA whose leaves do not verify, is
 * an error `Error checking external CA condition for <base> certificate authority: ...`.
 */
async function isExternallyManaged(
  pki: PkiDirectory,
  caBaseName: string,
  now: Date,
  warn?: (line: string) => void,
): Promise<boolean> {
  if (!EXTERNAL_CA_LEAVES[caBaseName]) {
    throw new ExistingFileError(`unknown certificate authority ${caBaseName}`, {
      value: caBaseName,
    });
  }
  try {
    return await usingExternal(pki, caBaseName, now, warn);
  } catch (e) {
    throw new ExistingFileError(
      `Error checking external CA condition for ${caBaseName} certificate authority: ${
        errorMessage(e)
      }`,
      {
        field: e instanceof ExistingFileError ? e.field : undefined,
        cause: e,
        hint: `with ${
          pki.keyPath(caBaseName)
        } absent, kubeadm treats the CA as external: every certificate it signs must be present, with its key, and verify against ${
          pki.certPath(caBaseName)
        }`,
      },
    );
  }
}

/**
 * {@link isExternallyManaged} for one run: each CA checked once, and upstream's period
 * warnings collected once each in {@link ExternalCAChecker.warnings}.
 */
export interface ExternalCAChecker {
  isExternal(caBaseName: string): Promise<boolean>;
  /** Collected warnings, each once, in order. */
  readonly warnings: string[];
}

/** Creates an {@link ExternalCAChecker} over the certificates directory at `now`. */
export function externalCAChecker(pki: PkiDirectory, now: Date): ExternalCAChecker {
  const warnings: string[] = [];
  const warn = (line: string) => {
    if (!warnings.includes(line)) warnings.push(line);
  };
  const seen = new Map<string, Promise<boolean>>();
  return {
    warnings,
    isExternal(caBaseName: string) {
      let v = seen.get(caBaseName);
      if (!v) {
        v = isExternallyManaged(pki, caBaseName, now, warn);
        seen.set(caBaseName, v);
      }
      return v;
    },
  };
}
