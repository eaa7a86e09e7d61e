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

/**
 * Renders cloud-init user-data that brings a node up from its plan: writes the bring-up's
 * files and the plan's files, then runs the bring-up commands. The text holds the plan's keys
 * and tokens: treat it as a secret.
 */
export function toCloudInit(plan: CloudInitInput, options: CloudInitOptions = {}): string {
  const userData = {
    write_files: [...plan.bringUp.files, ...plan.files].map(cloudInitFile),
    runcmd: [...options.preCommands ?? [], ...options.commands ?? plan.bringUp.commands],
  };
  // Block style, keys in the order above, base64 never folded.
  return `#cloud-config\n${stringify(userData, { lineWidth: 0 })}`;
}
