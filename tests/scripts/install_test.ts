// scripts/install: the installed kubeadm runs on a machine without this repository and without a
// network (a mount namespace hiding the checkout, an empty HOME, no network interfaces but
// loopback), prints what scripts/kubeadm prints, loads the CommonJS package (commander) and the
// Node built-ins the CRI client calls a CRI server with (node:http2) on use, and a second install
// changes nothing.
import assert from "node:assert/strict";
import { run, type RunResult } from "../support/commands.ts";
import { testInitConfigYaml } from "../support/config.ts";
import { startFakeCriServer } from "../support/fake_cri_server.ts";
import { installKubeadm } from "../support/installed_kubeadm.ts";
import { repoRoot } from "../support/repo.ts";

const CONFIG = testInitConfigYaml({ name: "cp1", address: "192.0.2.10" });

/**
 * Runs `kubeadm args…` in a new mount and network namespace where the repository is an empty
 * tmpfs and HOME an empty directory (no Deno cache, no npm cache).
 */
async function isolated(kubeadm: string, args: string[], home: string): Promise<RunResult> {
  const script = [
    "set -e",
    `mount -t tmpfs tmpfs "$REPO"`,
    `[ -z "$(ls -A "$REPO")" ]`,
    `exec env -i HOME="$HOME_DIR" PATH=/usr/bin:/bin TMPDIR="$HOME_DIR" "$@"`,
  ].join("\n");
  return await run([
    "unshare",
    "--mount",
    "--net",
    "--",
    "sh",
    "-c",
    script,
    "sh",
    kubeadm,
    ...args,
  ], {
    env: { REPO: repoRoot, HOME_DIR: home },
  });
}

Deno.test("the installed kubeadm runs without the repository, caches or network, as the launcher", async () => {
  const prefix = await Deno.makeTempDir({ prefix: "kts-install-" });
  const home = await Deno.makeTempDir({ prefix: "kts-install-home-" });
  try {
    const kubeadm = await installKubeadm(prefix);
    assert.equal(kubeadm, `${prefix}/bin/kubeadm`);
    const [id, ...others] = [...Deno.readDirSync(`${prefix}/lib/kubeadm-ts`)].map((e) => e.name);
    assert.deepEqual(others, [], "one installed version");
    const lib = `${prefix}/lib/kubeadm-ts/${id}`;
    for (const f of ["deno", "cli/main.js", "v8-flags", "launcher-permissions"]) {
      await Deno.stat(`${lib}/${f}`);
    }
    const launcher = `${repoRoot}/scripts/kubeadm`;
    await Deno.writeTextFile(`${home}/kubeadm.yaml`, CONFIG);

    const same = async (args: string[]) => {
      const ours = await isolated(kubeadm, args, home);
      const theirs = await run([launcher, ...args]);
      assert.equal(ours.code, theirs.code, `${args.join(" ")}: ${ours.stderr}`);
      assert.equal(ours.stdout, theirs.stdout, args.join(" "));
      return ours;
    };
    assert.equal((await same(["version", "-o", "short"])).stdout, "v1.37.2\n");
    await same(["config", "print", "init-defaults"]);
    // commander (CommonJS) for the root's help and `upgrade`.
    assert.match((await same(["--help"])).stdout, /^kubeadm: easily bootstrap/);
    await same(["upgrade", "plan", "--help"]);
    // The CRI client (node:http2, node:net) calls the runtime: its answer comes back.
    const cri = await startFakeCriServer(() => ({ status: 5, message: "no such image here" }));
    try {
      const pull = await isolated(
        kubeadm,
        ["config", "images", "pull", "--cri-socket", cri.endpoint],
        home,
      );
      assert.equal(pull.code, 1);
      assert.match(pull.stderr, /rpc error: code = NotFound desc = no such image here/);
      assert.ok(cri.calls.includes("/runtime.v1.ImageService/PullImage"), cri.calls.join());
    } finally {
      await cri.close();
    }

    // `--v` lines name our modules and lines (the bundle's source maps), as the launcher's.
    const klogFiles = (r: RunResult) =>
      [...r.stderr.matchAll(/^I\d{4} [\d:.]+ +\d+ (\S+\]) /gm)].map((m) => m[1]);
    const verbose = [
      "init",
      "phase",
      "kubeconfig",
      "admin",
      "--dry-run",
      "--config",
      `${home}/kubeadm.yaml`,
      "--v=6",
    ];
    const files = klogFiles(await isolated(kubeadm, verbose, home));
    assert.ok(files.length > 0 && files.every((f) => /^[a-z_]+\.ts:\d+\]$/.test(f)), files.join());
    assert.deepEqual(files, klogFiles(await run([launcher, ...verbose])));

    // A whole dry run: every phase, nothing written to the (empty) root.
    const root = `${home}/root`;
    await Deno.mkdir(root);
    const init = await isolated(
      kubeadm,
      ["init", "--dry-run", "--config", `${home}/kubeadm.yaml`, "--rootfs", root],
      home,
    );
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /Your Kubernetes control-plane has initialized successfully!/);
    assert.deepEqual([...Deno.readDirSync(root)], []);

    // Installing the same sources again keeps the same version and launcher.
    const before = await Deno.readTextFile(kubeadm);
    await installKubeadm(prefix);
    assert.equal(await Deno.readTextFile(kubeadm), before);
    assert.deepEqual([...Deno.readDirSync(`${prefix}/lib/kubeadm-ts`)].map((e) => e.name), [id]);
  } finally {
    await Deno.remove(prefix, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("scripts/install refuses an unknown argument and an empty prefix", async () => {
  const bad = await run([`${repoRoot}/scripts/install`, "--prefx", "/tmp/x"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /unknown argument --prefx/);
  const empty = await run([`${repoRoot}/scripts/install`, "--prefix="]);
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /--prefix is empty/);
});
