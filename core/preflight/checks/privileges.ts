/**
 * `IsPrivilegedUser`: kubeadm must run as root.
 *
 * @module
 */
import { type Check, fail, pass } from "../check.ts";

/** Fails unless the process's user ID is 0. */
export function isPrivilegedUserCheck(): Check {
  return {
    name: "IsPrivilegedUser",
    severity: "error",
    async run(host) {
      return (await host.uid()) === 0 ? pass() : fail("user is not running as root");
    },
  };
}
