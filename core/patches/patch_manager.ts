/**
 * Reading a `--patches` directory and applying its patches to targets (upstream
 * `cmd/kubeadm/app/util/patches`).
 *
 * The directory is walked like Go's `filepath.Walk` (entries in lexical order, sub-directories
 * descended into, files matched by base name). Each patch file may hold several YAML or JSON
 * documents, each one patch. The manager of a directory is built once per file system and
 * reused, so its `[patches] Reading/Found/Ignored` lines print only once per run, like
 * upstream's per-process cache.
 *
 * @module
 */
import { errorMessage, KubeadmError } from "../errors.ts";
import type { FileReader } from "../ports/files.ts";
import { utf8 } from "../text/utf8.ts";
import { parseKubeYaml } from "../yaml/kube_yaml.ts";
import { applyJsonPatch } from "./json_patch.ts";
import { type JsonValue, sortedJson, toJsonValue } from "./json_value.ts";
import { applyMergePatch } from "./merge_patch.ts";
import { goList, parsePatchFileName, PATCH_TARGETS, PatchType } from "./patch_file_name.ts";
import { applyStrategicMergePatch, type SmpSchema } from "./strategic_merge.ts";

/** The patches of one file: all for one target and of one type. */
export interface PatchSet {
  /** Base name of the file. */
  file: string;
  target: string;
  patchType: PatchType;
  /** One JSON value per document of the file. */
  patches: JsonValue[];
}

/** Receives the `[patches] ...` progress lines. */
export type PatchOutput = (line: string) => void;

function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function listDir(files: FileReader, path: string): Promise<string[] | undefined> {
  try {
    return await files.list(path);
  } catch {
    return undefined;
  }
}

function listError(dir: string, cause: string): KubeadmError {
  return new KubeadmError(`could not list patch files for path ${JSON.stringify(dir)}: ${cause}`, {
    field: "patches.directory",
    value: dir,
    hint: "point --patches (or patches.directory) at a directory of patch files",
  });
}

/** Splits a patch file into its documents, each converted to JSON. */
export function parsePatchDocuments(text: string, source: string): JsonValue[] {
  return parseKubeYaml(text, source).map((d) => toJsonValue(d.value));
}

/** Applies patch sets to targets and reports each applied patch. */
export class PatchManager {
  /** Patch sets in walk order. */
  readonly patchSets: readonly PatchSet[];
  /** Targets this manager accepts. */
  readonly knownTargets: readonly string[];
  readonly #out: PatchOutput;

  constructor(
    patchSets: readonly PatchSet[],
    knownTargets: readonly string[] = PATCH_TARGETS,
    out: PatchOutput = () => {},
  ) {
    this.patchSets = patchSets;
    this.knownTargets = knownTargets;
    this.#out = out;
  }

  /** True when some patch set targets `target`. */
  hasPatchesFor(target: string): boolean {
    return this.patchSets.some((s) => s.target === target);
  }

  /**
   * Applies every patch for `target`, in order, to a copy of `data` and returns the result;
   * prints `[patches] Applied patch of type "<type>" to target "<target>"` per patch.
   * `schema` drives strategic merges (e.g. `podSchema`).
   */
  apply(target: string, data: unknown, schema: SmpSchema = {}): JsonValue {
    if (!this.knownTargets.includes(target)) {
      throw new KubeadmError(
        `unknown patch target name ${JSON.stringify(target)}, must be one of ${
          goList(this.knownTargets)
        }`,
      );
    }
    let doc = toJsonValue(data);
    for (const set of this.patchSets) {
      if (set.target !== target) continue;
      for (const patch of set.patches) {
        try {
          switch (set.patchType) {
            case PatchType.json:
              doc = applyJsonPatch(doc, patch);
              break;
            case PatchType.merge:
              doc = applyMergePatch(doc, patch);
              break;
            case PatchType.strategic:
              doc = applyStrategicMergePatch(doc, patch, schema);
              break;
          }
        } catch (e) {
          throw new KubeadmError(
            `could not apply the following patch of type ${
              JSON.stringify(set.patchType)
            } to target ${JSON.stringify(target)}:\n${sortedJson(patch)}\n: ${errorMessage(e)}`,
            { field: "patches.directory", value: set.file, cause: e },
          );
        }
        this.#out(
          `[patches] Applied patch of type ${JSON.stringify(set.patchType)} to target ${
            JSON.stringify(target)
          }`,
        );
      }
    }
    return doc;
  }
}

/**
 * Reads the patch files in `dir` and builds a {@link PatchManager}, printing
 * `[patches] Reading patches from path`, one `Ignoring file` line per skipped file, and the
 * `Found`/`Ignored` summaries.
 */
export async function readPatchManager(
  files: FileReader,
  dir: string,
  out: PatchOutput,
  knownTargets: readonly string[] = PATCH_TARGETS,
): Promise<PatchManager> {
  out(`[patches] Reading patches from path ${JSON.stringify(dir)}`);
  const top = await listDir(files, dir);
  if (top === undefined) {
    const data = await files.read(dir).catch(() => undefined);
    throw listError(
      dir,
      data !== undefined
        ? `getPatchSetsFromPath ${dir}: not a directory`
        : `lstat ${dir}: no such file or directory`,
    );
  }
  const patchSets: PatchSet[] = [];
  const found: string[] = [];
  const ignored: string[] = [];

  const walk = async (path: string, names: string[]): Promise<void> => {
    for (const name of [...names].sort(byteCompare)) {
      const full = joinPath(path, name);
      const children = await listDir(files, full);
      if (children !== undefined) {
        await walk(full, children);
        continue;
      }
      let parsed;
      try {
        parsed = parsePatchFileName(name, knownTargets);
      } catch (e) {
        throw listError(dir, errorMessage(e));
      }
      if ("ignored" in parsed) {
        out(`[patches] Ignoring file ${JSON.stringify(name)}: ${parsed.ignored}`);
        ignored.push(name);
        continue;
      }
      const data = await files.read(full);
      if (data === undefined) {
        throw listError(dir, `could not read the file ${JSON.stringify(full)}`);
      }
      if (data.length === 0) {
        out(`[patches] Ignoring empty file: ${JSON.stringify(name)}`);
        ignored.push(name);
        continue;
      }
      let patches: JsonValue[];
      try {
        patches = parsePatchDocuments(utf8(data), full);
      } catch (e) {
        throw listError(dir, `could not convert patch to JSON: ${errorMessage(e)}`);
      }
      patchSets.push({ file: name, target: parsed.target, patchType: parsed.patchType, patches });
      found.push(name);
    }
  };
  await walk(dir, top);

  if (found.length > 0) out(`[patches] Found the following patch files: ${goList(found)}`);
  if (ignored.length > 0) out(`[patches] Ignored the following files: ${goList(ignored)}`);
  return new PatchManager(patchSets, knownTargets, out);
}

const cache = new WeakMap<FileReader, Map<string, PatchManager>>();

/** The file system an overlay reads through (patches are never written). */
function underlying(files: FileReader): FileReader {
  let f = files;
  while (f.base) f = f.base;
  return f;
}

/**
 * The {@link PatchManager} of `dir` on this file system, read (and announced) on first use and
 * reused after, through recording overlays too (upstream caches managers per path for the
 * whole process).
 */
export async function patchManagerFor(
  files: FileReader,
  dir: string,
  out: PatchOutput,
): Promise<PatchManager> {
  const key = underlying(files);
  let byDir = cache.get(key);
  if (!byDir) {
    byDir = new Map();
    cache.set(key, byDir);
  }
  const cached = byDir.get(dir);
  if (cached) return cached;
  const manager = await readPatchManager(files, dir, out);
  byDir.set(dir, manager);
  return manager;
}
