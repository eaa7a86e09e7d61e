/**
 * Read access to kubeadm's files on the node, resolved under `--rootfs`, as the preflight and
 * reset ports expect it.
 *
 * @module
 */
import type { NodeFiles } from "../../core/host/ports.ts";
import { HostFileSystem } from "../fs/host_fs.ts";

/** {@link NodeFiles} over the node's real files, rooted at `root` (`/` = the real root). */
export class RootedNodeFiles extends HostFileSystem implements NodeFiles {}
