/**
 * `toCloudInit`: a plan as cloud-init user-data (`#cloud-config`), the way Cluster API's
 * kubeadm bootstrap provider hands a machine its bootstrap: `write_files` with every file of
 * the plan (byte-exact, base64, with its mode) and the files its bring-up needs, then
 * `runcmd` with the bring-up commands (`kubeadm init` reusing the files on a first control
 * plane; restarting the kubelet on a worker).
 *
 * @module
 */
import { base64Encode } from "../core/text/base64.ts";
import { type FieldError, ValidationError } from "../core/errors.ts";
import { stringify } from "yaml";
import type { BringUp } from "./control_plane.ts";
import type { PlanFile } from "./node_plan.ts";

/** Options of {@link toCloudInit}. */
export interface CloudInitOptions {
  /** Commands to run instead of the plan's bring-up (argument vectors). */
  commands?: string[][];
  /** Commands to run before the bring-up (install packages, load images, ...). */
  preCommands?: string[][];
}

/** One `write_files` entry as cloud-init reads it. */
export interface CloudInitFile {
  /** Absolute path on the machine. */
  path: string;
  /** Octal text, e.g. `0600`. */
  permissions: string;
  /** `root:root`. */
  owner: string;
  /** Always base64, so that every byte arrives as planned. */
  encoding: "b64";
  /** The content, base64. */
  content: string;
}

/** The parts of a plan user-data is made of. */
export interface CloudInitInput {
  /** The node's files. */
  files: readonly PlanFile[];
  /** The files and commands that bring the node up. */
  bringUp: BringUp;
}

/** The `write_files` entry of a file: base64 content (byte-exact), its mode, owned by root. */
export function cloudInitFile(file: PlanFile): CloudInitFile {
  return {
    path: file.path,
    permissions: `0${file.mode.toString(8).padStart(3, "0")}`,
    owner: "root:root",
    encoding: "b64",
    content: base64Encode(new TextEncoder().encode(file.content)),
  };
}

/** Whether `s` holds an ASCII control character (no path cloud-init should write holds one). */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * What makes bad user-data: a file whose path is not absolute (or holds a control character),
 * written twice, with a mode that is not a POSIX permission, or content that is not text; a
 * command that is not a non-empty list of strings, or holds a NUL (which no argument can).
 * Commands and contents may hold secrets: their values are never echoed.
 */
function userDataErrors(plan: CloudInitInput, options: CloudInitOptions): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const files = (list: unknown, field: string) => {
    if (!Array.isArray(list)) {
      errors.push({ field, detail: "must be a list of files ({ path, mode, content })" });
      return;
    }
    list.forEach((f: Partial<PlanFile> | null, i) => {
      const at = `${field}[${i}]`;
      if (typeof f?.path !== "string" || !f.path.startsWith("/") || hasControl(f.path)) {
        errors.push({
          field: `${at}.path`,
          value: typeof f?.path === "string" ? f.path : String(f?.path),
          detail: "must be an absolute path without control characters",
        });
      } else if (seen.has(f.path)) {
        errors.push({ field: `${at}.path`, value: f.path, detail: "is written twice" });
      } else seen.add(f.path);
      if (!Number.isInteger(f?.mode) || f!.mode! < 0 || f!.mode! > 0o7777) {
        errors.push({
          field: `${at}.mode`,
          value: String(f?.mode),
          detail: "must be a POSIX mode from 0 to 0o7777 (e.g. 0o600)",
        });
      }
      if (typeof f?.content !== "string") {
        errors.push({ field: `${at}.content`, detail: "must be the file's text" });
      }
    });
  };
  const commands = (list: unknown, field: string, optional = false) => {
    if (list === undefined && optional) return;
    if (!Array.isArray(list)) {
      errors.push({ field, detail: "must be a list of commands (argument vectors)" });
      return;
    }
    list.forEach((argv: unknown, i) => {
      const ok = Array.isArray(argv) && argv.length > 0 && argv[0] !== "" &&
        argv.every((a) => typeof a === "string" && !a.includes("\u0000"));
      if (!ok) {
        errors.push({
          field: `${field}[${i}]`,
          detail:
            "must be an argument vector: a non-empty list of strings, the program first, no NUL",
        });
      }
    });
  };
  files(plan.bringUp?.files, "bringUp.files");
  files(plan.files, "files");
  commands(plan.bringUp?.commands, "bringUp.commands");
  commands(options.preCommands, "preCommands", true);
  commands(options.commands, "commands", true);
  return errors;
}

/**
 * Renders cloud-init user-data that brings a node up from its plan: writes the bring-up's
 * files and the plan's files, then runs the bring-up commands. The text holds the plan's keys
 * and tokens: treat it as a secret. Bad input (see the fields of {@link CloudInitInput} and
 * {@link CloudInitOptions}) is refused with a `ValidationError` naming every bad field, before
 * anything is rendered.
 */
export function toCloudInit(plan: CloudInitInput, options: CloudInitOptions = {}): string {
  const errors = userDataErrors(plan, options);
  if (errors.length > 0) {
    throw new ValidationError(errors, {
      hint: "give a plan's files and bring-up as planControlPlane, planWorker and " +
        "planControlPlaneJoin return them, and commands as argument vectors " +
        '(e.g. [["modprobe", "br_netfilter"]])',
    });
  }
  const userData = {
    write_files: [...plan.bringUp.files, ...plan.files].map(cloudInitFile),
    runcmd: [...options.preCommands ?? [], ...options.commands ?? plan.bringUp.commands],
  };
  // Block style, keys in the order above, base64 never folded.
  return `#cloud-config\n${stringify(userData, { lineWidth: 0 })}`;
}
