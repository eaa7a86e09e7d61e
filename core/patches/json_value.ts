/**
 * Plain JSON values, as patches see their documents.
 *
 * @module
 */

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** True for a non-null, non-array object. */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A deep copy through JSON (drops `undefined`, turns Dates into strings). */
export function toJsonValue(v: unknown): JsonValue {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}

/** Deep equality of two JSON values (object key order ignored). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** JSON text with object keys sorted, as Go's `encoding/json` writes maps. */
export function sortedJson(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(",")}]`;
  if (isJsonObject(v)) {
    return `{${
      Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`).join(",")
    }}`;
  }
  return JSON.stringify(v);
}

/** The kind of a JSON value, like Go's `reflect.Kind` of a decoded value. */
export function jsonKind(
  v: JsonValue | undefined,
): "null" | "object" | "array" | "string" | "number" | "boolean" {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v as "object" | "string" | "number" | "boolean";
}
