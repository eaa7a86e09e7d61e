import assert from "node:assert/strict";
import { HostFileSystem, underRoot } from "../../../runtime/fs/host_fs.ts";

Deno.test("underRoot maps node paths inside the root, '..' cannot escape", () => {
  assert.equal(underRoot("/", "/etc/kubernetes"), "/etc/kubernetes");
  assert.equal(underRoot("/tmp/r/", "/etc/kubernetes/pki"), "/tmp/r/etc/kubernetes/pki");
  assert.equal(underRoot("/tmp/r", "/../../etc/passwd"), "/tmp/r/etc/passwd");
  assert.throws(() => underRoot("/tmp/r", "etc/x"));
});

Deno.test("HostFileSystem writes atomically with the requested mode under --rootfs", async () => {
  const root = await Deno.makeTempDir();
  try {
    const fs = new HostFileSystem(root);
    await fs.write({
      path: "/etc/kubernetes/pki/ca.key",
      data: "secret",
      mode: 0o600,
      kind: "key",
    });
    await fs.write({
      path: "/etc/kubernetes/pki/ca.key",
      data: "secret2",
      mode: 0o600,
      kind: "key",
    });
    const st = await Deno.stat(`${root}/etc/kubernetes/pki/ca.key`);
    assert.equal(st.mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${root}/etc/kubernetes/pki`)).mode! & 0o777, 0o700);
    assert.equal(await Deno.readTextFile(`${root}/etc/kubernetes/pki/ca.key`), "secret2");
    assert.deepEqual(await fs.list("/etc/kubernetes/pki"), ["ca.key"]); // no temp files left
    assert.equal(await fs.read("/etc/kubernetes/nope"), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
