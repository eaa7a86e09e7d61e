import assert from "node:assert/strict";
import { HostFileSystem, underRoot } from "../../../adapters/deno/files.ts";
import { MAX_INPUT_FILE_BYTES } from "../../../adapters/deno/fs/capped_read.ts";

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
    // Directories made for a key, as client-go's key writer makes them: 0755.
    assert.equal((await Deno.stat(`${root}/etc/kubernetes/pki`)).mode! & 0o777, 0o755);
    await fs.write({
      path: "/etc/kubernetes/manifests/x.yaml",
      data: "",
      mode: 0o600,
      kind: "manifest",
    });
    assert.equal((await Deno.stat(`${root}/etc/kubernetes/manifests`)).mode! & 0o777, 0o700);
    assert.equal(await Deno.readTextFile(`${root}/etc/kubernetes/pki/ca.key`), "secret2");
    assert.deepEqual(await fs.list("/etc/kubernetes/pki"), ["ca.key"]); // no temp files left
    assert.equal(await fs.read("/etc/kubernetes/nope"), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

// Issue 9, finding 2: nothing under --rootfs leaves the root, symlinks included. A root with
// an "outside" directory next to it; links inside the root point there, absolutely (the host
// path) or relatively (enough `..` to climb out). Links resolve as chroot would: absolute
// targets start again at the root, `..` stops at it.

interface Tree {
  root: string;
  outside: string;
  /** Everything under `outside`, path → content ("<dir>" for directories). */
  outsideState(): Promise<Map<string, string>>;
  cleanup(): Promise<void>;
}

async function tree(): Promise<Tree> {
  const base = await Deno.makeTempDir({ prefix: "kts-rootfs-" });
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${root}/etc`, { recursive: true });
  await Deno.mkdir(`${root}/var/lib`, { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${outside}/victim`, "precious");
  const outsideState = async () => {
    const out = new Map<string, string>();
    const walk = async (d: string) => {
      for await (const e of Deno.readDir(d)) {
        const p = `${d}/${e.name}`;
        if (e.isDirectory) {
          out.set(p, "<dir>");
          await walk(p);
        } else out.set(p, await Deno.readTextFile(p));
      }
    };
    await walk(outside);
    return out;
  };
  return { root, outside, outsideState, cleanup: () => Deno.remove(base, { recursive: true }) };
}

/** The link kinds under test: absolute host path, and relative with `..` climbing out. */
function escapingTargets(t: Tree, depth: number): [string, string][] {
  return [
    ["absolute", t.outside],
    ["relative", `${"../".repeat(depth + 8)}${t.outside.slice(1)}`],
  ];
}

for (const kind of ["absolute", "relative"]) {
  Deno.test(`rootfs: write and mkdir through ${kind === "absolute" ? "an" : "a"} ${kind} escaping link in an intermediate component stay inside`, async () => {
    const t = await tree();
    try {
      const target = escapingTargets(t, 1).find(([k]) => k === kind)![1];
      await Deno.symlink(target, `${t.root}/etc/kubernetes`);
      await Deno.symlink(target, `${t.root}/var/lib/kubelet`);
      const before = await t.outsideState();
      const fs = new HostFileSystem(t.root);
      await fs.write({
        path: "/etc/kubernetes/pki/ca.key",
        data: "secret",
        mode: 0o600,
        kind: "key",
      });
      assert.deepEqual(await t.outsideState(), before, "no file written outside the root");
      await fs.ensureDir("/var/lib/kubelet/pki", 0o755);
      assert.deepEqual(await t.outsideState(), before, "no directory made outside the root");
      // As under chroot: the link's target is taken inside the root.
      assert.equal(await Deno.readTextFile(`${t.root}${t.outside}/pki/ca.key`), "secret");
      assert.ok((await Deno.stat(`${t.root}${t.outside}/pki`)).isDirectory);
      assert.equal(new TextDecoder().decode(await fs.read("/etc/kubernetes/pki/ca.key")), "secret");
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`rootfs: read, list, exists and remove through ${kind === "absolute" ? "an" : "a"} ${kind} escaping link stay inside`, async () => {
    const t = await tree();
    try {
      const target = escapingTargets(t, 1).find(([k]) => k === kind)![1];
      await Deno.symlink(target, `${t.root}/etc/kubernetes`);
      const fs = new HostFileSystem(t.root);
      assert.equal(await fs.read("/etc/kubernetes/victim"), undefined);
      assert.equal(await fs.exists("/etc/kubernetes/victim"), false);
      assert.equal(await fs.list("/etc/kubernetes"), undefined);
      await fs.remove("/etc/kubernetes/victim");
      assert.equal(await Deno.readTextFile(`${t.outside}/victim`), "precious");
    } finally {
      await t.cleanup();
    }
  });

  Deno.test(`rootfs: ${kind === "absolute" ? "an" : "a"} ${kind} link in the last component to a file outside is neither read, overwritten nor removed through`, async () => {
    const t = await tree();
    try {
      await Deno.mkdir(`${t.root}/etc/kubernetes`);
      const target = escapingTargets(t, 2).find(([k]) => k === kind)![1];
      await Deno.symlink(`${target}/victim`, `${t.root}/etc/kubernetes/admin.conf`);
      const before = await t.outsideState();
      const fs = new HostFileSystem(t.root);
      assert.equal(await fs.read("/etc/kubernetes/admin.conf"), undefined);
      await fs.write({
        path: "/etc/kubernetes/admin.conf",
        data: "new",
        mode: 0o600,
        kind: "kubeconfig",
      });
      assert.deepEqual(await t.outsideState(), before);
      assert.equal(await Deno.readTextFile(`${t.root}${t.outside}/victim`), "new");
      // remove takes the link itself, never its target
      await fs.remove("/etc/kubernetes/admin.conf");
      await assert.rejects(() => Deno.lstat(`${t.root}/etc/kubernetes/admin.conf`));
      assert.deepEqual(await t.outsideState(), before);
    } finally {
      await t.cleanup();
    }
  });
}

Deno.test("rootfs: links that stay inside the root work as on the node; '..' stops at the root; loops fail", async () => {
  const t = await tree();
  try {
    await Deno.mkdir(`${t.root}/srv/k8s`, { recursive: true });
    await Deno.symlink("/srv/k8s", `${t.root}/etc/kubernetes`); // absolute, as in an image
    await Deno.symlink("../../srv/k8s", `${t.root}/var/lib/kubelet`); // relative
    const fs = new HostFileSystem(t.root);
    await fs.write({ path: "/etc/kubernetes/a.conf", data: "a", mode: 0o600, kind: "other" });
    await fs.write({ path: "/var/lib/kubelet/b.conf", data: "b", mode: 0o600, kind: "other" });
    assert.deepEqual(await fs.list("/srv/k8s"), ["a.conf", "b.conf"]);
    assert.equal(underRoot(t.root, "/etc/kubernetes/a.conf"), `${t.root}/srv/k8s/a.conf`);
    assert.equal(underRoot(t.root, "/../../../etc/kubernetes/../../srv"), `${t.root}/srv`);
    await Deno.symlink("/loop-b", `${t.root}/loop-a`);
    await Deno.symlink("/loop-a", `${t.root}/loop-b`);
    await assert.rejects(() => fs.read("/loop-a/x"), /too many levels of symbolic links/);
  } finally {
    await t.cleanup();
  }
});

Deno.test("HostFileSystem keepExistingMode keeps a replaced file's mode and owner", async () => {
  const root = await Deno.makeTempDir();
  try {
    const fs = new HostFileSystem(root);
    const file = {
      path: "/etc/kubernetes/admin.conf",
      data: "one",
      mode: 0o600,
      kind: "kubeconfig" as const,
      keepExistingMode: true,
    };
    await fs.write(file);
    const path = `${root}/etc/kubernetes/admin.conf`;
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600, "new file: the planned mode");
    await Deno.chmod(path, 0o640);
    await Deno.chown(path, 0, 4242);
    await fs.write({ ...file, data: "two" });
    const st = await Deno.stat(path);
    assert.equal(st.mode! & 0o777, 0o640);
    assert.equal(st.gid, 4242);
    assert.equal(await Deno.readTextFile(path), "two");
    await fs.write({ ...file, data: "three", keepExistingMode: false });
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("node files are read only when regular: a FIFO is refused by name at once, not waited on", async () => {
  const root = await Deno.makeTempDir();
  const fifo = `${root}/etc/kubernetes/pki/ca.crt`;
  await Deno.mkdir(`${root}/etc/kubernetes/pki`, { recursive: true });
  assert.equal((await new Deno.Command("mkfifo", { args: [fifo] }).output()).code, 0);
  // A writer that comes late: a read that waits on the FIFO gets its line after a second.
  const writer = new Deno.Command("sh", { args: ["-c", 'sleep 1; echo late > "$0"', fifo] })
    .spawn();
  try {
    const fs = new HostFileSystem(root);
    const started = performance.now();
    await assert.rejects(() => fs.read("/etc/kubernetes/pki/ca.crt"), {
      name: "NotRegularFileError",
      message: "/etc/kubernetes/pki/ca.crt is a FIFO, not a regular file",
    });
    assert.ok(performance.now() - started < 500, "the read waited on the FIFO");
    // the real root: a device is refused the same way, a directory still reads as no file
    await assert.rejects(
      () => new HostFileSystem("/").read("/dev/null"),
      /^NotRegularFileError: \/dev\/null is a character device, not a regular file$/,
    );
    assert.equal(await fs.read("/etc/kubernetes/pki"), undefined);
  } finally {
    try {
      writer.kill("SIGKILL");
    } catch { /* it ended */ }
    await writer.status;
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("node files are read with a size cap that names the file", async () => {
  const root = await Deno.makeTempDir();
  try {
    const fs = new HostFileSystem(root);
    await Deno.mkdir(`${root}/etc/kubernetes/manifests`, { recursive: true });
    const path = `${root}/etc/kubernetes/manifests/etcd.yaml`;
    await Deno.writeTextFile(path, "kind: Pod\n");
    assert.equal(
      new TextDecoder().decode(await fs.read("/etc/kubernetes/manifests/etcd.yaml")),
      "kind: Pod\n",
    );
    await Deno.truncate(path, MAX_INPUT_FILE_BYTES);
    assert.equal(
      (await fs.read("/etc/kubernetes/manifests/etcd.yaml"))?.length,
      MAX_INPUT_FILE_BYTES,
    );
    await Deno.truncate(path, MAX_INPUT_FILE_BYTES + 1);
    await assert.rejects(() => fs.read("/etc/kubernetes/manifests/etcd.yaml"), {
      name: "FileTooLargeError",
      message:
        `/etc/kubernetes/manifests/etcd.yaml: file is larger than ${MAX_INPUT_FILE_BYTES} bytes`,
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a temp file a killed write left behind goes with the next write of that file", async () => {
  const root = await Deno.makeTempDir();
  try {
    const fs = new HostFileSystem(root);
    const dir = `${root}/etc/kubernetes/pki`;
    await Deno.mkdir(dir, { recursive: true });
    // What a write killed between writing and renaming leaves (and a look-alike that is not).
    await Deno.writeTextFile(`${dir}/.ca.key.0123abcd.tmp`, "half");
    await Deno.writeTextFile(`${dir}/.ca.key.backup`, "the operator's");
    await Deno.writeTextFile(`${dir}/.sa.key.0123abcd.tmp`, "another file's");
    await fs.write({ path: "/etc/kubernetes/pki/ca.key", data: "k", mode: 0o600, kind: "key" });
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort(),
      [".ca.key.backup", ".sa.key.0123abcd.tmp", "ca.key"],
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a full disk: the write fails naming the node path, leaves no temp file and the old file", async () => {
  const root = await Deno.makeTempDir();
  const mnt = `${root}/etc/kubernetes`;
  await Deno.mkdir(mnt, { recursive: true });
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "size=8k", "tmpfs", mnt],
  }).output();
  assert.ok(mount.success, new TextDecoder().decode(mount.stderr));
  try {
    const fs = new HostFileSystem(root);
    await fs.write({
      path: "/etc/kubernetes/a.conf",
      data: "old",
      mode: 0o600,
      kind: "kubeconfig",
    });
    await assert.rejects(
      () =>
        fs.write({
          path: "/etc/kubernetes/a.conf",
          data: new Uint8Array(64 * 1024),
          mode: 0o600,
          kind: "kubeconfig",
        }),
      /^Error: unable to write \/etc\/kubernetes\/a\.conf: No space left on device/,
    );
    assert.deepEqual((await Array.fromAsync(Deno.readDir(mnt))).map((e) => e.name), ["a.conf"]);
    assert.equal(await Deno.readTextFile(`${mnt}/a.conf`), "old");
  } finally {
    await new Deno.Command("umount", { args: [mnt] }).output();
    await Deno.remove(root, { recursive: true });
  }
});
