/**
 * Checks about paths: a file must not exist yet (`FileAvailable-*`), a directory must be empty
 * (`DirAvailable-*`), a file must exist (`FileExisting-*`), a kernel setting must read `1`
 * (`FileContent-*`).
 *
 * The first three look at node files (under `--rootfs`); `FileContent` reads the running
 * kernel's `/proc` settings.
 *
 * @module
 */
import { type Check, fail, pass, pathCheckName } from "../check.ts";

/** `/proc/sys/net/ipv4/ip_forward`. */
export const IPV4_FORWARD = "/proc/sys/net/ipv4/ip_forward";
/** `/proc/sys/net/ipv6/conf/default/forwarding`. */
export const IPV6_DEFAULT_FORWARDING = "/proc/sys/net/ipv6/conf/default/forwarding";

/** Fails when anything already exists at `path`. */
export function fileAvailableCheck(path: string, label?: string): Check {
  return {
    name: label ?? pathCheckName("FileAvailable", path),
    severity: "error",
    async run(host, log) {
      log?.(1, "paths.ts", `validating the existence of file ${path}`);
      return (await host.files.exists(path)) ? fail(`${path} already exists`) : pass();
    },
  };
}

/** Fails when `path` exists and is not an empty directory. */
export function dirAvailableCheck(path: string, label?: string): Check {
  return {
    name: label ?? pathCheckName("DirAvailable", path),
    severity: "error",
    async run(host, log) {
      log?.(1, "paths.ts", `validating the existence and emptiness of directory ${path}`);
      if (!(await host.files.exists(path))) return pass();
      const entries = await host.files.list(path);
      // A file in place of the directory reads as "not empty", as upstream's Readdirnames does.
      return entries === undefined || entries.length > 0 ? fail(`${path} is not empty`) : pass();
    },
  };
}

/** Fails when nothing exists at `path`. */
export function fileExistingCheck(path: string, label?: string): Check {
  return {
    name: label ?? pathCheckName("FileExisting", path),
    severity: "error",
    async run(host, log) {
      log?.(1, "paths.ts", `validating the existence of file ${path}`);
      return (await host.files.exists(path)) ? pass() : fail(`${path} doesn't exist`);
    },
  };
}

/** Fails unless the kernel file starts with `content` (e.g. `/proc/sys/net/ipv4/ip_forward` = 1). */
export function fileContentCheck(path: string, content = "1", label?: string): Check {
  return {
    name: label ?? pathCheckName("FileContent", path),
    severity: "error",
    async run(host, log) {
      log?.(1, "paths.ts", `validating the contents of file ${path}`);
      const data = await host.readSystemFile(path);
      if (data === undefined) return fail(`${path} does not exist`);
      const head = new TextDecoder().decode(
        data.subarray(0, new TextEncoder().encode(content).length),
      );
      return head === content ? pass() : fail(`${path} contents are not set to ${content}`);
    },
  };
}
