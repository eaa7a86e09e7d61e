/**
 * Reading the files a command line names: the `--config` file, and plain existence checks.
 *
 * @module
 */
import { FlagError } from "../core/errors.ts";
import { consolePrinter } from "./output.ts";
import { isNotFound, readTextFileCapped } from "../adapters/deno/fs/capped_read.ts";
import { isRegularFile } from "../adapters/deno/fs/regular_file.ts";

/**
 * Reads the `--config` file (or the file another flag names), or fails with a
 * {@link FlagError} naming the flag and the path.
 */
export async function readConfigFile(path: string, flag = "--config"): Promise<string> {
  try {
    return await readTextFileCapped(path);
  } catch (e) {
    throw new FlagError(`unable to read config from "${path}"`, {
      field: flag,
      value: path,
      hint: isNotFound(e) ? "the file does not exist" : String(e),
      cause: e,
    });
  }
}

/**
 * Reads the `--config` file a command loads its configuration from (init, join, reset, the
 * certs and token commands, `config images`), logging it at `-v=1` as upstream's loaders do.
 */
export async function loadConfigFile(path: string): Promise<string> {
  consolePrinter.log?.(1, "config_file.ts", `loading configuration from ${JSON.stringify(path)}`);
  return await readConfigFile(path);
}

/** Whether systemd-resolved manages the host's DNS (the kubelet then needs its resolv.conf). */
export function systemdResolvedActive(): boolean {
  return isRegularFile("/run/systemd/resolve/resolv.conf");
}
