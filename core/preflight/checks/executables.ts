/**
 * `FileExisting-<command>`: tools the kubelet and kubeadm need must be in `$PATH`.
 *
 * @module
 */
import { type Check, fail, pass, warn } from "../check.ts";

/** Fails (or warns, when not mandatory) when `command` is not found in `$PATH`. */
export function inPathCheck(command: string, mandatory: boolean, suggestion?: string): Check {
  return {
    name: `FileExisting-${command.replaceAll("/", "-")}`,
    severity: mandatory ? "error" : "warning",
    async run(host, log) {
      log?.(1, "executables.ts", `validating the presence of executable ${command}`);
      if ((await host.lookPath(command)) !== undefined) return pass();
      const message = `${command} not found in system path`;
      if (mandatory) return fail(message);
      return warn(suggestion ? `${message}\nSuggestion: ${suggestion}` : message);
    },
  };
}

/**
 * The executables kubeadm v1.34 requires on Linux, in upstream's order (verified against the
 * v1.34.4 binary: `losetup`, `mount` and `cp`, all mandatory).
 */
export function linuxExecutableChecks(): Check[] {
  return ["losetup", "mount", "cp"].map((cmd) => inPathCheck(cmd, true));
}
