/**
 * `kubeadm certs generate-csr` as data (upstream `CreateDefaultKeysAndCSRFiles` and
 * `CreateDefaultKubeConfigsAndCSRFiles`): for an external CA, a new key and a CSR for every
 * leaf certificate of the inventory, and for every kubeconfig file a partial kubeconfig (server,
 * user, client key; no CA, no certificate) with its CSR next to it.
 *
 * Each CSR asks for what kubeadm would put in the certificate: CN and O, and the SANs the
 * configuration gives (apiserver, etcd server and peer). Nothing is overwritten: an existing
 * key, CSR or kubeconfig is an error (`file already exists: ...`), found before any file is
 * planned. Keys, CSRs and kubeconfigs are written 0600.
 *
 * @module
 */
import type { ResolvedConfig } from "../config/types.ts";
import { KubeadmError } from "../errors.ts";
import type { FileReader, PlannedFile } from "../ports/files.ts";
import { createCSR, encodeCSRPEM } from "../pki/csr.ts";
import { encodePrivateKeyPEM, type KeyOptions } from "../pki/keys.ts";
import { KeyPool } from "../pki/key_pool.ts";
import { createKubeconfigWithCerts, serializeKubeconfig } from "../kubeconfig/kubeconfig.ts";
import { KUBECONFIG_FILE_MODE, kubeconfigPath } from "../kubeconfig/files.ts";
import { KUBECONFIG_SPECS, resolveKubeconfigSpec } from "../kubeconfig/specs.ts";
import { controlPlaneEndpointURL } from "../net/endpoint.ts";
import { certConfigFor, KUBEADM_CERTS } from "./certlist.ts";
import { KEY_FILE_MODE, PkiDirectory } from "./pki_dir.ts";
import { certKeyId, kubeconfigKeyId } from "./tree.ts";

/** Upstream's error prefix for a file that would be overwritten. */
const ERR_EXIST = "file already exists";

/** One certificate or kubeconfig of the plan and its files (key/kubeconfig first, then CSR). */
export interface CSREntry {
  /** The certificate's base name (`etcd/server`) or the kubeconfig file name (`admin.conf`). */
  name: string;
  files: PlannedFile[];
}

/** The keys and CSRs for one directory, as upstream reports them. */
export interface CSRGroup {
  /** `certificatesDir` or the kubeconfig dir. */
  dir: string;
  entries: CSREntry[];
}

/** Input of {@link planKeysAndCSRs}; the keys are made with its crypto port and random source. */
export interface CSRPlanInput extends KeyOptions {
  cfg: ResolvedConfig;
  files: FileReader;
  /** Where the kubeconfig files go (`--kubeconfig-dir`). */
  kubeconfigDir: string;
  /** Start of the run (the certificate configs the CSRs are made from are computed for it). */
  startTime: Date;
  /** Receives upstream's SAN and endpoint warnings. */
  warn?: (line: string) => void;
}

/**
 * Plans `generate-csr`: the certificates' group then the kubeconfigs' group, each entry with
 * its files. Throws `file already exists: ...` naming the first file in the way.
 */
export async function planKeysAndCSRs(input: CSRPlanInput): Promise<CSRGroup[]> {
  const { cfg, files } = input;
  const pki = PkiDirectory.of(input);
  const exists = async (path: string) => (await files.read(path)) !== undefined;
  const kubeconfigDir = input.kubeconfigDir.replace(/\/+$/, "");
  const leaves = KUBEADM_CERTS.filter((s) => s.caName);
  for (const spec of leaves) {
    if (await pki.has(`${spec.baseName}.csr`) || await pki.hasKey(spec.baseName)) {
      throw new KubeadmError(
        `${ERR_EXIST}: key or CSR ${cfg.cluster.certificatesDir}/${spec.baseName}`,
        {
          field: pki.keyPath(spec.baseName),
          hint: "generate-csr never overwrites keys or CSRs: move the existing files away first",
        },
      );
    }
  }
  for (const spec of KUBECONFIG_SPECS) {
    const path = kubeconfigPath(kubeconfigDir, spec.fileName);
    if (await exists(path)) {
      throw new KubeadmError(`${ERR_EXIST}: kube config: ${path}`, {
        field: path,
        hint: "generate-csr never overwrites kubeconfig files: move the existing file away first",
      });
    }
    if (await exists(`${path}.csr`) || await exists(`${path}.key`)) {
      throw new KubeadmError(`${ERR_EXIST}: csr: ${path}`, {
        field: `${path}.csr`,
        hint: "generate-csr never overwrites CSRs: move the existing files away first",
      });
    }
  }
  const warn = input.warn ?? (() => {});
  const alg = cfg.cluster.encryptionAlgorithm;
  const pool = new KeyPool(input);
  pool.prefetchAll(
    [
      ...leaves.map((s) => certKeyId(s.name)),
      ...KUBECONFIG_SPECS.map((k) => kubeconfigKeyId(k.fileName)),
    ],
    alg,
  );
  const certEntries: CSREntry[] = [];
  for (const spec of leaves) {
    const config = certConfigFor(spec, cfg, input.startTime, warn);
    const key = await pool.take(certKeyId(spec.name), alg);
    const csr = await createCSR(config, key);
    certEntries.push({
      name: spec.baseName,
      files: [
        await pki.keyFile(spec.baseName, key),
        {
          path: pki.csrPath(spec.baseName),
          data: encodeCSRPEM(csr),
          mode: KEY_FILE_MODE,
          kind: "csr",
        },
      ],
    });
  }
  // Upstream resolves the control-plane endpoint once for all kubeconfig specs.
  controlPlaneEndpointURL(cfg.cluster.controlPlaneEndpoint, cfg.init.localAPIEndpoint, warn);
  const kubeconfigEntries: CSREntry[] = [];
  for (const spec of KUBECONFIG_SPECS) {
    const resolved = resolveKubeconfigSpec(spec, cfg, undefined, { base: true });
    const key = await pool.take(kubeconfigKeyId(spec.fileName), alg);
    const csr = await createCSR(
      { commonName: resolved.clientName, organization: resolved.organizations },
      key,
    );
    const kubeconfig = createKubeconfigWithCerts(
      resolved.serverURL,
      cfg.cluster.clusterName,
      resolved.clientName,
      "",
      await encodePrivateKeyPEM(key),
      "",
    );
    const path = kubeconfigPath(kubeconfigDir, spec.fileName);
    kubeconfigEntries.push({
      name: spec.fileName,
      files: [
        {
          path,
          data: serializeKubeconfig(kubeconfig, { nullEmptyLists: true }),
          mode: KUBECONFIG_FILE_MODE,
          kind: "kubeconfig",
        },
        { path: `${path}.csr`, data: encodeCSRPEM(csr), mode: KEY_FILE_MODE, kind: "csr" },
      ],
    });
  }
  return [
    { dir: cfg.cluster.certificatesDir, entries: certEntries },
    { dir: input.kubeconfigDir, entries: kubeconfigEntries },
  ];
}

/** Upstream's progress line before a group's entries. */
export function csrGroupHeader(group: CSRGroup): string {
  return `generating keys and CSRs in ${group.dir}`;
}
