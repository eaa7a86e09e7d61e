/**
 * Environment access that degrades gracefully when `--allow-env` was not granted.
 *
 * @module
 */

/** The variable's value, or `undefined` when unset or when env access is not permitted. */
export function envGet(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Whether writing to `path` is permitted without prompting. */
export function canWrite(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "write", path }).state === "granted";
  } catch {
    return false;
  }
}
