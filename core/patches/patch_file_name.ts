/**
 * The `--patches` file-name grammar: `target[suffix][+patchtype].extension`.
 *
 * `target` is a known patch target, `suffix` any text without `.`, `+` or newline (it only
 * orders files), `patchtype` one of `strategic` (the default), `merge` or `json`, and the
 * extension `json` or `yaml`. A wrong extension or unknown target makes kubeadm ignore the
 * file; a `+` without a known patch type is an error.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";

/** Patch targets kubeadm v1.37 knows, in upstream's order. */
export const PATCH_TARGETS = [
  "etcd",
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubeletconfiguration",
  "corednsdeployment",
  "kubeproxydaemonset",
] as const;

/** Media type of each patch flavour, as kubeadm prints it. */
export const PatchType = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
} as const;

/** A patch media type. */
export type PatchType = (typeof PatchType)[keyof typeof PatchType];

/** Patch type names accepted after `+`, in upstream's order. */
const PATCH_TYPE_NAMES: readonly (keyof typeof PatchType)[] = ["json", "merge", "strategic"];
/** File extensions of patch files. */
const PATCH_EXTENSIONS: readonly string[] = ["json", "yaml"];

/** A file that holds patches. */
export interface PatchFileName {
  target: string;
  patchType: PatchType;
}

/** A file kubeadm skips, with the reason it prints. */
export interface IgnoredFileName {
  ignored: string;
}

/** Go's `%v` of a string slice: `[a b c]`. */
export function goList(items: readonly string[]): string {
  return `[${items.join(" ")}]`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Parses a patch file's base name. Returns the target and patch type, or the reason the file
 * is ignored; throws a {@link KubeadmError} for `+` without a known patch type.
 */
export function parsePatchFileName(
  fileName: string,
  knownTargets: readonly string[] = PATCH_TARGETS,
): PatchFileName | IgnoredFileName {
  if (!new RegExp(`.+\\.(${PATCH_EXTENSIONS.join("|")})$`).test(fileName)) {
    return { ignored: `the file extension must be one of ${goList(PATCH_EXTENSIONS)}` };
  }
  const re = new RegExp(
    `^(${knownTargets.map(escapeRegExp).join("|")})([^.+\\n]*)?(\\+)?(${
      PATCH_TYPE_NAMES.join("|")
    })?`,
  );
  const m = re.exec(fileName);
  if (!m) return { ignored: `unknown target, must be one of ${goList(knownTargets)}` };
  if (m[3] && !m[4]) {
    throw new KubeadmError(
      `unknown or missing patch type after '+', must be one of ${goList(PATCH_TYPE_NAMES)}`,
      {
        field: "patches.directory",
        value: fileName,
        hint: `name patch files target[suffix][+${PATCH_TYPE_NAMES.join("|")}].(json|yaml)`,
      },
    );
  }
  const typeName = (m[4] ?? "strategic") as keyof typeof PatchType;
  return { target: m[1], patchType: PatchType[typeName] };
}
