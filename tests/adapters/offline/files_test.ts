import assert from "node:assert/strict";
import { RecordingFileSystem } from "../../../adapters/offline/files.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";

Deno.test("RecordingFileSystem reads through, records writes, never touches the base", async () => {
  const base = new MemoryFileSystem();
  await base.write({
    path: "/etc/kubernetes/pki/ca.crt",
    data: "CA",
    mode: 0o644,
    kind: "certificate",
  });
  const rec = new RecordingFileSystem(base);
  assert.equal(new TextDecoder().decode(await rec.read("/etc/kubernetes/pki/ca.crt")), "CA");
  await rec.write({ path: "/etc/kubernetes/pki/ca.key", data: "KEY", mode: 0o600, kind: "key" });
  await rec.write({
    path: "/etc/kubernetes/admin.conf",
    data: "x",
    mode: 0o600,
    kind: "kubeconfig",
  });
  assert.equal(new TextDecoder().decode(await rec.read("/etc/kubernetes/pki/ca.key")), "KEY");
  assert.equal(await base.read("/etc/kubernetes/pki/ca.key"), undefined);
  assert.deepEqual(rec.planned.map((f) => f.path), [
    "/etc/kubernetes/pki/ca.key",
    "/etc/kubernetes/admin.conf",
  ]);
  assert.deepEqual(await rec.list("/etc/kubernetes/pki"), ["ca.crt", "ca.key"]);
  assert.equal(await rec.list("/nope"), undefined);
});

Deno.test("RecordingFileSystem reads the latest write, and a reader's bytes are its own", async () => {
  const rec = new RecordingFileSystem();
  const text = async (p: string) => new TextDecoder().decode(await rec.read(p));
  await rec.write({
    path: "/etc/kubernetes/admin.conf",
    data: "one",
    mode: 0o600,
    kind: "kubeconfig",
  });
  const first = (await rec.read("/etc/kubernetes/admin.conf"))!;
  first.fill(0x21);
  assert.equal(await text("/etc/kubernetes/admin.conf"), "one");
  await rec.write({
    path: "/etc/kubernetes/admin.conf",
    data: "two",
    mode: 0o600,
    kind: "kubeconfig",
  });
  assert.equal(await text("/etc/kubernetes/admin.conf"), "two");
});
