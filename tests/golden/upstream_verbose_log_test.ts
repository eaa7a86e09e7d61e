// Golden comparison of `--v=N` log lines: upstream kubeadm v1.37.2 (built by scripts/k8s-bins)
// and ours run the same offline commands (the token commands against the fake API server); the
// klog lines on stderr must have klog's header and, once it is stripped, the same messages in
// the same order (the config file's path aside: upstream's --rootfs chroots, so its path is
// inside the root). At -v=0 neither prints one. The upgrade commands' lines are compared on a
// real cluster, in tests/e2e/upgrade_test.ts.
import assert from "node:assert/strict";
import { tokenToSecret } from "../../core/bootstraptoken/secret.ts";
import { GOLDEN_DEFAULT_CONFIG } from "../support/config.ts";
import { withFakeCluster } from "../support/fake_cluster.ts";
import type { FakeKubeApi } from "../support/fake_kube_api.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { isStructuredLine, klogMessages } from "../support/klog_lines.ts";
import { repoRoot } from "../support/repo.ts";
import { run } from "../support/commands.ts";

// With a CRI socket given: kubeadm-ts does not probe the host for one (upstream does, and logs
// "detected and using CRI socket" where it does).
const CONFIG = `${GOLDEN_DEFAULT_CONFIG}  criSocket: unix:///run/containerd/containerd.sock
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
networking:
  podSubnet: 10.244.0.0/16
`;

/** The messages of the klog info lines on stderr, the config file's path as `<config>`. */
function messages(stderr: string, configPath: string): string[] {
  return klogMessages(stderr).map((m) => m.replaceAll(configPath, "<config>"));
}

/** A command line of both, `@cfg` standing for the config file, `@kc` for the kubeconfig. */
interface Case {
  name: string;
  args: string[];
  /** Run against a fake API server (`@kc` its admin kubeconfig), seeded by this function. */
  cluster?: (api: FakeKubeApi) => void;
  /** Run in a scratch root (`--rootfs`): init phases. */
  rooted?: boolean;
  /** Phases run first in the root, at -v=0 (what the phase needs on disk). */
  before?: string[][];
  /** The level asked for. */
  v: number;
  /** A message ours must print (so that an empty comparison cannot pass). */
  expect: string;
  /** Rewrites a message of upstream's (`undefined`: dropped) before the comparison. */
  upstream?: (message: string) => string | undefined;
  /** Rewrites a message of ours. */
  ours?: (message: string) => string;
}

/** The kubelet-finalize line's reason: a Go stat error upstream, our read's error. */
const finalizeReason = (m: string) =>
  m.replace(/(client certificate rotation is disabled: ).*/, "$1<reason>");

/** Two bootstrap tokens in the fake cluster, for `token list` and `token delete`. */
const seedTokens = (api: FakeKubeApi) => {
  for (const t of ["zzzzzz.0123456789abcdef", "yyyyyy.0123456789abcdef"]) {
    api.put(tokenToSecret({ token: t, ttl: "1h" }, new Date()));
  }
};

const CASES: Case[] = [
  {
    name: "init phase certs all",
    args: ["init", "phase", "certs", "all", "--config", "@cfg"],
    rooted: true,
    v: 1,
    expect: "creating a new certificate authority for etcd-ca",
  },
  {
    name: "init phase kubeconfig all",
    args: ["init", "phase", "kubeconfig", "all", "--config", "@cfg"],
    rooted: true,
    before: [["init", "phase", "certs", "all", "--config", "@cfg"]],
    v: 1,
    expect: "creating kubeconfig file for scheduler.conf",
  },
  {
    name: "init phase etcd local",
    args: ["init", "phase", "etcd", "local", "--config", "@cfg"],
    rooted: true,
    v: 1,
    expect:
      '[etcd] wrote Static Pod manifest for a local etcd member to "/etc/kubernetes/manifests/etcd.yaml"',
  },
  {
    name: "init phase control-plane all at -v=2",
    args: ["init", "phase", "control-plane", "all", "--config", "@cfg"],
    rooted: true,
    v: 2,
    expect: '[control-plane] adding volume "kubeconfig" for component "kube-scheduler"',
  },
  {
    // Upstream's dry run writes manifests to a temporary directory, ours plans them at their
    // real paths.
    name: "init --dry-run",
    args: ["init", "--dry-run", "--config", "@cfg", "--ignore-preflight-errors=all"],
    rooted: true,
    v: 1,
    expect: "validating the existence and emptiness of directory /var/lib/etcd",
    upstream: (m) =>
      finalizeReason(
        m.replace(
          /\/etc\/kubernetes\/tmp\/kubeadm-init-dryrun\d+\/([a-z-]+\.yaml)/,
          "/etc/kubernetes/manifests/$1",
        ),
      ),
    ours: finalizeReason,
  },
  {
    name: "config print init-defaults",
    args: ["config", "print", "init-defaults"],
    v: 1,
    expect: 'the value of KubeletConfiguration.cgroupDriver is empty; setting it to "systemd"',
  },
  {
    name: "config validate",
    args: ["config", "validate", "--config", "@cfg"],
    v: 1,
    expect: 'the value of KubeletConfiguration.cgroupDriver is empty; setting it to "systemd"',
  },
  {
    name: "config migrate",
    args: ["config", "migrate", "--old-config", "@cfg"],
    v: 1,
    expect: 'the value of KubeletConfiguration.cgroupDriver is empty; setting it to "systemd"',
  },
  {
    name: "config images list",
    args: ["config", "images", "list", "--config", "@cfg"],
    v: 1,
    expect: 'loading configuration from "<config>"',
  },
  { name: "version", args: ["version"], v: 1, expect: "[version] retrieving version info" },
  {
    name: "token generate",
    args: ["token", "generate"],
    v: 1,
    expect: "[token] generating random token",
  },
  {
    // Writes in --dry-run: upstream's client sends them as protobuf, which the fake API server
    // does not read (its reads are JSON).
    name: "token create --config",
    args: ["token", "create", "--config", "@cfg", "--dry-run", "--kubeconfig", "@kc"],
    cluster: () => {},
    v: 1,
    expect: "[token] loading configurations",
  },
  {
    // Without --config upstream defaults a whole InitConfiguration for the one token and logs
    // the kubelet's cgroupDriver default; kubeadm-ts builds only the token (README).
    name: "token create",
    args: ["token", "create", "--print-join-command", "--dry-run", "--kubeconfig", "@kc"],
    cluster: () => {},
    v: 1,
    expect: "[token] creating token",
    upstream: (m) => m.startsWith("the value of KubeletConfiguration.cgroupDriver") ? undefined : m,
  },
  {
    name: "token list",
    args: ["token", "list", "--kubeconfig", "@kc"],
    cluster: seedTokens,
    v: 1,
    expect: "[token] retrieving list of bootstrap tokens",
  },
  {
    name: "token delete",
    args: [
      "token",
      "delete",
      "zzzzzz",
      "yyyyyy.0123456789abcdef",
      "--dry-run",
      "--kubeconfig",
      "@kc",
    ],
    cluster: seedTokens,
    v: 1,
    expect: '[token] deleting token "yyyyyy"',
  },
];

/** One side of the comparison: its kubeadm, its scratch directory and its config path. */
interface Side {
  name: string;
  kubeadm: string;
  dir: string;
  /** The config path as the side's kubeadm sees it (upstream's --rootfs chroots). */
  cfg: string;
}

/** A side in a fresh scratch directory; `chrooted`: its config path is inside the root. */
async function scratchSide(name: string, kubeadm: string, chrooted?: boolean): Promise<Side> {
  const dir = await Deno.makeTempDir({ prefix: `kts-vlog-${name}-` });
  return { name, kubeadm, dir, cfg: chrooted ? "/cfg.yaml" : `${dir}/cfg.yaml` };
}

/**
 * Runs a case's command line (or `args`) on one side at level `v`, `kc` standing for `@kc`; it
 * must succeed.
 */
async function runSide(side: Side, c: Case, v: number, args = c.args, kc = ""): Promise<string> {
  const r = await run([
    side.kubeadm,
    ...args.map((a) => a === "@cfg" ? side.cfg : a === "@kc" ? kc : a),
    ...(c.rooted ? ["--rootfs", side.dir] : []),
    `--v=${v}`,
  ]);
  assert.equal(r.code, 0, `${side.name} ${args.join(" ")}: ${r.stderr}`);
  return r.stderr;
}

for (const c of CASES) {
  Deno.test({
    name: `--v=${c.v} log lines match upstream kubeadm v1.37.2: ${c.name}`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      if (!c.cluster) return await compare(c);
      await withFakeCluster(async ({ api, kc }) => {
        c.cluster!(api);
        await compare(c, kc);
      });
    },
  });
}

/** Runs a case on both sides and compares their messages; `kc`: the fake cluster's kubeconfig. */
async function compare(c: Case, kc?: string): Promise<void> {
  const up = await scratchSide("upstream", `${await k8sBinDir()}/kubeadm`, c.rooted);
  const ours = await scratchSide("ours", `${repoRoot}/scripts/kubeadm`, false);
  try {
    for (const side of [up, ours]) {
      await Deno.writeTextFile(`${side.dir}/cfg.yaml`, CONFIG);
      for (const before of c.before ?? []) await runSide(side, c, 0, before, kc);
    }
    const ourLines = messages(await runSide(ours, c, c.v, c.args, kc), ours.cfg).map(
      c.ours ?? ((m) => m),
    );
    const upLines = messages(await runSide(up, c, c.v, c.args, kc), up.cfg).flatMap((m) => {
      if (isStructuredLine(m)) return [];
      const kept = c.upstream ? c.upstream(m) : m;
      return kept === undefined ? [] : [kept];
    });
    assert.deepEqual(ourLines, upLines);
    assert.ok(ourLines.includes(c.expect), ourLines.join("\n"));
    // The same run again at -v=0 prints no log line (files now exist: reused).
    assert.doesNotMatch(await runSide(ours, c, 0, c.args, kc), /^I\d{4} /m);
  } finally {
    for (const side of [up, ours]) await Deno.remove(side.dir, { recursive: true });
  }
}
