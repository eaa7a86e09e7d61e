// @ts-check
/**
 * WIT values as JSON, shared by the Deno tests and the Node runner of the transpiled component
 * (`jco_runner.mjs`), which is why this is plain JavaScript.
 *
 * - **Tagged** JSON carries the JavaScript shapes jco and componentize-js use (records with
 *   camelCase keys, `Uint8Array` for `list<u8>`, `bigint` for 64-bit integers, `undefined` for
 *   an option's none) between Deno and Node without loss.
 * - **Canonical** JSON is the host-neutral form the Go host reads and writes
 *   (`tests/wasm/gohost/values.go`): WIT field names (kebab-case), `list<u8>` as base64, 64-bit
 *   integers as numbers, none left out, `result` as `{"ok": …}` or `{"err": …}`. Keys are
 *   sorted, so two hosts' outputs compare as text.
 *
 * @module
 */

/** @param {Uint8Array} bytes */
function base64(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/** @param {string} text */
function unbase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * JSON text of a value with its `Uint8Array`s and `bigint`s tagged.
 * @param {unknown} value
 * @returns {string}
 */
export function encodeTagged(value) {
  return JSON.stringify(value, (_k, v) => {
    if (v instanceof Uint8Array) return { $bytes: base64(v) };
    if (typeof v === "bigint") return { $bigint: v.toString() };
    return v;
  });
}

/**
 * The value of {@link encodeTagged}'s text.
 * @param {string} text
 * @returns {any}
 */
export function decodeTagged(text) {
  return JSON.parse(text, (_k, v) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      if (typeof v.$bytes === "string") return unbase64(v.$bytes);
      if (typeof v.$bigint === "string") return BigInt(v.$bigint);
    }
    return v;
  });
}

/** @param {string} key */
function kebab(key) {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The canonical form of a JavaScript WIT value (see the module comment).
 * @param {unknown} value
 * @returns {unknown}
 */
export function canonical(value) {
  if (value === undefined || value === null) return null;
  if (value instanceof Uint8Array) return base64(value);
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object") {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const key of Object.keys(value)) {
      const v = /** @type {Record<string, unknown>} */ (value)[key];
      if (v !== undefined && v !== null) out[kebab(key)] = canonical(v);
    }
    return out;
  }
  return value;
}

/**
 * Canonical JSON text of a value already in canonical shape (the Go host's output): keys
 * sorted, none (null) fields left out.
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalText(value) {
  return JSON.stringify(sortKeys(value));
}

/** @param {unknown} value @returns {unknown} */
function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const key of Object.keys(value).sort()) {
      const v = /** @type {Record<string, unknown>} */ (value)[key];
      if (v !== null && v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/**
 * @param {string} name a WIT function name
 * @returns {string} its JavaScript export name (`plan-worker` → `planWorker`)
 */
export function camelName(name) {
  return name.replace(/-([a-z0-9])/g, (_m, c) => c.toUpperCase());
}
