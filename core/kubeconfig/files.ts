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
import type { CryptoPort } from "../ports/crypto.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { errorMessage, ExistingFileError, KubeadmError, PkiError } from "../errors.ts";
import { type CertAndKey, periodWarning, PkiDirectory } from "../certs/pki_dir.ts";
import { type CertTreeContext, kubeconfigKeyId } from "../certs/tree.ts";
import { type Certificate, createSignedCert, encodeCertificatePEM } from "../pki/cert.ts";
import { encodePrivateKeyPEM, type KeyPair } from "../pki/keys.ts";
import { parseDuration } from "../text/duration.ts";
import type { FileReader } from "../ports/files.ts";
import type { RandomSource } from "../ports/random.ts";
import { utf8 } from "../text/utf8.ts";
import { ParsedFiles } from "../files/parsed_files.ts";
import { controlPlaneEndpointURL } from "../net/endpoint.ts";
import {
  createKubeconfigWithCerts,
  embeddedText,
  type Kubeconfig,
  kubeconfigOfDocument,
  parseKubeconfig,
  resolveContext,
  serializeKubeconfig,
} from "./kubeconfig.ts";
import {
  KUBECONFIG_SPECS,
  type KubeconfigSpec,
  kubeconfigSpec,
  type ResolvedKubeconfigSpec,
  resolveKubeconfigSpec,
} from "./specs.ts";

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
function clientCertValidity(cfg: ResolvedConfig, startTime: Date): ClientCertValidity {
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
  ca: CertAndKey,
  clientKey: KeyPair,
  random: RandomSource,
  crypto: CryptoPort,
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
    crypto,
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
 * The CA kubeconfig client certificates are checked against and signed by: an external CA
 * (`ca.crt` without `ca.key`: files are only validated), the CA pair on disk, or the `ca` this
 * run is about to generate (no existing file can carry it).
 */
type KubeconfigCA = CAOnDisk | { mode: "generated" };

/** The CA of the kubeconfig files when it is on disk. */
type CAOnDisk =
  | { mode: "external"; cert: Certificate }
  | { mode: "signing"; cert: Certificate; key: KeyPair };

/** Loads the CA of the kubeconfig files as their sub-phases do. */
async function loadKubeconfigCA(ctx: KubeconfigFileContext): Promise<CAOnDisk> {
  const pki = PkiDirectory.of(ctx).walk();
  if (await pki.isKeyless("ca")) {
    try {
      return { mode: "external", cert: await pki.loadCert("ca") };
    } catch (e) {
      throw new PkiError(`the CA file couldn't be loaded: ${errorMessage(e)}`, {
        field: pki.certPath("ca"),
        cause: e,
      });
    }
  }
  try {
    return { mode: "signing", ...await pki.loadCA("ca", ctx.recovery) };
  } catch (e) {
    if (!(await pki.hasCert("ca"))) {
      throw new PkiError(
        `the CA files do not exist, please run \`kubeadm init phase certs ca\` to generate it: ${
          errorMessage(e)
        }`,
        { field: pki.certPath("ca"), cause: e, hint: "run `kubeadm init phase certs ca` first" },
      );
    }
    throw new ExistingFileError(
      `couldn't create a kubeconfig; the CA files couldn't be loaded: ${errorMessage(e)}`,
      {
        field: e instanceof KubeadmError ? e.field : pki.certPath("ca"),
        cause: e,
        hint: e instanceof KubeadmError ? e.hint : undefined,
      },
    );
  }
}

/**
 * Checks one kubeconfig file as its sub-phase does, without writing: true when an existing file
 * is reused, false when it is absent and will be written; throws when it exists but does not fit
 * the CA (or, with an external CA, is absent). `warn` gets the unexpected-server warning.
 */
async function inspectKubeconfigFile(
  ctx: KubeconfigFileContext,
  spec: KubeconfigSpec,
  ca: KubeconfigCA,
  warn: (line: string) => void,
): Promise<boolean> {
  const path = kubeconfigPath(ctx.kubeconfigDir, spec.fileName);
  const resolved = resolveKubeconfigSpec(spec, ctx.cfg);
  if (ca.mode !== "external") {
    return await validateExisting(ctx, path, {
      server: resolved.serverURL,
      caPEM: ca.mode === "signing" ? encodeCertificatePEM(ca.cert) : undefined,
    }, warn);
  }
  try {
    const expected = { server: resolved.serverURL, caPEM: encodeCertificatePEM(ca.cert) };
    if (!(await validateExisting(ctx, path, expected, warn))) {
      throw new ExistingFileError(`open ${path}: no such file or directory`, { field: path });
    }
  } catch (e) {
    throw new ExistingFileError(
      `the ${spec.fileName} file does not exists or it is not valid: ${errorMessage(e)}`,
      {
        field: path,
        cause: e,
        hint: `with an external CA (no ${
          PkiDirectory.of(ctx).keyPath("ca")
        }), provide ${path} signed by that CA`,
      },
    );
  }
  return true;
}

/**
 * Before any kubeconfig file is written: every existing file of the named kubeconfigs (`admin`,
 * `kubelet`, ...) is checked as its sub-phase will check it, in their order, against the CA on
 * disk, or, when `caGenerated` (the run's certs phase creates `ca`), refused, since no existing
 * file can carry a CA not made yet. A CA that does not load is refused as the sub-phases would.
 * Nothing is written or printed.
 */
export async function checkExistingKubeconfigs(
  ctx: KubeconfigFileContext,
  names: readonly string[],
  caGenerated = false,
): Promise<void> {
  if (names.length === 0) return;
  const ca: KubeconfigCA = caGenerated ? { mode: "generated" } : await loadKubeconfigCA(ctx);
  for (const spec of KUBECONFIG_SPECS) {
    if (names.includes(spec.name)) await inspectKubeconfigFile(ctx, spec, ca, () => {});
  }
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
  const path = kubeconfigPath(ctx.kubeconfigDir, spec.fileName);
  // Upstream resolves every file's endpoint on each call, so the controlPlaneEndpoint port
  // warning appears once per kubeconfig file, whichever endpoint that file uses.
  controlPlaneEndpointURL(
    ctx.cfg.cluster.controlPlaneEndpoint,
    ctx.cfg.init.localAPIEndpoint,
    (l) => ctx.out.warn(l),
  );
  const ca = await loadKubeconfigCA(ctx);
  if (ca.mode !== "external") {
    ctx.out.log?.(1, "files.ts", `creating kubeconfig file for ${spec.fileName}`);
  }
  if (ca.mode === "signing") {
    const period = periodWarning("ca", ca.cert, ctx.clock.now());
    if (period) ctx.out.warn(period);
  }
  const reused = await inspectKubeconfigFile(ctx, spec, ca, (l) => ctx.out.warn(l));
  if (ca.mode === "external") {
    ctx.out.info(`[kubeconfig] External CA mode: Using user provided ${spec.fileName}`);
    return;
  }
  if (reused) {
    ctx.out.info(`[kubeconfig] Using existing kubeconfig file: ${JSON.stringify(path)}`);
    return;
  }
  const key = await ctx.keys.take(
    kubeconfigKeyId(spec.fileName),
    ctx.cfg.cluster.encryptionAlgorithm,
  );
  const resolved = resolveKubeconfigSpec(spec, ctx.cfg);
  const { kubeconfig } = await buildClientCertKubeconfig(
    resolved,
    ctx.cfg.cluster.clusterName,
    ca,
    key,
    ctx.random,
    ctx.crypto,
    clientCertValidity(ctx.cfg, ctx.startTime),
  );
  ctx.out.info(`[kubeconfig] Writing ${JSON.stringify(spec.fileName)} kubeconfig file`);
  const data = serializeKubeconfig(kubeconfig);
  await ctx.files.write({ path, data, mode: KUBECONFIG_FILE_MODE, kind: "kubeconfig" });
  writtenKubeconfigs.remember(ctx.files, data, kubeconfig);
}

/** The kubeconfig files a run reads and writes, parsed (see `ParsedFiles`). */
const parsedKubeconfigs = new ParsedFiles<Kubeconfig>();
/** The kubeconfigs a run wrote, as built (turned into their parsed form when first read). */
const writtenKubeconfigs = new ParsedFiles<Kubeconfig>();

/**
 * Reads and parses a kubeconfig file through the file port (each content parsed once per file
 * system; the caller gets its own copy); `undefined` when missing.
 */
export async function readKubeconfigFile(
  files: FileReader,
  path: string,
): Promise<Kubeconfig | undefined> {
  const data = await files.read(path);
  if (data === undefined) return undefined;
  const parsed = parsedKubeconfigs.of(files, data, (text) => {
    const written = writtenKubeconfigs.get(files, text);
    // As read back: the YAML holds plain strings, booleans and lists, which JSON carries alike.
    return written
      ? kubeconfigOfDocument(JSON.parse(JSON.stringify(written)), path)
      : parseKubeconfig(text, path);
  });
  return structuredClone(parsed);
}

const UNUSABLE_KUBECONFIG_HINT =
  "remove the file to let kubeadm write a new one, or replace it with a valid kubeconfig";

/** What an existing kubeconfig file must carry. */
interface ExpectedCluster {
  /** The API server URL (another one only warns). */
  server: string;
  /** The CA certificate; absent when this run generates `ca` (no existing file can match). */
  caPEM?: string;
}

/**
 * Checks an existing kubeconfig against the expected cluster (upstream `validateKubeConfig`).
 * Returns false when the file does not exist; throws when it exists but does not fit.
 */
async function validateExisting(
  ctx: KubeconfigFileContext,
  path: string,
  expected: ExpectedCluster,
  warn: (line: string) => void,
): Promise<boolean> {
  const raw = await ctx.files.read(path);
  if (raw === undefined) return false;
  let current: Kubeconfig;
  try {
    current = parseKubeconfig(raw, path);
  } catch (e) {
    throw new ExistingFileError(
      `failed to load kubeconfig file ${path} that already exists on disk: ${errorMessage(e)}`,
      { field: path, cause: e, hint: UNUSABLE_KUBECONFIG_HINT },
    );
  }
  let have;
  try {
    have = resolveContext(current, { source: path, wording: "kubeadm" });
  } catch (e) {
    throw new ExistingFileError(errorMessage(e), {
      field: path,
      cause: e,
      hint: UNUSABLE_KUBECONFIG_HINT,
    });
  }
  let caCurrent = have.cluster["certificate-authority-data"]
    ? embeddedText(have.cluster["certificate-authority-data"]).trim()
    : "";
  const caFile = have.cluster["certificate-authority"];
  if (caCurrent === "" && caFile) {
    const bytes = await ctx.files.read(caFile);
    if (bytes === undefined) {
      warn(
        `failed to load CA cert from ${JSON.stringify(caFile)} for kubeconfig ${
          JSON.stringify(path)
        }, open ${caFile}: no such file or directory`,
      );
    } else {
      caCurrent = utf8(bytes).trim();
    }
  }
  if (expected.caPEM === undefined || caCurrent !== expected.caPEM.trim()) {
    const wrongCA = `a kubeconfig file ${
      JSON.stringify(path)
    } exists already but has got the wrong CA cert`;
    const caPath = PkiDirectory.of(ctx).certPath("ca");
    throw new ExistingFileError(
      expected.caPEM === undefined
        ? `${wrongCA}: ${caPath} does not exist, so this run generates a new CA`
        : wrongCA,
      {
        field: path,
        hint: "remove the file to let kubeadm write a new one for the current CA",
      },
    );
  }
  if (have.cluster.server !== expected.server) {
    warn(
      `a kubeconfig file ${
        JSON.stringify(path)
      } exists already but has an unexpected API Server URL: expected: ${expected.server}, got: ${have.cluster.server}`,
    );
  }
  return true;
}
