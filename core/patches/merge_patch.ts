/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`): applying one, and computing the
 * one that turns a document into another.
 *
 * Objects merge recursively, `null` deletes a key, anything else replaces; nulls inside
 * values added by the patch are pruned. A patch that is not an object replaces the document.
 * For the objects kubeadm patches in the cluster (Node labels, annotations, taints — taints
 * are an atomic list) a JSON merge patch is also a valid strategic merge patch.
 *
 * @module
 */
import { isJsonObject, type JsonObject, type JsonValue } from "./json_value.ts";

function pruneNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(pruneNulls);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = pruneNulls(x);
    return out;
  }
  return v;
}

function mergeObjects(doc: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...doc };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = out[k];
    out[k] = isJsonObject(cur) && isJsonObject(v) ? mergeObjects(cur, v) : pruneNulls(v);
  }
  return out;
}

/**
 * Applies a JSON merge patch to a document and returns the result (inputs are not changed).
 * `T` is the caller's view of the result (a Kubernetes object, a JSON value).
 */
export function applyMergePatch<T = JsonValue>(doc: unknown, patch: unknown): T {
  const p = patch as JsonValue;
  if (!isJsonObject(p)) return pruneNulls(structuredClone(p)) as T;
  return mergeObjects(isJsonObject(doc) ? doc : {}, p) as T;
}

/**
 * The JSON merge patch that turns `from` into `to` (an empty object when they are equal).
 * Lists are replaced as a whole; removed keys become `null`.
 */
export function createMergePatch(from: unknown, to: unknown): JsonObject {
  const patch: JsonObject = {};
  const a = isJsonObject(from) ? from : {};
  const b = isJsonObject(to) ? to : {};
  for (const k of Object.keys(a)) {
    if (!(k in b) || b[k] === undefined) {
      if (a[k] !== undefined) patch[k] = null;
    }
  }
  for (const [k, v] of Object.entries(b)) {
    if (v === undefined) continue;
    if (isJsonObject(v) && isJsonObject(a[k])) {
      const sub = createMergePatch(a[k], v);
      if (Object.keys(sub).length > 0) patch[k] = sub;
    } else if (JSON.stringify(a[k]) !== JSON.stringify(v)) {
      patch[k] = structuredClone(v);
    }
  }
  return patch;
}
