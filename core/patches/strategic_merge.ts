/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), the apply side of
 * `k8s.io/apimachinery/pkg/util/strategicpatch` for the types kubeadm patches.
 *
 * Maps merge recursively and `null` deletes a key. Lists replace, except lists the schema
 * marks as `merge`: lists of objects merge item by item on their merge key (`name` for
 * containers, env and volumes, `mountPath` for volume mounts, `containerPort` for ports),
 * lists of scalars merge as a set. Directives: `$patch: replace | delete` on a map,
 * `{$patch: delete, <key>: v}` and `{$patch: replace}` items in a merge list,
 * `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` and `$retainKeys`. Resulting
 * merge lists keep upstream's order: patch items in patch order, interleaved with the items
 * only the original has, new items first.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import {
  isJsonObject,
  jsonKind,
  type JsonObject,
  type JsonValue,
  sortedJson,
} from "./json_value.ts";

/** Patch metadata of one field (upstream's `patchStrategy` / `patchMergeKey` struct tags). */
export interface SmpField {
  /** `merge` for merge lists; `replace` replaces a map wholesale. Default: lists replace. */
  strategy?: "merge" | "replace";
  /** Merge key of a list of objects. */
  mergeKey?: string;
  /** Schema of the field's value (map) or of its items (list). */
  schema?: SmpSchema;
}

/** The patch metadata of an object type: its fields. Unknown fields merge maps, replace lists. */
export interface SmpSchema {
  fields?: Readonly<Record<string, SmpField>>;
}

/** A strategic merge patch could not be applied. */
class StrategicMergeError extends KubeadmError {}

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList/";
const SET_ELEMENT_ORDER = "$setElementOrder/";

type Kind = ReturnType<typeof jsonKind>;

function goValue(v: JsonValue): string {
  return isJsonObject(v) || Array.isArray(v) ? sortedJson(v) : String(v);
}

function noMergeKey(m: JsonValue, key: string): StrategicMergeError {
  return new StrategicMergeError(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
}

function fieldOf(schema: SmpSchema | undefined, key: string): SmpField {
  return schema?.fields?.[key] ?? {};
}

/**
 * Applies a strategic merge patch to `original` with the given schema and returns the result.
 * Both must be JSON objects. The inputs are not modified.
 */
export function applyStrategicMergePatch(
  original: JsonValue,
  patch: JsonValue,
  schema: SmpSchema,
): JsonObject {
  if (!isJsonObject(original)) throw new StrategicMergeError("invalid JSON document");
  if (!isJsonObject(patch)) throw new StrategicMergeError("invalid JSON document");
  return mergeMap(structuredClone(original), structuredClone(patch), schema);
}

function mergeMap(
  original: JsonObject | null,
  patch: JsonObject,
  schema: SmpSchema | undefined,
): JsonObject {
  if (Object.hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === "replace") {
      delete patch[DIRECTIVE];
      return patch;
    }
    if (directive === "delete") return {};
    throw new StrategicMergeError(
      `unknown patch type: ${goValue(directive)} in map: ${goValue(patch)}`,
    );
  }
  const out: JsonObject = original ?? {};
  applyRetainKeys(out, patch);
  mergeSetElementOrder(out, patch, schema);

  for (let [key, patchV] of Object.entries(patch)) {
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete out[key];
      continue;
    }
    if (!Object.hasOwn(out, key)) {
      out[key] = patchV;
      continue;
    }
    const origV = out[key];
    const kind = jsonKind(origV);
    if (kind !== jsonKind(patchV)) {
      out[key] = patchV;
      continue;
    }
    const field = fieldOf(schema, key);
    if (kind === "object") {
      out[key] = field.strategy === "replace"
        ? patchV
        : mergeMap(origV as JsonObject, patchV as JsonObject, field.schema);
    } else if (kind === "array") {
      out[key] = field.strategy === "merge"
        ? mergeSlice(origV as JsonValue[], patchV as JsonValue[], field, isDeleteList)
        : patchV;
    } else {
      out[key] = patchV;
    }
  }
  return out;
}

function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw new StrategicMergeError("invalid patch format of retainKeys");
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) {
      continue;
    }
    if (!keep.has(k)) throw new StrategicMergeError("invalid patch format of retainKeys");
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function elementKind(...lists: JsonValue[][]): Kind {
  let kind: Kind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = jsonKind(v);
      if (kind === undefined) {
        if (k === "array") throw new StrategicMergeError("lists of lists are not supported");
        kind = k;
      } else if (k !== kind) {
        throw new StrategicMergeError(
          `list element types are not identical: ${lists.map((l) => goValue(l)).join(" ")}`,
        );
      }
    }
  }
  if (kind === undefined) throw new StrategicMergeError("no elements in any of the given slices");
  return kind;
}

function keyOf(item: JsonValue, mergeKey: string, kind: Kind): JsonValue | undefined {
  if (kind !== "object") return item;
  return isJsonObject(item) ? item[mergeKey] : undefined;
}

function indexOf(
  list: readonly JsonValue[],
  item: JsonValue,
  mergeKey: string,
  kind: Kind,
): number {
  const want = keyOf(item, mergeKey, kind);
  return list.findIndex((v) => keyOf(v, mergeKey, kind) === want);
}

function findByKey(list: readonly JsonValue[], mergeKey: string, value: JsonValue): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isJsonObject(v)) throw new StrategicMergeError(`value for key ${i} is not a map.`);
    if (Object.hasOwn(v, mergeKey) && v[mergeKey] === value) return i;
  }
  return -1;
}

function mergeSlice(
  original: JsonValue[],
  patch: JsonValue[],
  field: SmpField,
  isDeleteList: boolean,
): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  const mergeKey = kind === "object" ? field.mergeKey ?? "" : "";
  let merged: JsonValue[];
  if (kind !== "object") {
    if (isDeleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    merged = [...new Set([...original, ...patch])];
  } else {
    if (mergeKey === "") throw new StrategicMergeError("cannot merge lists without merge key");
    [original, patch] = withoutSpecialElements(original, patch, mergeKey);
    merged = [...original];
    for (const item of patch) {
      const obj = item as JsonObject;
      if (!Object.hasOwn(obj, mergeKey)) throw noMergeKey(obj, mergeKey);
      const i = findByKey(merged, mergeKey, obj[mergeKey]);
      if (i >= 0) merged[i] = mergeMap(merged[i] as JsonObject, obj, field.schema);
      else merged.push(item);
    }
  }
  const [patchItems, serverOnly] = partition(merged, patch, mergeKey, kind);
  return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind);
}

/** Applies `$patch: delete` / `$patch: replace` items; returns the new original and patch. */
function withoutSpecialElements(
  original: JsonValue[],
  patch: JsonValue[],
  mergeKey: string,
): [JsonValue[], JsonValue[]] {
  const plain: JsonValue[] = [];
  let replace = false;
  for (const item of patch) {
    const obj = item as JsonObject;
    if (!Object.hasOwn(obj, DIRECTIVE)) {
      plain.push(item);
      continue;
    }
    switch (obj[DIRECTIVE]) {
      case "delete": {
        if (!Object.hasOwn(obj, mergeKey)) throw noMergeKey(obj, mergeKey);
        const value = obj[mergeKey];
        original = original.filter((v) =>
          !(isJsonObject(v) && Object.hasOwn(v, mergeKey) && v[mergeKey] === value)
        );
        break;
      }
      case "replace":
        replace = true;
        break;
      case "merge":
        throw new StrategicMergeError("merging lists cannot yet be specified in the patch");
      default:
        throw new StrategicMergeError(
          `unknown patch type: ${goValue(obj[DIRECTIVE])} in map: ${goValue(obj)}`,
        );
    }
  }
  return replace ? [plain, []] : [original, plain];
}

function partition(
  merged: JsonValue[],
  by: readonly JsonValue[],
  mergeKey: string,
  kind: Kind,
): [JsonValue[], JsonValue[]] {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of merged) {
    if (kind === "object") {
      if (!isJsonObject(v) || !Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
      (findByKey(by, mergeKey, v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
    } else {
      (by.includes(v) ? inPatch : serverOnly).push(v);
    }
  }
  return [inPatch, serverOnly];
}

function normalizeSliceOrder(
  toSort: JsonValue[],
  order: readonly JsonValue[],
  mergeKey: string,
  kind: Kind,
): JsonValue[] {
  let deletes: JsonValue[] = [];
  if (kind === "object") {
    for (const v of [...toSort, ...order]) {
      if (!isJsonObject(v) || !Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    }
    deletes = toSort.filter((v) => (v as JsonObject)[DIRECTIVE] === "delete");
    toSort = toSort.filter((v) => (v as JsonObject)[DIRECTIVE] !== "delete");
  }
  const rank = (v: JsonValue) => {
    const i = indexOf(order, v, mergeKey, kind);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return [...toSort].sort((a, b) => rank(a) - rank(b)).concat(deletes);
}

/**
 * Orders patch items by `patchOrder` and server-only items by `serverOrder`, then interleaves
 * them: a server-only item goes first only when both are in `serverOrder` and it comes
 * earlier there (upstream `normalizeElementOrder` + `mergeSortedSlice`).
 */
function normalizeElementOrder(
  patchItems: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
  kind: Kind,
): JsonValue[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function validateSetOrder(
  patchList: readonly JsonValue[],
  setOrder: readonly JsonValue[],
  mergeKey: string,
): void {
  if (setOrder.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey === ""
    ? patchList
    : patchList.filter((v) => !(isJsonObject(v) && v[DIRECTIVE] === "delete"));
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < setOrder.length) {
    const item = nonDelete[p];
    if (isJsonObject(item) && Object.hasOwn(item, DIRECTIVE)) {
      p++;
      continue;
    }
    let equal: boolean;
    if (mergeKey === "") equal = item === setOrder[s];
    else {
      const a = item;
      const b = setOrder[s];
      if (!isJsonObject(a) || !Object.hasOwn(a, mergeKey)) throw noMergeKey(a, mergeKey);
      if (!isJsonObject(b) || !Object.hasOwn(b, mergeKey)) throw noMergeKey(b, mergeKey);
      equal = a[mergeKey] === b[mergeKey];
    }
    if (equal) p++;
    s++;
  }
  if (p < nonDelete.length && s >= setOrder.length) {
    throw new StrategicMergeError(
      `The order in patch list:\n${
        goValue([...patchList])
      }\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue([...setOrder])}\n`,
    );
  }
}

/** Processes `$setElementOrder/<field>` directives (upstream `mergePatchIntoOriginal`). */
function mergeSetElementOrder(
  original: JsonObject,
  patch: JsonObject,
  schema: SmpSchema | undefined,
): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const setOrder = patch[key];
    delete patch[key];
    if (!Array.isArray(setOrder)) {
      throw new StrategicMergeError(`invalid patch format of ${SET_ELEMENT_ORDER} list`);
    }
    const field = key.slice(SET_ELEMENT_ORDER.length);
    const foundOriginal = Object.hasOwn(original, field);
    const foundPatch = Object.hasOwn(patch, field);
    const origList = original[field];
    const patchList = patch[field];
    if (foundOriginal && !Array.isArray(origList)) {
      throw new StrategicMergeError(`expected a list for ${field}, got ${goValue(origList)}`);
    }
    if (foundPatch && !Array.isArray(patchList)) {
      throw new StrategicMergeError(`expected a list for ${field}, got ${goValue(patchList)}`);
    }
    const meta = fieldOf(schema, field);
    const origArr = (origList ?? []) as JsonValue[];
    const patchArr = (patchList ?? []) as JsonValue[];
    const mergeKeyForValidation = meta.mergeKey ?? "";
    validateSetOrder(patchArr, setOrder, mergeKeyForValidation);
    let merged: JsonValue[];
    if (foundOriginal && !foundPatch) merged = origArr;
    else if (!foundOriginal && foundPatch) merged = patchArr;
    else if (foundOriginal && foundPatch) {
      merged = meta.strategy === "merge" ? mergeSlice(origArr, patchArr, meta, false) : patchArr;
    } else return;
    const kind = elementKind(origArr, patchArr);
    const mergeKey = kind === "object" ? meta.mergeKey ?? "" : "";
    const [inOrder, serverOnly] = partition(merged, setOrder, mergeKey, kind);
    original[field] = normalizeElementOrder(inOrder, serverOnly, setOrder, origArr, mergeKey, kind);
    delete patch[field];
  }
}
