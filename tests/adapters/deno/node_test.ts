// Reset on the real file system, rooted at a temp directory populated like a control-plane
// node after `kubeadm init`: what goes, what stays, symlinks, mounts, dry-run. Needs root (CI
// runs as root) for the tmpfs mount.
import assert from "node:assert/strict";
import { buildResetData } from "../../../core/phases/reset/data.ts";
import { runReset } from "../../../core/phases/reset/workflow.ts";
import { DenoNodeHost } from "../../../adapters/deno/node.ts";
import { FlagError } from "../../../core/errors.ts";
import {
  CapturePrinter,
  FakeContainerRuntime,
  FakeInitSystem,
} from "../../support/fake_machine.ts";
import { startSwapRacer } from "../../support/swap_racer.ts";

const ETCD_YAML = `apiVersion: v1
kind: Pod
spec:
  containers:
  - name: etcd
    command: [etcd, --data-dir=/var/lib/etcd]
  volumes:
  - name: etcd-data
    hostPath: {path: /var/lib/etcd, type: DirectoryOrCreate}
`;

async function write(root: string, path: string, text: string): Promise<void> {
  const full = `${root}${path}`;
  await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(full, text);
}

/** Every entry under `dir` (lstat, never following links): path → kind:content. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      const st = await Deno.lstat(p);
      if (st.isSymlink) out.set(p.slice(dir.length), `link:${await Deno.readLink(p)}`);
      else if (st.isDirectory) {
        out.set(p.slice(dir.length), "dir");
        await walk(p);
      } else out.set(p.slice(dir.length), `file:${await Deno.readTextFile(p)}`);
    }
  };
  await walk(dir);
  return out;
}

/** Mounts (`mount <args> <at>`, needs root) on a directory created for it if missing. */
async function mount(args: string[], at: string): Promise<void> {
  await Deno.mkdir(at, { recursive: true });
  const m = await new Deno.Command("mount", { args: [...args, at] }).output();
  assert.equal(m.code, 0, new TextDecoder().decode(m.stderr));
}

interface Node {
  root: string;
  outside: string;
  cleanup(): Promise<void>;
}

/** A temp root like an init node, plus an outside directory symlinks point at. */
async function initNode(): Promise<Node> {
  const root = await Deno.makeTempDir({ prefix: "kubeadm-ts-reset-root-" });
  const outside = await Deno.makeTempDir({ prefix: "kubeadm-ts-reset-outside-" });
  await Deno.writeTextFile(`${outside}/precious.txt`, "must survive");
  await Deno.mkdir(`${outside}/subdir`);
  await Deno.writeTextFile(`${outside}/subdir/also.txt`, "must survive too");
  for (const m of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
    await write(root, `/etc/kubernetes/manifests/${m}.yaml`, "kind: Pod\n");
  }
  await write(root, "/etc/kubernetes/manifests/etcd.yaml", ETCD_YAML);
  for (const k of ["admin", "super-admin", "kubelet", "controller-manager", "scheduler"]) {
    await write(root, `/etc/kubernetes/${k}.conf`, "apiVersion: v1\n");
  }
  for (const c of ["ca.crt", "ca.key", "sa.key", "sa.pub", "etcd/ca.crt", "etcd/ca.key"]) {
    await write(root, `/etc/kubernetes/pki/${c}`, c);
  }
  await write(root, "/etc/kubernetes/tmp/kubeadm-backup-etcd/x", "backup");
  await write(root, "/var/lib/kubelet/config.yaml", "kind: KubeletConfiguration\n");
  await write(root, "/var/lib/kubelet/pki/kubelet-client-current.pem", "pem");
  await write(root, "/var/lib/etcd/member/snap/db", "etcd data");
  // not kubeadm's: must survive
  await write(root, "/etc/kubernetes/keep-me.txt", "planted");
  await write(root, "/var/lib/other/data.txt", "other");
  await write(root, "/etc/cni/net.d/10-bridge.conf", "{}");
  // symlinks out of the cleaned directories: removed as links, never followed
  await Deno.symlink(outside, `${root}/etc/kubernetes/pki/evil-dir`);
  await Deno.symlink(`${outside}/precious.txt`, `${root}/var/lib/kubelet/evil-file`);
  await Deno.mkdir(`${root}/var/lib/kubelet/pods/p1`, { recursive: true });
  await Deno.symlink(`${outside}/subdir`, `${root}/var/lib/kubelet/pods/p1/volume-link`);
  return {
    root,
    outside,
    cleanup: async () => {
      await Deno.remove(root, { recursive: true }).catch(() => {});
      await Deno.remove(outside, { recursive: true }).catch(() => {});
    },
  };
}

function resetData(
  root: string,
  inputs: Parameters<typeof buildResetData>[0]["inputs"],
  init = new FakeInitSystem(),
) {
  const out = new CapturePrinter();
  const data = buildResetData({
    inputs,
    out,
    node: new DenoNodeHost({
      root,
      initSystem: () => Promise.resolve(init),
      containerRuntime: (s) => new FakeContainerRuntime(s),
    }),
    confirm: () => Promise.resolve(undefined),
  });
  return { data, out, init };
}

Deno.test("reset --rootfs empties kubeadm's directories and files and nothing else", async () => {
  const node = await initNode();
  try {
    const { data, out, init } = resetData(node.root, { force: true, cleanupTmpDir: true });
    await runReset(data);
    assert.deepEqual(init.stopped, [], "a foreign root's reset leaves the running kubelet alone");
    assert.ok(out.stdout.includes(
      "[reset] Deleting contents of directories: [/etc/kubernetes/manifests /var/lib/kubelet /etc/kubernetes/pki /etc/kubernetes/tmp]",
    ));
    const after = await snapshot(node.root);
    assert.deepEqual([...after.keys()].sort(), [
      "/etc",
      "/etc/cni",
      "/etc/cni/net.d",
      "/etc/cni/net.d/10-bridge.conf",
      "/etc/kubernetes",
      "/etc/kubernetes/keep-me.txt",
      "/etc/kubernetes/manifests",
      "/etc/kubernetes/pki",
      "/etc/kubernetes/tmp",
      "/var",
      "/var/lib",
      "/var/lib/etcd",
      "/var/lib/kubelet",
      "/var/lib/other",
      "/var/lib/other/data.txt",
    ]);
    assert.equal(after.get("/etc/kubernetes/keep-me.txt"), "file:planted");
    assert.deepEqual(
      await snapshot(node.outside),
      new Map([
        ["/precious.txt", "file:must survive"],
        ["/subdir", "dir"],
        ["/subdir/also.txt", "file:must survive too"],
      ]),
    );
  } finally {
    await node.cleanup();
  }
});

Deno.test("reset --dry-run changes nothing", async () => {
  const node = await initNode();
  try {
    const before = await snapshot(node.root);
    const { data, out, init } = resetData(node.root, { dryRun: true, cleanupTmpDir: true });
    await runReset(data);
    assert.deepEqual(await snapshot(node.root), before);
    assert.deepEqual(init.stopped, []);
    assert.ok(
      out.stdout.some((l) => l.startsWith("[dryrun] Would delete contents of directories:")),
    );
  } finally {
    await node.cleanup();
  }
});

Deno.test("dangerous certificate directories are refused; symlinked ones are not followed out", async () => {
  const node = await initNode();
  try {
    for (
      const certificatesDir of ["/", "", "relative/pki", "/etc/kubernetes/pki/../../..", "/etc"]
    ) {
      assert.throws(
        () => resetData(node.root, { force: true, certificatesDir }),
        FlagError,
        certificatesDir,
      );
    }
    // a cert dir that resolves to /etc (links resolve inside the root, as chroot would)
    await Deno.symlink("/etc", `${node.root}/etc/kubernetes/pki-etc`);
    await Deno.symlink("../../etc", `${node.root}/etc/kubernetes/pki-etc-rel`);
    for (const certificatesDir of ["/etc/kubernetes/pki-etc", "/etc/kubernetes/pki-etc-rel"]) {
      const { data, out } = resetData(node.root, { force: true, certificatesDir });
      await runReset(data, { only: "cleanup-node" });
      assert.ok(
        out.stderr.some((l) =>
          l.startsWith(`[reset] Failed to delete contents of "${certificatesDir}" directory:`)
        ),
        out.stderr.join("\n"),
      );
    }
    // cert dirs that are symlinks out of the root (absolute, relative): never followed out
    await Deno.symlink(node.outside, `${node.root}/etc/kubernetes/pki-out`);
    await Deno.symlink(
      `${"../".repeat(16)}${node.outside.slice(1)}`,
      `${node.root}/etc/kubernetes/pki-out-rel`,
    );
    for (const certificatesDir of ["/etc/kubernetes/pki-out", "/etc/kubernetes/pki-out-rel"]) {
      const { data } = resetData(node.root, { force: true, certificatesDir });
      await runReset(data, { only: "cleanup-node" });
    }
    assert.equal(await Deno.readTextFile(`${node.outside}/precious.txt`), "must survive");
    assert.equal(await Deno.readTextFile(`${node.root}/etc/kubernetes/keep-me.txt`), "planted");
    assert.ok((await Deno.stat(`${node.root}/etc/cni/net.d/10-bridge.conf`)).isFile);
  } finally {
    await node.cleanup();
  }
});

Deno.test("mounts under the kubelet directory are unmounted before it is emptied (root)", async () => {
  const node = await initNode();
  const mnt = `${node.root}/var/lib/kubelet/pods/p2/volumes/kubernetes.io~empty-dir/cache`;
  try {
    await mount(["-t", "tmpfs", "tmpfs"], mnt);
    await Deno.writeTextFile(`${mnt}/in-tmpfs`, "x");
    const { data, out } = resetData(node.root, { force: true });
    await runReset(data, { only: "cleanup-node" });
    const mounts = await Deno.readTextFile("/proc/mounts");
    assert.ok(!mounts.includes(mnt), "the tmpfs is still mounted");
    assert.ok(out.stdout.includes('[reset] Unmounting mounted directories in "/var/lib/kubelet"'));
    assert.deepEqual([...(await snapshot(`${node.root}/var/lib/kubelet`)).keys()], []);
  } finally {
    await new Deno.Command("umount", { args: [mnt] }).output().catch(() => {});
    await node.cleanup();
  }
});

Deno.test("DenoNodeHost: realDir, mountPoints and removeFile stay inside the root", async () => {
  const node = await initNode();
  try {
    const host = new DenoNodeHost({ root: node.root });
    assert.equal(await host.realDir("/var/lib/kubelet"), "/var/lib/kubelet");
    await Deno.rename(`${node.root}/var/lib/kubelet`, `${node.root}/var/lib/kubelet-real`);
    await Deno.symlink("/var/lib/kubelet-real", `${node.root}/var/lib/kubelet`);
    assert.equal(await host.realDir("/var/lib/kubelet"), "/var/lib/kubelet-real");
    // A link out of the root resolves inside it (as under chroot): there it does not exist.
    await Deno.remove(`${node.root}/var/lib/kubelet`);
    await Deno.symlink(node.outside, `${node.root}/var/lib/kubelet`);
    await assert.rejects(() => host.realDir("/var/lib/kubelet"), /no such file or directory/);
    await Deno.mkdir(`${node.root}${node.outside}`, { recursive: true });
    assert.equal(await host.realDir("/var/lib/kubelet"), node.outside);
    await assert.rejects(
      () => host.realDir("/nope"),
      /^Error: lstat \/nope: no such file or directory$/,
    );

    // removeFile unlinks a symlinked kubeconfig, leaving its target
    await Deno.remove(`${node.root}/etc/kubernetes/admin.conf`);
    await Deno.symlink(`${node.outside}/precious.txt`, `${node.root}/etc/kubernetes/admin.conf`);
    await host.removeFile("/etc/kubernetes/admin.conf");
    await host.removeFile("/etc/kubernetes/missing.conf");
    assert.equal(await Deno.readTextFile(`${node.outside}/precious.txt`), "must survive");
    await assert.rejects(() => Deno.lstat(`${node.root}/etc/kubernetes/admin.conf`));

    // ensureDir follows a symlink inside the root, never out of it (join's etcd data dir)
    await Deno.symlink(node.outside, `${node.root}/var/lib/etcd-link`);
    await host.ensureDir("/var/lib/etcd-link/member", 0o700);
    assert.ok((await Deno.stat(`${node.root}${node.outside}/member`)).isDirectory);
    await assert.rejects(() => Deno.stat(`${node.outside}/member`), Deno.errors.NotFound);

    // mount points are mapped into node paths; others are dropped
    const table = `${node.root}/mounts`;
    await Deno.writeTextFile(
      table,
      `proc /proc proc rw 0 0\ntmpfs ${node.root}/var/lib/kubelet/pods/a\\040b tmpfs rw 0 0\n`,
    );
    const withTable = new DenoNodeHost({ root: node.root, mountsFile: table });
    assert.deepEqual(await withTable.mountPoints(), ["/var/lib/kubelet/pods/a b"]);
  } finally {
    await node.cleanup();
  }
});

Deno.test("cleanDir cannot be raced out of the root by swapping a directory for a symlink", async () => {
  // A race may miss its window in one round; five rounds of 400 files found it every time
  // against a path-by-path walk.
  for (let round = 0; round < 5; round++) {
    const node = await initNode();
    const files = 400;
    const victim = `${node.root}/var/lib/kubelet/pods/p9/volumes/victim`;
    const swap = `${node.root}/var/lib/swap`; // beside the cleaned directory
    const target = `${node.outside}/target`;
    try {
      await Deno.mkdir(victim, { recursive: true });
      await Deno.mkdir(target);
      for (let i = 0; i < files; i++) {
        await Deno.writeTextFile(`${victim}/f${i}`, "inside");
        await Deno.writeTextFile(`${target}/f${i}`, "outside");
      }
      await Deno.symlink(target, swap);
      const racer = await startSwapRacer(victim, swap, target);
      let error: unknown;
      try {
        await new DenoNodeHost({ root: node.root }).cleanDir("/var/lib/kubelet");
      } catch (e) {
        error = e; // a raced removal may report what moved under it; it must not leave the root
      } finally {
        await racer.stop();
      }
      const left = [...Deno.readDirSync(target)].length;
      assert.equal(
        left,
        files,
        `round ${round}: ${files - left} files removed outside the root (${error})`,
      );
      assert.ok(racer.flips() >= 50);
    } finally {
      await node.cleanup();
    }
  }
});

Deno.test("cleanDir never removes through a mount point, bind mounts included (root)", async () => {
  const node = await initNode();
  // A bind mount of a directory of the same file system: the same st_dev as its parent.
  const mnt = `${node.root}/var/lib/kubelet/pods/p3/volumes/kubernetes.io~host-path/data`;
  try {
    await mount(["--bind", `${node.outside}/subdir`], mnt);
    const host = new DenoNodeHost({ root: node.root });
    const real = await Deno.realPath(node.root);
    await assert.rejects(
      () => host.cleanDir("/var/lib/kubelet"),
      (e: Error) => {
        assert.equal(
          e.message,
          `${real}/var/lib/kubelet/pods/p3/volumes/kubernetes.io~host-path/data is on another file system (still mounted?); not removing ${real}/var/lib/kubelet/pods`,
        );
        return true;
      },
    );
    assert.equal(await Deno.readTextFile(`${node.outside}/subdir/also.txt`), "must survive too");
    // everything else in the directory went
    assert.deepEqual([...Deno.readDirSync(`${node.root}/var/lib/kubelet`)].map((e) => e.name), [
      "pods",
    ]);
    // removeFile refuses the same way, naming the mount point itself
    await assert.rejects(
      () => host.removeFile("/var/lib/kubelet/pods/p3/volumes/kubernetes.io~host-path/data"),
      /host-path\/data is on another file system \(still mounted\?\); not removing it$/,
    );
    assert.equal(await Deno.readTextFile(`${node.outside}/subdir/also.txt`), "must survive too");
  } finally {
    await new Deno.Command("umount", { args: [mnt] }).output().catch(() => {});
    await node.cleanup();
  }
});

Deno.test("cleanDir and removeFile consult the mount table (escaped paths)", async () => {
  const node = await initNode();
  try {
    const real = await Deno.realPath(node.root);
    await Deno.mkdir(`${node.root}/var/lib/kubelet/pods/a b/vol`, { recursive: true });
    await Deno.writeTextFile(`${node.root}/var/lib/kubelet/pods/a b/vol/kept`, "x");
    const table = `${node.outside}/mounts`;
    await Deno.writeTextFile(
      table,
      `proc /proc proc rw 0 0\ntmpfs ${real}/var/lib/kubelet/pods/a\\040b/vol tmpfs rw 0 0\n`,
    );
    const host = new DenoNodeHost({ root: node.root, mountsFile: table });
    await assert.rejects(
      () => host.cleanDir("/var/lib/kubelet"),
      /pods\/a b\/vol is on another file system \(still mounted\?\); not removing \S+\/var\/lib\/kubelet\/pods$/,
    );
    await assert.rejects(() => host.removeFile("/var/lib/kubelet/pods/a b"), /not removing/);
    assert.equal(await Deno.readTextFile(`${node.root}/var/lib/kubelet/pods/a b/vol/kept`), "x");
    // a mount point beside the entry, sharing a prefix of its name, does not count
    await Deno.mkdir(`${node.root}/var/lib/kubelet/pods/a`, { recursive: true });
    await host.removeFile("/var/lib/kubelet/pods/a");
    await assert.rejects(() => Deno.lstat(`${node.root}/var/lib/kubelet/pods/a`));
  } finally {
    await node.cleanup();
  }
});

/** A root holding an etcd backup, and an outside directory the tests point links at. */
async function backupNode(): Promise<Node> {
  const node = await initNode();
  await write(node.root, "/backup/etcd/member/snap/db", "backup data");
  await Deno.chmod(`${node.root}/backup/etcd/member/snap/db`, 0o600);
  await Deno.mkdir(`${node.outside}/etcd`);
  return node;
}

Deno.test("copyTree into a symlinked destination copies into the directory it names inside the root", async () => {
  const node = await backupNode();
  try {
    const host = new DenoNodeHost({ root: node.root });
    // a link to a data directory elsewhere in the root: the data goes there
    await Deno.rename(`${node.root}/var/lib/etcd`, `${node.root}/var/lib/etcd-data`);
    await Deno.symlink("/var/lib/etcd-data", `${node.root}/var/lib/etcd`);
    await host.copyTree("/backup/etcd", "/var/lib/etcd");
    assert.equal(
      await Deno.readTextFile(`${node.root}/var/lib/etcd-data/member/snap/db`),
      "backup data",
    );
    // a link to a host path (as on the machine the root was prepared for): inside the root
    await Deno.remove(`${node.root}/var/lib/etcd`);
    await Deno.symlink(`${node.outside}/etcd`, `${node.root}/var/lib/etcd`);
    await host.copyTree("/backup/etcd", "/var/lib/etcd");
    assert.deepEqual([...Deno.readDirSync(`${node.outside}/etcd`)], []);
    const copied = `${node.root}${node.outside}/etcd/member/snap/db`;
    assert.equal(await Deno.readTextFile(copied), "backup data");
    assert.equal((await Deno.stat(copied)).mode! & 0o777, 0o600);
    assert.ok((await Deno.lstat(`${node.root}/var/lib/etcd`)).isSymlink, "the link stays");
    // a relative link climbing out resolves inside the root too
    await Deno.remove(`${node.root}/var/lib/etcd`);
    await Deno.symlink(`../../../../../../..${node.outside}/etcd`, `${node.root}/var/lib/etcd`);
    await host.copyTree("/backup/etcd", "/var/lib/etcd");
    assert.deepEqual([...Deno.readDirSync(`${node.outside}/etcd`)], []);
  } finally {
    await node.cleanup();
  }
});

Deno.test("copyTree of a symlinked source copies the tree it names (an etcd backup holds the data), so upgrade's rollback (empty, then copy back) restores it", async () => {
  const node = await backupNode();
  try {
    const host = new DenoNodeHost({ root: node.root });
    // /var/lib/etcd -> /data/etcd (absolute: resolved inside the root), holding etcd's data
    await write(node.root, "/data/etcd/member/snap/db", "live data");
    await Deno.remove(`${node.root}/var/lib/etcd`, { recursive: true });
    await Deno.symlink("/data/etcd", `${node.root}/var/lib/etcd`);
    // upgrade's backup, then a failed upgrade's rollback
    await host.copyTree("/var/lib/etcd", "/etc/kubernetes/tmp/backup-etcd/etcd");
    const backup = `${node.root}/etc/kubernetes/tmp/backup-etcd/etcd`;
    assert.ok(!(await Deno.lstat(backup)).isSymlink, "the backup is a directory, not a link");
    assert.equal(await Deno.readTextFile(`${backup}/member/snap/db`), "live data");
    await Deno.writeTextFile(`${node.root}/data/etcd/member/snap/db`, "written by a broken etcd");
    await host.cleanDir("/var/lib/etcd");
    await host.copyTree("/etc/kubernetes/tmp/backup-etcd/etcd", "/var/lib/etcd");
    assert.equal(await Deno.readTextFile(`${node.root}/data/etcd/member/snap/db`), "live data");
    assert.ok((await Deno.lstat(`${node.root}/var/lib/etcd`)).isSymlink, "the link stays");
    // a source link pointing out of the root is followed inside it: nothing outside is read
    await Deno.writeTextFile(`${node.outside}/etcd/secret`, "outside");
    await Deno.symlink(`${node.outside}/etcd`, `${node.root}/etc/kubernetes/tmp/out`);
    await assert.rejects(() =>
      host.copyTree("/etc/kubernetes/tmp/out", "/etc/kubernetes/tmp/copy")
    );
    assert.equal(
      await Deno.lstat(`${node.root}/etc/kubernetes/tmp/copy`).then(() => true, () => false),
      false,
    );
  } finally {
    await node.cleanup();
  }
});

Deno.test("copyTree of a symlinked source with root / (the running machine) copies the tree it names too", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const host = new DenoNodeHost({ root: "/" });
    await Deno.mkdir(`${dir}/data/member`, { recursive: true });
    await Deno.writeTextFile(`${dir}/data/member/db`, "live data");
    await Deno.symlink(`${dir}/data`, `${dir}/etcd`);
    await host.copyTree(`${dir}/etcd`, `${dir}/backup/etcd`);
    assert.ok(!(await Deno.lstat(`${dir}/backup/etcd`)).isSymlink, "a directory, not a link");
    assert.equal(await Deno.readTextFile(`${dir}/backup/etcd/member/db`), "live data");
    await Deno.writeTextFile(`${dir}/data/member/db`, "written by a broken etcd");
    await host.cleanDir(`${dir}/etcd`);
    await host.copyTree(`${dir}/backup/etcd`, `${dir}/etcd`);
    assert.equal(await Deno.readTextFile(`${dir}/data/member/db`), "live data");
    assert.ok((await Deno.lstat(`${dir}/etcd`)).isSymlink, "the link stays");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("copyTree replaces symlinks inside the destination tree, never writing through them", async () => {
  const node = await backupNode();
  try {
    const host = new DenoNodeHost({ root: node.root });
    await Deno.remove(`${node.root}/var/lib/etcd/member`, { recursive: true });
    await Deno.symlink(`${node.outside}/etcd`, `${node.root}/var/lib/etcd/member`);
    await Deno.mkdir(`${node.outside}/etcd/snap`);
    await Deno.symlink(`${node.outside}/precious.txt`, `${node.outside}/etcd/snap/db`);
    await host.copyTree("/backup/etcd", "/var/lib/etcd");
    assert.equal(await Deno.readTextFile(`${node.outside}/precious.txt`), "must survive");
    assert.deepEqual([...Deno.readDirSync(`${node.outside}/etcd`)].map((e) => e.name), ["snap"]);
    assert.ok((await Deno.lstat(`${node.outside}/etcd/snap/db`)).isSymlink);
    assert.ok((await Deno.lstat(`${node.root}/var/lib/etcd/member`)).isDirectory);
    assert.equal(
      await Deno.readTextFile(`${node.root}/var/lib/etcd/member/snap/db`),
      "backup data",
    );
    // a FIFO in the source is refused by name, not read (a read would wait forever)
    const fifo = `${node.root}/backup/etcd/member/fifo`;
    assert.equal((await new Deno.Command("mkfifo", { args: [fifo] }).output()).code, 0);
    await assert.rejects(
      () => host.copyTree("/backup/etcd", "/var/lib/etcd"),
      /backup\/etcd\/member\/fifo is a FIFO, not a regular file$/,
    );
  } finally {
    await node.cleanup();
  }
});

Deno.test("moveFile replaces a symlinked destination, across file systems too (root)", async () => {
  const node = await backupNode();
  const tmpfs = `${node.root}/etc/kubernetes/tmp`;
  try {
    await mount(["-t", "tmpfs", "tmpfs"], tmpfs);
    const host = new DenoNodeHost({ root: node.root });
    const manifest = `${node.root}/etc/kubernetes/manifests/etcd.yaml`;
    for (const across of [false, true]) {
      // rename(2) semantics: the link at the destination is replaced, its target untouched
      const from = across ? "/etc/kubernetes/tmp/etcd.yaml" : "/etc/kubernetes/etcd.yaml";
      await Deno.writeTextFile(`${node.root}${from}`, `new ${across}`, { mode: 0o600 });
      await Deno.remove(manifest);
      await Deno.symlink(`${node.outside}/precious.txt`, manifest);
      await host.moveFile(from, "/etc/kubernetes/manifests/etcd.yaml");
      assert.equal(await Deno.readTextFile(`${node.outside}/precious.txt`), "must survive");
      assert.ok((await Deno.lstat(manifest)).isFile, `across=${across}`);
      assert.equal(await Deno.readTextFile(manifest), `new ${across}`);
      assert.equal((await Deno.stat(manifest)).mode! & 0o777, 0o600);
      await assert.rejects(() => Deno.lstat(`${node.root}${from}`), Deno.errors.NotFound);
    }
    // a directory moved across file systems onto a link to a directory outside: not through it
    await write(node.root, "/etc/kubernetes/tmp/dir/file", "x");
    await Deno.symlink(`${node.outside}/etcd`, `${node.root}/var/lib/etcd-link`);
    await host.moveFile("/etc/kubernetes/tmp/dir", "/var/lib/etcd-link");
    assert.deepEqual([...Deno.readDirSync(`${node.outside}/etcd`)], []);
    assert.equal(await Deno.readTextFile(`${node.root}/var/lib/etcd-link/file`), "x");
  } finally {
    await new Deno.Command("umount", { args: [tmpfs] }).output().catch(() => {});
    await node.cleanup();
  }
});
