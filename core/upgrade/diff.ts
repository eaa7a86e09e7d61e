/**
 * `kubeadm upgrade diff` as data (upstream `cmd/upgrade/diff.go`): the kube-apiserver,
 * kube-controller-manager and kube-scheduler manifests this node would get at the target
 * version (built as `init` builds them, without patches or proxy variables), each diffed
 * against the manifest file on disk, as unified diffs with `context` lines.
 *
 * @module
 */
import { PkiDirectory } from "../certs/pki_dir.ts";
import type { ResolvedConfig } from "../config/types.ts";
import { KubeadmError } from "../errors.ts";
import type { FileReader } from "../ports/files.ts";
import type { CryptoPort } from "../ports/crypto.ts";
import { utf8 } from "../text/utf8.ts";
import {
  buildStaticPod,
  CONTROL_PLANE_COMPONENTS,
  staticPodManifestPath,
  staticPodManifestYaml,
} from "../manifests/manifest_file.ts";
import { manifestInputFromInit } from "../manifests/manifest_input.ts";
import { splitLines, unifiedDiff } from "../text/unified_diff.ts";

/** Input of {@link manifestDiffs}. */
export interface ManifestDiffInput {
  /** The node's configuration with the target `kubernetesVersion`. */
  cfg: ResolvedConfig;
  files: FileReader;
  /** The run's crypto port (the certificates directory's keys). */
  crypto: CryptoPort;
  manifestDir: string;
  existingDirs: ReadonlySet<string>;
  /** Lines of context. */
  context: number;
}

/** The three diffs, concatenated (empty when nothing changes). */
export async function manifestDiffs(input: ManifestDiffInput): Promise<string> {
  const manifestInput = manifestInputFromInit(input.cfg, {
    existingDirs: input.existingDirs,
    proxyEnv: {},
    externalCA: await PkiDirectory.of(input).isKeyless("ca"),
  });
  let out = "";
  for (const component of CONTROL_PLANE_COMPONENTS) {
    const path = staticPodManifestPath(input.manifestDir, component);
    const existing = await input.files.read(path);
    if (existing === undefined) {
      throw new KubeadmError(
        `the manifest file ${
          JSON.stringify(path)
        } does not exist: stat ${path}: no such file or directory`,
      );
    }
    const next = staticPodManifestYaml(buildStaticPod(component, manifestInput));
    out += unifiedDiff(splitLines(utf8(existing)), splitLines(next), {
      fromFile: path,
      toFile: "new manifest",
      context: input.context,
    });
  }
  return out;
}
