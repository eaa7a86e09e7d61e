// Golden comparison of `kubeadm config` with upstream kubeadm v1.37.2 (the binary scripts/k8s-bins
// builds): print *-defaults, images list in every format, migrate and validate run on the same
// input by both must print the same bytes.
import assert from "node:assert/strict";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { kubeadmLauncher, run, type RunResult } from "../support/commands.ts";

/** A generated bootstrap token (migrate creates one when the file has none). */
const TOKEN = /\b[a-z0-9]{6}\.[a-z0-9]{16}\b/g;

async function both(args: string[], opts: { normalise?: boolean } = {}) {
  const [ours, theirs] = await Promise.all([
    run([kubeadmLauncher(), ...args]),
    run([`${await k8sBinDir()}/kubeadm`, ...args]),
  ]);
  const norm = (r: RunResult) => opts.normalise ? r.stdout.replaceAll(TOKEN, "<token>") : r.stdout;
  return { ours, theirs, oursOut: norm(ours), theirsOut: norm(theirs) };
}

async function same(args: string[], opts: { normalise?: boolean } = {}): Promise<void> {
  const r = await both(args, opts);
  assert.equal(r.theirs.code, 0, `upstream ${args.join(" ")}: ${r.theirs.stderr}`);
  assert.equal(r.ours.code, 0, `ours ${args.join(" ")}: ${r.ours.stderr}`);
  assert.equal(r.oursOut, r.theirsOut, args.join(" "));
}

/** An experimental `kubeadm.k8s.io/v1` ClusterConfiguration with an argument's merge method. */
const v1Cluster = (mergeMethod: string) =>
  `apiVersion: kubeadm.k8s.io/v1
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
apiServer:
  extraArgs:
  - name: v
    value: "2"
    mergeMethod: ${mergeMethod}
`;

let scratch: Promise<string> | undefined;

/** Writes an input file in this test file's scratch directory (removed by the last test). */
async function file(name: string, text: string): Promise<string> {
  scratch ??= Deno.makeTempDir({ prefix: "kubeadm-ts-config-golden-" });
  const path = `${await scratch}/${name}`;
  await Deno.writeTextFile(path, text);
  return path;
}

Deno.test("config print: every kind's defaults, byte for byte", async () => {
  for (const kind of ["init", "join", "reset", "upgrade"]) {
    await same(["config", "print", `${kind}-defaults`]);
  }
  await same([
    "config",
    "print",
    "init-defaults",
    "--component-configs",
    "KubeletConfiguration,KubeProxyConfiguration",
  ]);
});

Deno.test("config images list: text, json, yaml and kyaml; flags, and a config whose values win", async () => {
  for (const version of ["v1.37.2", "v1.36.3"]) {
    for (const o of ["text", "json", "yaml", "kyaml"]) {
      await same(["config", "images", "list", "--kubernetes-version", version, "-o", o]);
    }
  }
  await same([
    "config",
    "images",
    "list",
    "--kubernetes-version=v1.37.2",
    "--image-repository=example.org/mirror",
  ]);
  const config = await file(
    "images.yaml",
    `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.36.3
imageRepository: example.org/mirror
dns:
  imageTag: v9.9.9
etcd:
  local:
    imageRepository: example.org/etcd
    imageTag: 3.5.0-0
proxy:
  disabled: true
`,
  );
  await same(["config", "images", "list", "--config", config, "--kubernetes-version", "v1.37.2"]);
});

Deno.test("config migrate: Upgrade, Reset and Join configurations, and experimental v1", async () => {
  const cases: Record<string, string> = {
    "upgrade.yaml": `apiVersion: kubeadm.k8s.io/v1beta4
kind: UpgradeConfiguration
apply:
  forceUpgrade: true
node:
  etcdUpgrade: false
`,
    "reset.yaml": `apiVersion: kubeadm.k8s.io/v1beta4
kind: ResetConfiguration
force: true
unmountFlags: [MNT_DETACH]
timeouts:
  discovery: 1m
`,
    "join.yaml": `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
nodeRegistration:
  name: Worker-1
  taints: []
discovery:
  bootstrapToken:
    apiServerEndpoint: 10.0.0.1:6443
    token: abcdef.0123456789abcdef
    caCertHashes: ["sha256:${"a".repeat(64)}"]
`,
  };
  for (const [name, text] of Object.entries(cases)) {
    await same(["config", "migrate", "--old-config", await file(name, text)]);
  }
  const v1 = await file(
    "v1.yaml",
    `apiVersion: kubeadm.k8s.io/v1
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 10.0.0.5
nodeRegistration:
  name: cp
---
${v1Cluster("append")}`,
  );
  await same(["config", "migrate", "--old-config", v1, "--allow-experimental-api"], {
    normalise: true,
  });
});

Deno.test("config validate: experimental v1 refused unless allowed, then checked", async () => {
  const v1 = (method: string) => file("v1.yaml", v1Cluster(method));
  const refused = await both(["config", "validate", "--config", await v1("append")]);
  assert.notEqual(refused.theirs.code, 0);
  assert.notEqual(refused.ours.code, 0);
  const message =
    'experimental API spec: "kubeadm.k8s.io/v1" (kind: "ClusterConfiguration") is not allowed. You can use the --allow-experimental-api flag if the command supports it.';
  assert.ok(refused.theirs.stderr.includes(message), refused.theirs.stderr);
  assert.ok(refused.ours.stderr.includes(message), refused.ours.stderr);

  await same(["config", "validate", "--config", await v1("append"), "--allow-experimental-api"]);

  const bad = await both([
    "config",
    "validate",
    "--config",
    await v1("sideways"),
    "--allow-experimental-api",
  ]);
  const detail =
    'apiServer.extraArgs: Invalid value: "index 0": argument has an invalid merge method';
  assert.ok(bad.theirs.stderr.includes(detail), bad.theirs.stderr);
  assert.ok(bad.ours.stderr.includes(detail), bad.ours.stderr);
  assert.notEqual(bad.ours.code, 0);

  const reset = await file(
    "reset.yaml",
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nunmountFlags: [MNT_LAZY]\n",
  );
  const flags = await both(["config", "validate", "--config", reset]);
  const unmount = 'unmountFlags: Invalid value: "index 0": unknown unmount flag MNT_LAZY';
  assert.ok(flags.theirs.stderr.includes(unmount), flags.theirs.stderr);
  assert.ok(flags.ours.stderr.includes(unmount), flags.ours.stderr);
  // The last test of this file: its scratch directory goes.
  if (scratch) await Deno.remove(await scratch, { recursive: true });
});
