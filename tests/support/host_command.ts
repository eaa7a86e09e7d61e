/**
 * Copies a host command and the shared libraries it loads (as `ldd` lists them) into a test
 * node's root, for upstream kubeadm, which chroots into `--rootfs` and then runs commands
 * such as `cp` (its etcd data backup during `upgrade apply`, which also opens `/dev/null`).
 *
 * @module
 */
import { run } from "./control_plane.ts";

/** Installs `command` (found on the host's PATH) at the same path under `root`, libraries too. */
export async function installHostCommand(root: string, command: string): Promise<void> {
  const which = await run(["sh", "-c", `command -v ${command}`]);
  const bin = which.stdout.trim();
  if (which.code !== 0 || !bin.startsWith("/")) throw new Error(`${command}: not on the host`);
  const ldd = await run(["ldd", bin]);
  if (ldd.code !== 0) throw new Error(`ldd ${bin}: ${ldd.stderr}`);
  const files = [bin];
  for (const line of ldd.stdout.split("\n")) {
    const path = line.match(/(?:=>\s*)?(\/\S+)\s+\(0x/)?.[1];
    if (path) files.push(path);
  }
  for (const file of files) {
    const dest = `${root}${file}`;
    await Deno.mkdir(dest.slice(0, dest.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(await Deno.realPath(file), dest);
    await Deno.chmod(dest, 0o755);
  }
}

/** Creates `/dev/null` under `root` (a character device; needs root), unless present. */
export async function installDevNull(root: string): Promise<void> {
  await Deno.mkdir(`${root}/dev`, { recursive: true });
  const r = await run([
    "sh",
    "-c",
    `[ -c "$1" ] || mknod -m 666 "$1" c 1 3`,
    "sh",
    `${root}/dev/null`,
  ]);
  if (r.code !== 0) throw new Error(`mknod ${root}/dev/null: ${r.stderr}`);
}
