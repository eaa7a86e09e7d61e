/**
 * How a user's component config (KubeletConfiguration, KubeProxyConfiguration) is laid over
 * the object upstream serializes, and how kubeadm's recommendations are reported.
 *
 * Upstream decodes the user's document into the Go struct and marshals it back: fields the
 * struct always prints appear with their zero values (`0s`, `""`, `null`, `{}`) and durations
 * come back in canonical form (`1m` → `1m0s`). {@link overlay} reproduces that on plain
 * objects; {@link recommendationWarning} is upstream's `warnDefaultComponentConfigValue`.
 *
 * @module
 */
import { isDuration, normalizeDuration } from "../text/duration.ts";

/** A JSON-like object. */
export type JsonObject = Record<string, unknown>;

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Deep copy of JSON-like data. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * Deep-merges `user` over `base` (objects merge key by key; everything else replaces).
 * Neither input is modified.
 */
export function overlay(base: JsonObject, user: JsonObject): JsonObject {
  const out: JsonObject = clone(base);
  for (const [k, v] of Object.entries(user)) {
    if (v === undefined) continue;
    const cur = out[k];
    // Go reads `null` for a struct as its zero value: keep the zero-valued skeleton.
    if (v === null && isPlainObject(cur)) continue;
    out[k] = isPlainObject(cur) && isPlainObject(v) ? overlay(cur, v) : clone(v);
  }
  return out;
}

/** Reads a dotted path (`authentication.x509.clientCAFile`). */
export function getPath(obj: JsonObject, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** Writes a dotted path, creating intermediate objects. */
export function setPath(obj: JsonObject, path: string, value: unknown): void {
  const parts = path.split(".");
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(cur[part])) cur[part] = {};
    cur = cur[part] as JsonObject;
  }
  cur[parts[parts.length - 1]] = value;
}

/** Re-renders the duration fields at `paths` in Go's canonical form where they are valid. */
export function normalizeDurations(obj: JsonObject, paths: readonly string[]): void {
  for (const path of paths) {
    const v = getPath(obj, path);
    if (typeof v === "string" && isDuration(v)) setPath(obj, path, normalizeDuration(v));
  }
}

/** Formats a value the way Go's `%v` does for the types used in warnings. */
function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(" ")}]`;
  if (v === null || v === undefined) return "<nil>";
  return String(v);
}

/** Upstream's warning when a user value differs from kubeadm's recommendation. */
export function recommendationWarning(
  kind: string,
  field: string,
  recommended: unknown,
  provided: unknown,
): string {
  return `The recommended value for ${JSON.stringify(field)} in ${JSON.stringify(kind)} is: ${
    goValue(recommended)
  }; the provided value is: ${goValue(provided)}`;
}
