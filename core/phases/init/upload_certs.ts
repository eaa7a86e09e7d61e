/**
 * `kubeadm init phase upload-certs`: with `--upload-certs`, encrypts the shared control-plane
 * certificates and keys with the certificate key into `kube-system/kubeadm-certs` and prints
 * the key (unless `--skip-certificate-key-print`); without it, upstream's skip message.
 *
 * @module
 */
import { generateCertificateKey } from "../../cluster/cert_cipher.ts";
import { uploadCerts } from "../../cluster/upload_certs.ts";
import { clusterClient } from "./cluster_access.ts";
import type { InitData } from "./data.ts";
import type { Phase } from "../../workflow/phase.ts";

/** Runs the phase. */
export async function runUploadCerts(data: InitData): Promise<void> {
  if (!data.cfg.uploadCerts) {
    data.out.info("[upload-certs] Skipping phase. Please see --upload-certs");
    return;
  }
  const client = await clusterClient(data.cluster);
  // The configuration resolver generates the key with --upload-certs; keep upstream's
  // fallback for callers that build the configuration themselves.
  data.cfg.init.certificateKey ||= generateCertificateKey(data.random);
  await uploadCerts(client, {
    files: data.files,
    certificatesDir: data.cfg.cluster.certificatesDir,
    externalEtcd: data.cfg.cluster.etcd.external,
    certificateKey: data.cfg.init.certificateKey,
    random: data.random,
    crypto: data.crypto,
    now: data.clock.now(),
    skipCertificateKeyPrint: data.skipCertificateKeyPrint,
  }, data.out);
}

/** `init phase upload-certs`. */
export const uploadCertsPhase: Phase<InitData> = {
  name: "upload-certs",
  short: "Upload certificates to kubeadm-certs",
  run: runUploadCerts,
  inputs: [
    "config",
    "dryRun",
    "kubeconfig",
    "certificateKey",
    "skipCertificateKeyPrint",
    "uploadCerts",
  ],
};
