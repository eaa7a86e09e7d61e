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
