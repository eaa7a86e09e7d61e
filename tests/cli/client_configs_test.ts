// The kubeadm configurations the clients in the field write, read by our kubeadm as upstream
// kubeadm v1.37.2 reads them (no cluster needed; the real-node tests run them: tests/e2e/kind_test.ts,
// cluster_api_test.ts):
// - kind's (v0.32.0, its own code): one file per node holding a ClusterConfiguration,
//   InitConfiguration, JoinConfiguration, KubeletConfiguration and KubeProxyConfiguration, with
//   kind's `scheduler.extraArgs: null`, an empty `runtime-config` and the `skipPhases`;
// - Cluster API's (v1.14.0, its own code): `/run/kubeadm/kubeadm.yaml` and
//   `kubeadm-join-config.yaml` of its user-data, rendered by cloud-init's jinja for the machine.
// Each file goes to `config validate` of both: what upstream accepts we accept, printing the same
// output and upstream's warnings; what upstream refuses we refuse, with upstream's words for it.
// The clients' inputs vary the way their users vary them (kind's node data and
// `kubeadmConfigPatches`, a KubeadmConfigSpec and the Cluster's fields).
import assert from "node:assert/strict";
import { parse } from "yaml";
import { run } from "../support/commands.ts";
import { cloudInitSchema, renderUserData } from "../support/cloud_init.ts";
import {
  type CapiCluster,
  capiInitUserData,
  capiJoinUserData,
  capiToken,
} from "../support/cluster_api.ts";
import { capiSpec } from "../support/fleet.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import {
  KIND_MACHINE_PATCHES,
  kindConfig,
  type KindConfigData,
  kindDefaults,
} from "../support/kind.ts";
import { repoRoot } from "../support/repo.ts";

const ours = `${repoRoot}/scripts/kubeadm`;

/**
 * What both do with a file: accept it, or refuse it with an error containing upstream's words;
 * or, where kubeadm-ts validates more than upstream (README, Differences from upstream),
 * upstream accepts it and ours refuses it with that error.
 */
type Verdict = "accepted" | { refused: string } | { oursRefuses: string };

/** A klog line's header (`W1129 07:05:57.741071   15897 file.go:127] `). */
const KLOG_HEADER = /^[IWEF]\d{4} [\d:.]+\s+\d+ [\w.-]+:\d+\] /;

/**
 * Upstream's warnings on stderr, without klog's header. Left out: `Ignored configuration
 * document …`, which upstream's `config validate` prints for each document the loader of one
 * kind skips and ours does not (it validates every kind of the file).
 */
function upstreamWarnings(stderr: string): string[] {
  return stderr.split("\n").filter((l) => KLOG_HEADER.test(l))
    .map((l) => l.replace(KLOG_HEADER, ""))
    .filter((l) => !l.startsWith("[config] WARNING: Ignored configuration document"));
}

/** `config validate` of `config` by ours and by upstream: both come to `verdict`. */
async function validatesAsUpstream(what: string, config: string, verdict: Verdict) {
  const file = await Deno.makeTempFile({ prefix: "kts-client-config-", suffix: ".yaml" });
  try {
    await Deno.writeTextFile(file, config);
    const [upstream, mine] = await Promise.all([
      run([`${await k8sBinDir()}/kubeadm`, "config", "validate", "--config", file]),
      run([ours, "config", "validate", "--config", file]),
    ]);
    if (verdict === "accepted") {
      assert.equal(upstream.code, 0, `${what}: upstream: ${upstream.stderr}`);
      assert.equal(mine.code, 0, `${what}: ours: ${mine.stderr}`);
      assert.equal(mine.stdout, upstream.stdout, what);
      for (const w of upstreamWarnings(upstream.stderr)) {
        assert.ok(mine.stderr.includes(w), `${what}: upstream warns ${w}\nours: ${mine.stderr}`);
      }
    } else if ("oursRefuses" in verdict) {
      assert.equal(upstream.code, 0, `${what}: upstream: ${upstream.stderr}`);
      assert.equal(mine.code, 3, `${what}: ours (a validation error): ${mine.stderr}`);
      assert.ok(mine.stderr.includes(verdict.oursRefuses), `${what}: ours: ${mine.stderr}`);
    } else {
      assert.equal(upstream.code, 1, `${what}: upstream accepted it: ${upstream.stderr}`);
      assert.match(upstream.stderr, /^error: /m, what);
      assert.ok(upstream.stderr.includes(verdict.refused), `${what}: upstream: ${upstream.stderr}`);
      assert.equal(mine.code, 3, `${what}: ours (a validation error): ${mine.stderr}`);
      assert.ok(mine.stderr.includes(verdict.refused), `${what}: ours: ${mine.stderr}`);
    }
  } finally {
    await Deno.remove(file);
  }
}

const KIND_ENDPOINT = "kind-control-plane:6443";
const kindNode = (name: string, address: string, controlPlane: boolean) =>
  kindDefaults({ name, address, controlPlane }, KIND_ENDPOINT);

Deno.test("kind's configuration for v1.37 (control plane, second control plane, worker)", async () => {
  const configs = {
    "kind-control-plane": await kindConfig(kindNode("kind-control-plane", "10.0.0.2", true)),
    "kind-control-plane2": await kindConfig(kindNode("kind-control-plane2", "10.0.0.3", true)),
    "kind-worker": await kindConfig(kindNode("kind-worker", "10.0.0.4", false)),
  };
  for (const [name, config] of Object.entries(configs)) {
    await validatesAsUpstream(name, config, "accepted");
  }
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

/** A `kubeadmConfigPatches` entry of kind's cluster configuration. */
const clusterPatch = (body: string) =>
  `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n${body}`;

Deno.test("kind's configuration as its users vary it: accepted and refused as upstream", async () => {
  const cp = (data: Partial<KindConfigData>) => ({
    ...kindNode("kind-control-plane", "10.0.0.2", true),
    ...data,
  });
  const cases: [string, Partial<KindConfigData>, readonly string[], Verdict][] = [
    // kind passes node names and the kube-proxy mode through; kubeadm validates neither.
    [
      "a node name with capitals",
      { NodeName: "Kind_Control_Plane" },
      KIND_MACHINE_PATCHES,
      "accepted",
    ],
    ["an unknown kube-proxy mode", { KubeProxyMode: "bogus" }, KIND_MACHINE_PATCHES, "accepted"],
    ["a kubelet clusterDNS patched off the service subnet", {}, [
      `${KIND_MACHINE_PATCHES[0]}clusterDNS: [10.96.0.53]\n`,
    ], "accepted"],
    [
      "a v1.35 node image (kind writes v1beta3)",
      { KubernetesVersion: "v1.35.0" },
      KIND_MACHINE_PATCHES,
      {
        refused: `uses an old API spec: "kubeadm.k8s.io/v1beta3"`,
      },
    ],
    ["a malformed token", { Token: "abcdef.short" }, KIND_MACHINE_PATCHES, {
      refused: "bootstrap token",
    }],
    ["a pod subnet that does not parse", { PodSubnet: "10.244.0.0/33" }, KIND_MACHINE_PATCHES, {
      refused: `networking.podSubnet: Invalid value: "10.244.0.0/33": couldn't parse subnet`,
    }],
    [
      "an endpoint without a port number",
      { ControlPlaneEndpoint: "kind-control-plane:abc" },
      KIND_MACHINE_PATCHES,
      {
        refused:
          "hostport kind-control-plane:abc: port abc must be a valid number between 1 and 65535",
      },
    ],
    ["a patch with an unknown field", {}, [
      ...KIND_MACHINE_PATCHES,
      clusterPatch("networking:\n  bogusField: 1\n"),
    ], { refused: `strict decoding error: unknown field "networking.bogusField"` }],
    ["a patch turning a removed feature gate on", {}, [
      ...KIND_MACHINE_PATCHES,
      clusterPatch("featureGates:\n  WaitForAllControlPlaneComponents: true\n"),
    ], { refused: "WaitForAllControlPlaneComponents is not a valid feature name" }],
  ];
  for (const [what, data, patches, verdict] of cases) {
    await validatesAsUpstream(what, await kindConfig(cp(data), patches), verdict);
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

const CAPI_CLUSTER: CapiCluster = {
  clusterName: "kts-capi",
  kubernetesVersion: "v1.37.2",
  controlPlaneEndpoint: "192.0.2.10:6443",
  podSubnet: "10.244.0.0/16",
};

Deno.test("Cluster API's kubeadm configuration files (init, control-plane join, worker join)", async () => {
  const spec = capiSpec();
  const init = await capiInitUserData(CAPI_CLUSTER, spec);
  const initFile = await capiKubeadmFile(init.userData, "cp1", "/run/kubeadm/kubeadm.yaml");
  assert.match(initFile, /name: 'cp1'\n/, "the jinja template rendered");
  assert.match(initFile, /taints: null/, "Cluster API's marshalling");
  await validatesAsUpstream("init", initFile, "accepted");
  assert.equal((await cloudInitSchema(init.userData)).code, 0);
  const { token } = await capiToken();
  for (const controlPlane of [true, false]) {
    const { userData } = await capiJoinUserData(CAPI_CLUSTER, spec, {
      controlPlane,
      certificates: init.certificates,
      token,
    });
    const file = await capiKubeadmFile(userData, "n2", "/run/kubeadm/kubeadm-join-config.yaml");
    assert.match(file, /caCertHashes:\n\s+- sha256:[0-9a-f]{64}\n/);
    await validatesAsUpstream(
      controlPlane ? "control-plane join" : "worker join",
      file,
      "accepted",
    );
    assert.equal((await cloudInitSchema(userData)).code, 0);
  }
});

/** The parts of a KubeadmConfigSpec (`capiSpec`) the cases vary. */
type Spec = {
  clusterConfiguration: Record<string, unknown>;
  initConfiguration: { nodeRegistration: Record<string, unknown> };
  joinConfiguration: { nodeRegistration: Record<string, unknown> };
};

Deno.test("Cluster API's files as its users vary them: accepted and refused as upstream", async () => {
  const cases: [string, Partial<CapiCluster>, (s: Spec) => void, Verdict][] = [
    [
      "a v1.38 control plane (one minor newer)",
      { kubernetesVersion: "v1.38.0" },
      () => {},
      "accepted",
    ],
    ["a CRI socket without a scheme", {}, (s) => {
      s.initConfiguration.nodeRegistration.criSocket = "run/containerd/containerd.sock";
    }, "accepted"],
    ["a v1.35 control plane", { kubernetesVersion: "v1.35.0" }, () => {}, {
      refused:
        "this version of kubeadm only supports deploying clusters with the control plane version >= 1.36.0. Current version: v1.35.0",
    }],
    ["a pod subnet that does not parse", { podSubnet: "10.244.0.0/33" }, () => {}, {
      refused: `networking.podSubnet: Invalid value: "10.244.0.0/33": couldn't parse subnet`,
    }],
    ["a service subnet too large", { serviceSubnet: "10.0.0.0/8" }, () => {}, {
      refused:
        `networking.serviceSubnet: Invalid value: "10.0.0.0/8": specified service subnet is too large`,
    }],
    ["an endpoint without a port number", { controlPlaneEndpoint: "192.0.2.10:abc" }, () => {}, {
      refused: "hostport 192.0.2.10:abc: port abc must be a valid number between 1 and 65535",
    }],
    ["a relative etcd data directory", {}, (s) => {
      s.clusterConfiguration = { etcd: { local: { dataDir: "var/lib/etcd" } } };
    }, { refused: `etcd.local.dataDir: Invalid value: "var/lib/etcd": path is not absolute` }],
    ["a removed feature gate", {}, (s) => {
      s.clusterConfiguration = { featureGates: { NodeLocalCRISocket: true } };
    }, {
      refused:
        `featureGates: Invalid value: {"NodeLocalCRISocket":true}: NodeLocalCRISocket is not a valid feature name.`,
    }],
  ];
  for (const [what, cluster, vary, verdict] of cases) {
    const spec = capiSpec() as Spec;
    vary(spec);
    const { userData } = await capiInitUserData({ ...CAPI_CLUSTER, ...cluster }, spec);
    const file = await capiKubeadmFile(userData, "cp1", "/run/kubeadm/kubeadm.yaml");
    await validatesAsUpstream(what, file, verdict);
  }
});

Deno.test("Cluster API's join with a taint key the API server refuses: refused before anything is written", async () => {
  // Upstream validates no taints: the API server refuses the Node once the join has started.
  const spec = capiSpec() as Spec;
  spec.joinConfiguration.nodeRegistration.taints = [{ key: "a b", effect: "NoSchedule" }];
  const init = await capiInitUserData(CAPI_CLUSTER, spec);
  const { token } = await capiToken();
  const { userData } = await capiJoinUserData(CAPI_CLUSTER, spec, {
    controlPlane: false,
    certificates: init.certificates,
    token,
  });
  const file = await capiKubeadmFile(userData, "n2", "/run/kubeadm/kubeadm-join-config.yaml");
  await validatesAsUpstream("a taint key with a space", file, {
    oursRefuses: `error: nodeRegistration.taints[0].key: Invalid value: "a b"`,
  });
});
