/**
 * JSON merge patch (RFC 7386): applying one, and computing the one that turns an object into
 * another. For the objects kubeadm patches (Node labels, annotations, taints — taints are an
 * atomic list) a JSON merge patch is also a valid strategic merge patch.
 *
 * @module
 */

type Json = unknown;

function isPlainObject(v: Json): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Applies a JSON merge patch: objects merge recursively, `null` deletes, anything else replaces. */
export function applyMergePatch<T>(target: T, patch: Json): T {
  if (!isPlainObject(patch)) return structuredClone(patch) as T;
  const out: Record<string, Json> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out as T;
}

function deepEqual(a: Json, b: Json): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The JSON merge patch that turns `from` into `to` (an empty object when they are equal).
 * Lists are replaced as a whole; removed keys become `null`.
 */
export function createMergePatch(from: Json, to: Json): Record<string, Json> {
  const patch: Record<string, Json> = {};
  const a = isPlainObject(from) ? from : {};
  const b = isPlainObject(to) ? to : {};
  for (const k of Object.keys(a)) {
    if (!(k in b) || b[k] === undefined) {
      if (a[k] !== undefined) patch[k] = null;
    }
  }
  for (const [k, v] of Object.entries(b)) {
    if (v === undefined) continue;
    if (isPlainObject(v) && isPlainObject(a[k])) {
      const sub = createMergePatch(a[k], v);
      if (Object.keys(sub).length > 0) patch[k] = sub;
    } else if (!deepEqual(a[k], v)) {
      patch[k] = structuredClone(v);
    }
  }
  return patch;
}
