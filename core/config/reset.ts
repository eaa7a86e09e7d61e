/**
 * The v1beta4 `ResetConfiguration`'s own rules: its defaults (what `kubeadm config print
 * reset-defaults` shows) and the unmount flags it accepts.
 *
 * @module
 */
import { DEFAULT_CRI_SOCKET } from "../constants.ts";
import { type FieldError, ValidationError } from "../errors.ts";
import { certificatesDirOrDefault, withDefaultTimeouts } from "./defaults.ts";
import { validateSocketPath } from "./validate.ts";
import { KUBEADM_API_VERSION, type ResetConfiguration } from "./types.ts";

/** Unmount flags accepted in `ResetConfiguration.unmountFlags`. */
const UNMOUNT_FLAGS = ["MNT_FORCE", "MNT_DETACH", "MNT_EXPIRE", "UMOUNT_NOFOLLOW"] as const;

function unmountFlagErrors(flags: readonly string[]): FieldError[] {
  return flags.flatMap((f, i) =>
    (UNMOUNT_FLAGS as readonly string[]).includes(f) ? [] : [{
      field: "unmountFlags",
      value: `index ${i}`,
      detail: `unknown unmount flag ${f}`,
    }]
  );
}

/** Validates `unmountFlags` (upstream's `ValidateUnmountFlags`). */
export function validateUnmountFlags(flags: readonly string[]): void {
  const errors = unmountFlagErrors(flags);
  if (errors.length > 0) {
    throw new ValidationError(errors, { hint: `use ${UNMOUNT_FLAGS.join(", ")}` });
  }
}

/** Validates a ResetConfiguration as upstream: its CRI socket (when set) and unmount flags. */
export function validateResetConfiguration(cfg: ResetConfiguration): void {
  const errors = [
    ...(cfg.criSocket ? validateSocketPath(cfg.criSocket, "criSocket") : []),
    ...unmountFlagErrors(cfg.unmountFlags ?? []),
  ];
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * A ResetConfiguration defaulted with no host detection: the certificates directory, the
 * default CRI socket, every timeout; what the user set is kept.
 */
export function applyResetDefaults(cfg: ResetConfiguration): ResetConfiguration {
  return {
    ...cfg,
    apiVersion: KUBEADM_API_VERSION,
    kind: "ResetConfiguration",
    certificatesDir: certificatesDirOrDefault(cfg.certificatesDir),
    criSocket: cfg.criSocket || DEFAULT_CRI_SOCKET,
    timeouts: withDefaultTimeouts(cfg.timeouts),
  };
}

/** The defaulted ResetConfiguration (`config print reset-defaults`). */
export function defaultResetConfiguration(): ResetConfiguration {
  return applyResetDefaults({});
}
