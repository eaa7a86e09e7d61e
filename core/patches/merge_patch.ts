/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`).
 *
 * Objects merge recursively, `null` deletes a key, anything else replaces; nulls inside
 * values added by the patch are pruned. A patch that is not an object replaces the document.
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

/** Applies a JSON merge patch to a document and returns the result (inputs are not changed). */
export function applyMergePatch(doc: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return pruneNulls(patch);
  return mergeObjects(isJsonObject(doc) ? doc : {}, patch);
}
