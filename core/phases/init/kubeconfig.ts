/**
 * The `init` kubeconfig phase: admin.conf, super-admin.conf, kubelet.conf,
 * controller-manager.conf and scheduler.conf, each with a client certificate signed by `ca`.
 *
 * An existing file is reused when its current cluster carries the expected CA (a different
 * server URL only warns); a file with another CA is an {@link ExistingFileError}. With an
 * external CA (ca.crt without ca.key) the files must be provided and are only validated.
 *
 * @module
 */
import { errorMessage, ExistingFileError, KubeadmError, PkiError } from "../../errors.ts";
import { certPath, keyPath } from "../../certs/certlist.ts";
import {
  fileExists,
  loadCert,
  loadCertificateAuthority,
  periodWarning,
} from "../../certs/pki_files.ts";
import { type Certificate, encodeCertificatePEM } from "../../pki/cert.ts";
import { keyPoolFor } from "../../pki/key_pool.ts";
import { utf8 } from "../../host/ports.ts";
import { controlPlaneEndpointURL } from "../../net/endpoint.ts";
import {
  createBasicKubeconfig,
  embeddedText,
  type Kubeconfig,
  parseKubeconfig,
  resolveContext,
  serializeKubeconfig,
} from "../../kubeconfig/kubeconfig.ts";
import {
  buildClientCertKubeconfig,
  clientCertValidity,
  KUBECONFIG_SPECS,
  kubeconfigSpec,
  resolveKubeconfigSpec,
} from "../../kubeconfig/specs.ts";
import { kubeconfigKeyId } from "./certs.ts";
import type { InitData } from "./data.ts";

/** File mode of kubeconfig files. */
export const KUBECONFIG_FILE_MODE = 0o600;

function kubeconfigPath(data: InitData, fileName: string): string {
  return `${data.kubeconfigDir.replace(/\/+$/, "")}/${fileName}`;
}

/** The kubeconfig phase's own step: `[kubeconfig] Using kubeconfig folder "<dir>"`. */
export function runKubeconfigHeader(data: InitData): Promise<void> {
  data.out.info(`[kubeconfig] Using kubeconfig folder ${JSON.stringify(data.kubeconfigDir)}`);
  return Promise.resolve();
}

/** Runs `init phase kubeconfig all`: header, then every file in upstream's order. */
export async function runAllKubeconfigs(data: InitData): Promise<void> {
  await runKubeconfigHeader(data);
  const external = await isExternalCA(data);
  if (!external) {
    const pool = keyPoolFor(data);
    const missing = await Promise.all(
      KUBECONFIG_SPECS.map(async (s) =>
        !(await fileExists(data.files, kubeconfigPath(data, s.fileName))) ? s : undefined
      ),
    );
    pool.prefetchAll(
      missing.filter((s) => s).map((s) => kubeconfigKeyId(s!.fileName)),
      data.cfg.cluster.encryptionAlgorithm,
    );
  }
  for (const spec of KUBECONFIG_SPECS) await runKubeconfig(data, spec.name);
}

async function isExternalCA(data: InitData): Promise<boolean> {
  const dir = data.cfg.cluster.certificatesDir;
  return await fileExists(data.files, certPath(dir, "ca")) &&
    !(await fileExists(data.files, keyPath(dir, "ca")));
}

/** Runs one `init phase kubeconfig <name>` sub-phase (`admin`, `super-admin`, `kubelet`, ...). */
export async function runKubeconfig(data: InitData, name: string): Promise<void> {
  const spec = kubeconfigSpec(name);
  const dir = data.cfg.cluster.certificatesDir;
  const path = kubeconfigPath(data, spec.fileName);
  // Upstream resolves every file's endpoint on each call, so the controlPlaneEndpoint port
  // warning appears once per kubeconfig file, whichever endpoint that file uses.
  controlPlaneEndpointURL(
    data.cfg.cluster.controlPlaneEndpoint,
    data.cfg.init.localAPIEndpoint,
    (l) => data.out.warn(l),
  );
  const resolved = resolveKubeconfigSpec(spec, data.cfg);

  if (await isExternalCA(data)) {
    let caCert: Certificate;
    try {
      caCert = await loadCert(data.files, dir, "ca");
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
      if (!(await validateExisting(data, path, expected))) {
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
    data.out.info(`[kubeconfig] External CA mode: Using user provided ${spec.fileName}`);
    return;
  }

  let ca;
  try {
    ca = await loadCertificateAuthority(data.files, dir, "ca");
  } catch (e) {
    const missing = !(await fileExists(data.files, certPath(dir, "ca")));
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
      },
    );
  }
  const period = periodWarning("ca", ca.cert, data.clock.now());
  if (period) data.out.warn(period);

  const caPEM = encodeCertificatePEM(ca.cert);
  const expected = createBasicKubeconfig(
    resolved.serverURL,
    data.cfg.cluster.clusterName,
    resolved.clientName,
    caPEM,
  );
  if (await validateExisting(data, path, expected)) {
    data.out.info(`[kubeconfig] Using existing kubeconfig file: ${JSON.stringify(path)}`);
    return;
  }
  const key = await keyPoolFor(data).take(
    kubeconfigKeyId(spec.fileName),
    data.cfg.cluster.encryptionAlgorithm,
  );
  const { kubeconfig } = await buildClientCertKubeconfig(
    resolved,
    data.cfg.cluster.clusterName,
    ca,
    key,
    data.random,
    clientCertValidity(data.cfg, data.startTime),
  );
  data.out.info(`[kubeconfig] Writing ${JSON.stringify(spec.fileName)} kubeconfig file`);
  await data.files.write({
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
  data: InitData,
  path: string,
  expected: Kubeconfig,
): Promise<boolean> {
  const raw = await data.files.read(path);
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
    const bytes = await data.files.read(caFile);
    if (bytes === undefined) {
      data.out.warn(
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
    data.out.warn(
      `a kubeconfig file ${
        JSON.stringify(path)
      } exists already but has an unexpected API Server URL: expected: ${want.cluster.server}, got: ${have.cluster.server}`,
    );
  }
  return true;
}
