/**
 * JSON patch (RFC 6902, `application/json-patch+json`) over JSON pointers (RFC 6901).
 *
 * Supports `add`, `remove`, `replace`, `move`, `copy` and `test`, with `-` for appending to an
 * array and negative indices counted from the end (as the Go library kubeadm uses). Operations
 * apply in order to a copy of the document; the first failing one aborts the whole patch.
 *
 * @module
 */
import { KubeadmError } from "../errors.ts";
import { isJsonObject, jsonEqual, type JsonValue, sortedJson, toJsonValue } from "./json_value.ts";

/** A JSON patch failed to decode or apply. */
class JsonPatchError extends KubeadmError {}

/** Splits a JSON pointer (`/a/b~1c/0`) into unescaped reference tokens. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new JsonPatchError(
      `invalid JSON pointer ${JSON.stringify(pointer)}: must start with "/"`,
    );
  }
  return pointer.slice(1).split("/").map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

type Container = JsonValue[] | { [key: string]: JsonValue };

interface Location {
  parent: Container;
  key: string;
}

function locate(doc: JsonValue, path: string, op: string): Location {
  const tokens = parseJsonPointer(path);
  if (tokens.length === 0) {
    throw new JsonPatchError(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  let cur: JsonValue = doc;
  for (const token of tokens.slice(0, -1)) {
    let next: JsonValue | undefined;
    if (Array.isArray(cur)) {
      const i = arrayIndex(cur, token, false);
      next = i === undefined ? undefined : cur[i];
    } else if (isJsonObject(cur)) {
      next = Object.hasOwn(cur, token) ? cur[token] : undefined;
    }
    if (next === undefined || (!Array.isArray(next) && !isJsonObject(next))) {
      throw new JsonPatchError(
        `${op} operation does not apply: doc is missing path: "${path}": missing value`,
      );
    }
    cur = next;
  }
  if (!Array.isArray(cur) && !isJsonObject(cur)) {
    throw new JsonPatchError(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  return { parent: cur, key: tokens[tokens.length - 1] };
}

function arrayIndex(arr: JsonValue[], token: string, forInsert: boolean): number | undefined {
  if (!/^-?[0-9]+$/.test(token)) return undefined;
  let i = Number(token);
  if (i < 0) i += arr.length;
  const max = forInsert ? arr.length : arr.length - 1;
  return i < 0 || i > max ? undefined : i;
}

function get(doc: JsonValue, path: string, op: string): JsonValue | undefined {
  if (path === "") return doc;
  const { parent, key } = locate(doc, path, op);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false);
    return i === undefined ? undefined : parent[i];
  }
  return Object.hasOwn(parent, key) ? parent[key] : undefined;
}

function add(doc: JsonValue, path: string, value: JsonValue, op = "add"): void {
  const { parent, key } = locate(doc, path, op);
  if (Array.isArray(parent)) {
    const i = key === "-" ? parent.length : arrayIndex(parent, key, true);
    if (i === undefined) {
      throw new JsonPatchError(`${op} operation does not apply: index out of bounds: "${path}"`);
    }
    parent.splice(i, 0, value);
  } else {
    parent[key] = value;
  }
}

function remove(doc: JsonValue, path: string, op = "remove"): JsonValue {
  const { parent, key } = locate(doc, path, op);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false);
    if (i === undefined) {
      throw new JsonPatchError(`${op} operation does not apply: index out of bounds: "${path}"`);
    }
    return parent.splice(i, 1)[0];
  }
  if (!Object.hasOwn(parent, key)) {
    throw new JsonPatchError(`unable to ${op} nonexistent key: ${key}: missing value`);
  }
  const old = parent[key];
  delete parent[key];
  return old;
}

function requireString(op: Record<string, JsonValue>, field: string): string {
  const v = op[field];
  if (typeof v !== "string") {
    throw new JsonPatchError(`operation ${sortedJson(op)} is missing a string "${field}"`);
  }
  return v;
}

/** Applies a JSON patch (an array of operations) to a copy of `doc` and returns it. */
export function applyJsonPatch(doc: JsonValue, patch: JsonValue): JsonValue {
  if (!Array.isArray(patch)) {
    throw new JsonPatchError("a JSON patch must be an array of operations");
  }
  const out = toJsonValue(doc);
  for (const raw of patch) {
    if (!isJsonObject(raw)) throw new JsonPatchError(`invalid operation ${sortedJson(raw)}`);
    const op = raw.op;
    const value = toJsonValue(raw.value ?? null);
    switch (op) {
      case "add":
        add(out, requireString(raw, "path"), value);
        break;
      case "remove":
        remove(out, requireString(raw, "path"));
        break;
      case "replace": {
        const path = requireString(raw, "path");
        if (get(out, path, "replace") === undefined) {
          throw new JsonPatchError(
            `replace operation does not apply: doc is missing key: ${path}: missing value`,
          );
        }
        remove(out, path, "replace");
        add(out, path, value, "replace");
        break;
      }
      case "move": {
        const from = requireString(raw, "from");
        const moved = remove(out, from, "move");
        add(out, requireString(raw, "path"), moved, "move");
        break;
      }
      case "copy": {
        const from = requireString(raw, "from");
        const copied = get(out, from, "copy");
        if (copied === undefined) {
          throw new JsonPatchError(
            `copy operation does not apply: doc is missing from path: ${from}`,
          );
        }
        add(out, requireString(raw, "path"), toJsonValue(copied), "copy");
        break;
      }
      case "test": {
        const path = requireString(raw, "path");
        const actual = get(out, path, "test");
        const ok = actual === undefined
          ? raw.value === undefined || raw.value === null
          : jsonEqual(actual, value);
        if (!ok) throw new JsonPatchError(`testing value ${path} failed: test failed`);
        break;
      }
      default:
        throw new JsonPatchError(
          `unexpected kind: ${typeof op === "string" ? op : sortedJson(op ?? null)}`,
        );
    }
  }
  return out;
}
