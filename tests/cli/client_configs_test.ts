// The kubeadm configurations the clients in the field write, read by our kubeadm as upstream
// kubeadm v1.37.2 reads them (no cluster needed; the real-node tests run them: tests/e2e/kind_test.ts,
// cluster_api_test.ts):
// - kind's (v0.32.0, its own code): one file per node holding a ClusterConfiguration,
//   InitConfiguration, JoinConfiguration, KubeletConfiguration and KubeProxyConfiguration, with
//   kind's `scheduler.extraArgs: null`, an empty `runtime-config` and the `skipPhases`;
// - Cluster API's (v1.14.0, its own code): `/run/kubeadm/kubeadm.yaml` and
//   `kubeadm-join-config.yaml` of its user-data, rendered by cloud-init's jinja for the machine.
import assert from "node:assert/strict";
import { parse } from "yaml";
import { run } from "../support/commands.ts";
import { cloudInitSchema, renderUserData } from "../support/cloud_init.ts";
import { capiInitUserData, capiJoinUserData, capiToken } from "../support/cluster_api.ts";
import { capiSpec } from "../support/fleet.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { kindConfig, kindDefaults } from "../support/kind.ts";
import { repoRoot } from "../support/repo.ts";

const ours = `${repoRoot}/scripts/kubeadm`;

/** `config validate` of `config` by ours and by upstream: both accept it. */
async function validatesAsUpstream(what: string, config: string): Promise<void> {
  const file = await Deno.makeTempFile({ prefix: "kts-client-config-", suffix: ".yaml" });
  try {
    await Deno.writeTextFile(file, config);
    const upstream = await run([
      `${await k8sBinDir()}/kubeadm`,
      "config",
      "validate",
      "--config",
      file,
    ]);
    const mine = await run([ours, "config", "validate", "--config", file]);
    assert.equal(upstream.code, 0, `${what}: upstream: ${upstream.stderr}`);
    assert.equal(mine.code, 0, `${what}: ours: ${mine.stderr}`);
    assert.equal(mine.stdout, upstream.stdout, what);
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("kind's configuration for v1.37 (control plane, second control plane, worker)", async () => {
  const endpoint = "kind-control-plane:6443";
  const configs = {
    "kind-control-plane": await kindConfig(
      kindDefaults(
        { name: "kind-control-plane", address: "10.0.0.2", controlPlane: true },
        endpoint,
      ),
    ),
    "kind-control-plane2": await kindConfig(
      kindDefaults(
        { name: "kind-control-plane2", address: "10.0.0.3", controlPlane: true },
        endpoint,
      ),
    ),
    "kind-worker": await kindConfig(
      kindDefaults({ name: "kind-worker", address: "10.0.0.4", controlPlane: false }, endpoint),
    ),
  };
  for (const [name, config] of Object.entries(configs)) await validatesAsUpstream(name, config);
  const cp = configs["kind-control-plane"];
  assert.ok(cp.includes("\nscheduler:\n  extraArgs: null\n"), "kind's own template output");
  assert.match(cp, /unsafeSkipCAVerification: true/);

  // kind's init command line, as a dry run: every phase but preflight, the token withheld.
  const dir = await Deno.makeTempDir({ prefix: "kts-kind-dry-" });
  try {
    await Deno.writeTextFile(`${dir}/kubeadm.conf`, cp);
    await Deno.mkdir(`${dir}/root`);
    const init = await run([
      ours,
      "init",
      `--config=${dir}/kubeadm.conf`,
      "--skip-token-print",
      "--v=6",
      "--dry-run",
      "--rootfs",
      `${dir}/root`,
    ], { env: { KUBEADM_INIT_DRYRUN_DIR: `${dir}/out` } });
    assert.equal(init.code, 0, init.stderr);
    assert.doesNotMatch(init.stdout, /\[preflight\]/);
    assert.match(init.stdout, /kubeadm join kind-control-plane:6443 --token <value withheld>/);
    assert.doesNotMatch(init.stdout + init.stderr, /0123456789abcdef/);
    assert.match(
      init.stderr,
      /Ignored configuration document with GroupVersionKind kubeadm\.k8s\.io\/v1beta4, Kind=JoinConfiguration/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The kubeadm configuration file of Cluster API's user-data, rendered for machine `name`. */
async function capiKubeadmFile(userData: string, name: string, path: string): Promise<string> {
  const rendered = await renderUserData(userData, {
    instanceId: `iid-${name}`,
    localHostname: name,
  });
  const files = (parse(rendered) as { write_files: { path: string; content: string }[] })
    .write_files;
  const file = files.find((f) => f.path === path);
  assert.ok(file, `${path} in ${files.map((f) => f.path).join(", ")}`);
  return file.content;
}

Deno.test("Cluster API's kubeadm configuration files (init, control-plane join, worker join)", async () => {
  const cluster = {
    clusterName: "kts-capi",
    kubernetesVersion: "v1.37.2",
    controlPlaneEndpoint: "192.0.2.10:6443",
    podSubnet: "10.244.0.0/16",
  };
  const spec = capiSpec();
  const init = await capiInitUserData(cluster, spec);
  const initFile = await capiKubeadmFile(init.userData, "cp1", "/run/kubeadm/kubeadm.yaml");
  assert.match(initFile, /name: 'cp1'\n/, "the jinja template rendered");
  assert.match(initFile, /taints: null/, "Cluster API's marshalling");
  await validatesAsUpstream("init", initFile);
  assert.equal((await cloudInitSchema(init.userData)).code, 0);
  const { token } = await capiToken();
  for (const controlPlane of [true, false]) {
    const { userData } = await capiJoinUserData(cluster, spec, {
      controlPlane,
      certificates: init.certificates,
      token,
    });
    const file = await capiKubeadmFile(userData, "n2", "/run/kubeadm/kubeadm-join-config.yaml");
    assert.match(file, /caCertHashes:\n\s+- sha256:[0-9a-f]{64}\n/);
    await validatesAsUpstream(controlPlane ? "control-plane join" : "worker join", file);
    assert.equal((await cloudInitSchema(userData)).code, 0);
  }
});
