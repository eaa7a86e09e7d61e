/**
 * kubeadm's kubeconfig files on the node: admin.conf, super-admin.conf, kubelet.conf,
 * controller-manager.conf and scheduler.conf, each with a client certificate signed by `ca`,
 * created or reused as upstream's `init phase kubeconfig <name>` does. `init`'s kubeconfig
 * phases and a control-plane `join` call this; `kubeconfig user` (`user.ts`) builds its file
 * with the same {@link buildClientCertKubeconfig}, and `certs renew` finds the files by
 * {@link kubeconfigPath}.
 *
 * An existing file is reused when its current cluster carries the expected CA (a different
 * server URL only warns); a file with another CA is an {@link ExistingFileError}. With an
 * external CA (ca.crt without ca.key) the files must be provided and are only validated.
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import { errorMessage, ExistingFileError, KubeadmError, PkiError } from "../errors.ts";
import { certPath, keyPath } from "../certs/certlist.ts";
import {
  fileExists,
  loadCert,
  loadCertificateAuthority,
  periodWarning,
} from "../certs/pki_files.ts";
import { type CertTreeContext, keylessCA, kubeconfigKeyId } from "../certs/tree.ts";
import { type Certificate, createSignedCert, encodeCertificatePEM } from "../pki/cert.ts";
import { encodePrivateKeyPEM, type KeyPair } from "../pki/keys.ts";
import { parseDuration } from "../text/duration.ts";
import { type RandomSource, utf8 } from "../host/ports.ts";
import { controlPlaneEndpointURL } from "../net/endpoint.ts";
import {
  createBasicKubeconfig,
  createKubeconfigWithCerts,
  embeddedText,
  type Kubeconfig,
  parseKubeconfig,
  resolveContext,
  serializeKubeconfig,
} from "./kubeconfig.ts";
import { kubeconfigSpec, type ResolvedKubeconfigSpec, resolveKubeconfigSpec } from "./specs.ts";

/**
 * What creating or reusing kubeconfig files needs: the certificate tree whose `ca` signs their
 * client certificates (valid until start + certificateValidityPeriod), and where they go.
 */
export interface KubeconfigFileContext extends CertTreeContext {
  /** `/etc/kubernetes`. */
  kubeconfigDir: string;
}

/** Validity of kubeconfig client certificates for this run. */
export interface ClientCertValidity {
  /** Defaults to the CA's NotBefore (upstream's signer fallback). */
  notBefore?: Date;
  notAfter?: Date;
}

/** NotAfter = start + certificateValidityPeriod (NotBefore left to the CA's, as upstream). */
export function clientCertValidity(cfg: ResolvedConfig, startTime: Date): ClientCertValidity {
  return {
    notAfter: new Date(startTime.getTime() + parseDuration(cfg.cluster.certificateValidityPeriod)),
  };
}

/** A kubeconfig with its client certificate (for inspection and tests). */
export interface BuiltKubeconfig {
  kubeconfig: Kubeconfig;
  clientCert: Certificate;
}

/**
 * Builds a kubeconfig with an embedded client certificate for `clientKey`, signed by the CA
 * (upstream `buildKubeConfigFromSpec`).
 */
export async function buildClientCertKubeconfig(
  resolved: Pick<ResolvedKubeconfigSpec, "clientName" | "organizations" | "serverURL">,
  clusterName: string,
  ca: { cert: Certificate; key: KeyPair },
  clientKey: KeyPair,
  random: RandomSource,
  validity: ClientCertValidity = {},
): Promise<BuiltKubeconfig> {
  const clientCert = await createSignedCert(
    {
      commonName: resolved.clientName,
      organization: resolved.organizations,
      usages: ["clientAuth"],
      notBefore: validity.notBefore,
      notAfter: validity.notAfter,
    },
    clientKey,
    ca.cert,
    ca.key,
    random,
  );
  const kubeconfig = createKubeconfigWithCerts(
    resolved.serverURL,
    clusterName,
    resolved.clientName,
    encodeCertificatePEM(ca.cert),
    await encodePrivateKeyPEM(clientKey),
    encodeCertificatePEM(clientCert),
  );
  return { kubeconfig, clientCert };
}

/** File mode of kubeconfig files. */
export const KUBECONFIG_FILE_MODE = 0o600;

/** `<kubeconfigDir>/<file>`. */
export function kubeconfigPath(kubeconfigDir: string, fileName: string): string {
  return `${kubeconfigDir.replace(/\/+$/, "")}/${fileName}`;
}

/** `[kubeconfig] Using kubeconfig folder "<dir>"`. */
export function kubeconfigDirLine(kubeconfigDir: string): string {
  return `[kubeconfig] Using kubeconfig folder ${JSON.stringify(kubeconfigDir)}`;
}

/**
 * Creates or reuses one kubeconfig file (`admin`, `super-admin`, `kubelet`,
 * `controller-manager`, `scheduler`), as upstream's `init phase kubeconfig <name>` does.
 */
export async function ensureKubeconfigFile(
  ctx: KubeconfigFileContext,
  name: string,
): Promise<void> {
  const spec = kubeconfigSpec(name);
  const dir = ctx.cfg.cluster.certificatesDir;
  const path = kubeconfigPath(ctx.kubeconfigDir, spec.fileName);
  // Upstream resolves every file's endpoint on each call, so the controlPlaneEndpoint port
  // warning appears once per kubeconfig file, whichever endpoint that file uses.
  controlPlaneEndpointURL(
    ctx.cfg.cluster.controlPlaneEndpoint,
    ctx.cfg.init.localAPIEndpoint,
    (l) => ctx.out.warn(l),
  );
  const resolved = resolveKubeconfigSpec(spec, ctx.cfg);

  if (await keylessCA(ctx.files, dir)) {
    let caCert: Certificate;
    try {
      caCert = await loadCert(ctx.files, dir, "ca");
    } catch (e) {
      throw new PkiError(`the CA file couldn't be loaded: ${errorMessage(e)}`, {
        field: certPath(dir, "ca"),
        cause: e,
      });
    }
    const expected = createBasicKubeconfig(
      resolved.serverURL,
      "dummy",
      "dummy",
      encodeCertificatePEM(caCert),
    );
    try {
      if (!(await validateExisting(ctx, path, expected))) {
        throw new ExistingFileError(`open ${path}: no such file or directory`, { field: path });
      }
    } catch (e) {
      throw new ExistingFileError(
        `the ${spec.fileName} file does not exists or it is not valid: ${errorMessage(e)}`,
        {
          field: path,
          cause: e,
          hint: `with an external CA (no ${keyPath(dir, "ca")}), provide ${path} signed by that CA`,
        },
      );
    }
    ctx.out.info(`[kubeconfig] External CA mode: Using user provided ${spec.fileName}`);
    return;
  }

  let ca;
  try {
    ca = await loadCertificateAuthority(ctx.files, dir, "ca", ctx.recovery, ctx.crypto);
  } catch (e) {
    const missing = !(await fileExists(ctx.files, certPath(dir, "ca")));
    if (missing) {
      throw new PkiError(
        `the CA files do not exist, please run \`kubeadm init phase certs ca\` to generate it: ${
          errorMessage(e)
        }`,
        { field: certPath(dir, "ca"), cause: e, hint: "run `kubeadm init phase certs ca` first" },
      );
    }
    throw new ExistingFileError(
      `couldn't create a kubeconfig; the CA files couldn't be loaded: ${errorMessage(e)}`,
      {
        field: e instanceof KubeadmError ? e.field : certPath(dir, "ca"),
        cause: e,
        hint: e instanceof KubeadmError ? e.hint : undefined,
      },
    );
  }
  const period = periodWarning("ca", ca.cert, ctx.clock.now());
  if (period) ctx.out.warn(period);

  const caPEM = encodeCertificatePEM(ca.cert);
  const expected = createBasicKubeconfig(
    resolved.serverURL,
    ctx.cfg.cluster.clusterName,
    resolved.clientName,
    caPEM,
  );
  if (await validateExisting(ctx, path, expected)) {
    ctx.out.info(`[kubeconfig] Using existing kubeconfig file: ${JSON.stringify(path)}`);
    return;
  }
  const key = await ctx.keys.take(
    kubeconfigKeyId(spec.fileName),
    ctx.cfg.cluster.encryptionAlgorithm,
  );
  const { kubeconfig } = await buildClientCertKubeconfig(
    resolved,
    ctx.cfg.cluster.clusterName,
    ca,
    key,
    ctx.random,
    clientCertValidity(ctx.cfg, ctx.startTime),
  );
  ctx.out.info(`[kubeconfig] Writing ${JSON.stringify(spec.fileName)} kubeconfig file`);
  await ctx.files.write({
    path,
    data: serializeKubeconfig(kubeconfig),
    mode: KUBECONFIG_FILE_MODE,
    kind: "kubeconfig",
  });
}

/**
 * Checks an existing kubeconfig against the expected one (upstream `validateKubeConfig`).
 * Returns false when the file does not exist; throws when it exists but does not fit.
 */
async function validateExisting(
  ctx: KubeconfigFileContext,
  path: string,
  expected: Kubeconfig,
): Promise<boolean> {
  const raw = await ctx.files.read(path);
  if (raw === undefined) return false;
  let current: Kubeconfig;
  try {
    current = parseKubeconfig(raw, path);
  } catch (e) {
    throw new ExistingFileError(
      `failed to load kubeconfig file ${path} that already exists on disk: ${errorMessage(e)}`,
      {
        field: path,
        cause: e,
      },
    );
  }
  const want = resolveContext(expected, { wording: "kubeadm" });
  let have;
  try {
    have = resolveContext(current, { source: path, wording: "kubeadm" });
  } catch (e) {
    throw new ExistingFileError(errorMessage(e), { field: path, cause: e });
  }
  let caCurrent = have.cluster["certificate-authority-data"]
    ? embeddedText(have.cluster["certificate-authority-data"]).trim()
    : "";
  const caFile = have.cluster["certificate-authority"];
  if (caCurrent === "" && caFile) {
    const bytes = await ctx.files.read(caFile);
    if (bytes === undefined) {
      ctx.out.warn(
        `failed to load CA cert from ${JSON.stringify(caFile)} for kubeconfig ${
          JSON.stringify(path)
        }, open ${caFile}: no such file or directory`,
      );
    } else {
      caCurrent = utf8(bytes).trim();
    }
  }
  const caExpected = embeddedText(want.cluster["certificate-authority-data"] ?? "").trim();
  if (caCurrent !== caExpected) {
    throw new ExistingFileError(
      `a kubeconfig file ${JSON.stringify(path)} exists already but has got the wrong CA cert`,
      {
        field: path,
        hint: "remove the file to let kubeadm write a new one for the current CA",
      },
    );
  }
  if (have.cluster.server !== want.cluster.server) {
    ctx.out.warn(
      `a kubeconfig file ${
        JSON.stringify(path)
      } exists already but has an unexpected API Server URL: expected: ${want.cluster.server}, got: ${have.cluster.server}`,
    );
  }
  return true;
}
