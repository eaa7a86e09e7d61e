// This node's restart lock (adapters/deno/host/node_lock.ts) against another process holding the
// same flock (util-linux `flock`, as a second kubeadm would): waited for, refused at the
// deadline, free once that process is gone (killed: the kernel drops its lock).
import assert from "node:assert/strict";
import { KubeadmError } from "../../../core/errors.ts";
import { NODE_RESTART_LOCK, nodeRestartLock } from "../../../adapters/deno/host/node_lock.ts";

Deno.test("the node's restart lock: held by another process it is waited for and refused at the deadline; a killed holder's lock is free", async () => {
  const root = await Deno.makeTempDir();
  try {
    const lock = nodeRestartLock(root);
    const path = `${root}${NODE_RESTART_LOCK}`;
    // Free: taken at once (its folder made), the file 0600, released, taken again.
    let waited = 0;
    let release = await lock(5_000, () => waited++);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    await release();
    release = await lock(5_000, () => waited++);
    await release();
    assert.equal(waited, 0);

    // Another process holds it.
    // One process: the shell opens the file, locks it, and becomes `sleep`, keeping it.
    const holder = new Deno.Command("sh", {
      args: ["-c", 'exec 9<>"$1"; flock --exclusive 9; echo held; exec sleep 60', "sh", path],
      stdout: "piped",
    }).spawn();
    const reader = holder.stdout.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /held/);
    await assert.rejects(lock(1_500, () => waited++), (e) => {
      assert.ok(e instanceof KubeadmError);
      assert.match(
        e.message,
        /another kubeadm process on this node .* \(it holds .*kubeadm-restart\.lock\)/,
      );
      return true;
    });
    assert.equal(waited, 1);
    // Killed while another run waits: the waiting one takes it.
    const taking = lock(20_000, () => waited++);
    setTimeout(() => holder.kill("SIGKILL"), 1_500);
    release = await taking;
    assert.equal(waited, 2);
    await reader.cancel();
    await holder.status;
    await release();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the node's restart lock stays under --rootfs: an absolute symlink for /run resolves inside the root", async () => {
  const root = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  try {
    // As a host's /run seen from a node image: `<root>/run -> <outside>` (absolute).
    await Deno.symlink(outside, `${root}/run`);
    await Deno.mkdir(`${root}${outside}`, { recursive: true });
    const release = await nodeRestartLock(root)(5_000, () => {});
    await release();
    assert.equal((await Deno.stat(`${root}${outside}/kubeadm-restart.lock`)).isFile, true);
    assert.deepEqual([...Deno.readDirSync(outside)], []);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
