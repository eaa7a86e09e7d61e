import assert from "node:assert/strict";
import { kubeadmLauncher, run } from "../support/commands.ts";

const OLD = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
`;

/** The migrated text with its generated bootstrap token masked (each run draws a new one). */
const masked = (text: string) => text.replace(/token: [a-z0-9]{6}\.[a-z0-9]{16}/, "token: <token>");

Deno.test("config migrate --new-config writes the file stdout would show: atomically, 0644, a relative path from the working directory, an existing file's mode kept", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/old.yaml`, OLD);
    const printed = await run([
      kubeadmLauncher(),
      "config",
      "migrate",
      "--old-config",
      `${dir}/old.yaml`,
    ]);
    assert.equal(printed.code, 0, printed.stderr);
    const q = (s: string) => `'${s.replaceAll("'", `'"'"'`)}'`;
    const migrate = `cd ${q(dir)} && ${
      q(kubeadmLauncher())
    } config migrate --old-config old.yaml --new-config new.yaml`;
    const r = await run(["sh", "-c", migrate]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
    assert.notEqual(masked(printed.stdout), printed.stdout, "the mask hides the generated token");
    assert.equal(masked(await Deno.readTextFile(`${dir}/new.yaml`)), masked(printed.stdout));
    assert.equal((await Deno.stat(`${dir}/new.yaml`)).mode! & 0o777, 0o644);
    // Rewritten in place of an existing file: its mode is the admin's, no temp file is left.
    await Deno.chmod(`${dir}/new.yaml`, 0o600);
    await Deno.writeTextFile(`${dir}/new.yaml`, "stale\n");
    const again = await run(["sh", "-c", migrate]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(masked(await Deno.readTextFile(`${dir}/new.yaml`)), masked(printed.stdout));
    assert.equal((await Deno.stat(`${dir}/new.yaml`)).mode! & 0o777, 0o600);
    const names = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    assert.deepEqual(names.sort(), ["new.yaml", "old.yaml"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config migrate --new-config writes where upstream's os.WriteFile writes: through a link to its file, into a device or a pipe, never replacing them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/old.yaml`, OLD);
    const migrate = (to: string) =>
      run([
        kubeadmLauncher(),
        "config",
        "migrate",
        "--old-config",
        `${dir}/old.yaml`,
        "--new-config",
        to,
      ]);
    // A relative link to a regular file: the file gets the text, the link stays a link.
    await Deno.writeTextFile(`${dir}/real.yaml`, "");
    await Deno.symlink("real.yaml", `${dir}/link.yaml`);
    const viaLink = await migrate(`${dir}/link.yaml`);
    assert.equal(viaLink.code, 0, viaLink.stderr);
    assert.ok((await Deno.lstat(`${dir}/link.yaml`)).isSymlink);
    assert.match(await Deno.readTextFile(`${dir}/real.yaml`), /kind: ClusterConfiguration/);
    // A character device (a private /dev/null): written into, still a device.
    const mknod = await run(["mknod", `${dir}/null`, "c", "1", "3"]);
    assert.equal(mknod.code, 0, mknod.stderr);
    const dev = await migrate(`${dir}/null`);
    assert.equal(dev.code, 0, dev.stderr);
    assert.ok((await Deno.stat(`${dir}/null`)).isCharDevice, "the device stays a device");
    // A link to the process's stdout (as /dev/stdout is): the text arrives on the pipe.
    await Deno.symlink("/proc/self/fd/1", `${dir}/stdout`);
    const piped = await migrate(`${dir}/stdout`);
    assert.equal(piped.code, 0, piped.stderr);
    assert.match(piped.stdout, /kind: ClusterConfiguration/);
    assert.ok((await Deno.lstat(`${dir}/stdout`)).isSymlink, "the link stays a link");
    // A missing directory fails as upstream's does, creating nothing.
    const missing = await migrate(`${dir}/nope/new.yaml`);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /failed to write the new configuration to the file/);
    assert.equal(await Deno.stat(`${dir}/nope`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
