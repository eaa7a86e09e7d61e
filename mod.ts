/**
 * kubeadm-ts as a library: the runtime-agnostic core.
 *
 * Everything exported here uses web APIs only (WebCrypto, TextEncoder, Request/Response), so it
 * runs unchanged in Deno, Node, browsers and edge functions. Files, time, randomness and the
 * network come in as ports ({@link FileSystem}, {@link Clock}, {@link RandomSource}, a
 * `Transport`); the core returns data — configuration objects, PEM strings, planned file
 * writes, Kubernetes objects — and the caller applies it.
 *
 * @example Plan an init's offline files without touching any disk
 * ```ts
 * import { RecordingFileSystem, resolveInitConfig, runWorkflow, initWorkflow, webRandom, systemClock } from "./mod.ts";
 * const { config } = resolveInitConfig({ host: { hostname: "cp1", defaultAdvertiseAddress: "192.0.2.10" }, random: webRandom });
 * const files = new RecordingFileSystem();
 * // …build InitData with `files`, then:
 * // await runWorkflow(initWorkflow(), data, { only: "certs/all" });
 * // files.planned → every certificate, key, kubeconfig and manifest with its path and mode
 * ```
 *
 * @module
 */

// Errors and ports
export * from "./core/errors.ts";
export * from "./core/constants.ts";
export * from "./core/versions.ts";
export * from "./core/host/ports.ts";
export { RecordingFileSystem } from "./core/host/recording_fs.ts";

// YAML as Kubernetes writes it
export {
  parseKubeYaml,
  parseKubeYamlOne,
  toKubeYaml,
  toKubeYamlDocuments,
} from "./core/yaml/kube_yaml.ts";

// Configuration API (v1beta4)
export type * from "./core/config/types.ts";
export { resolveInitConfig } from "./core/config/resolve.ts";
export { clusterConfigurationForUpload, printInitDefaults } from "./core/config/print.ts";
export { migrateConfig } from "./core/config/migrate.ts";
export { formatDuration, parseDuration } from "./core/text/duration.ts";

// PKI
export {
  createSelfSignedCACert,
  createSignedCert,
  encodeCertificatePEM,
  parseCertificate,
  parseCertificatesPEM,
  verifyCertChain,
} from "./core/pki/cert.ts";
export { createCSR, encodeCSRPEM, parseCSR } from "./core/pki/csr.ts";
export {
  encodePrivateKeyPEM,
  encodePublicKeyPEM,
  generateKeyPair,
  parsePrivateKeyPEM,
} from "./core/pki/keys.ts";
export { certificatePin, PinSet } from "./core/pki/pin.ts";
export { certListFor, KUBEADM_CERTS } from "./core/certs/certlist.ts";

// Kubeconfig files, static Pods, kubelet files
export { parseKubeconfig, serializeKubeconfig } from "./core/kubeconfig/kubeconfig.ts";
export { buildStaticPod, staticPodManifestYaml } from "./core/manifests/manifest_file.ts";
export { manifestInputFromInit } from "./core/manifests/manifest_input.ts";

// Bootstrap tokens and discovery
export { generateToken, isValidToken, parseToken } from "./core/bootstraptoken/token.ts";
export * from "./core/discovery/mod.ts";

// Workflows
export type { Phase, Workflow } from "./core/workflow/phase.ts";
export { listPhases, runWorkflow } from "./core/workflow/runner.ts";
export { initWorkflow } from "./core/phases/init/workflow.ts";
export type { HostFacts, InitData } from "./core/phases/init/data.ts";

// Kubernetes API client over an injected transport
export { KubeClient } from "./core/kube/client.ts";
export type { KubeClientOptions, KubeObject, ObjectRef } from "./core/kube/client.ts";
export type { ConnectionParams, Transport } from "./core/kube/transport.ts";
export { createDryRunTransport } from "./core/kube/dry_run.ts";
export { connectionFromKubeconfig } from "./core/kube/kubeconfig_connection.ts";
