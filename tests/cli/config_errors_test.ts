// Bad configuration files through the command line (issue 9, finding 10): a YAML alias bomb is
// a config error naming the file, with the config-error exit status (3) like any other invalid
// config, for every command that reads --config; an advertiseAddress error names the config
// field it came from.
import assert from "node:assert/strict";
import { kubeadmLauncher, run } from "../support/commands.ts";

function aliasBomb(kind: string): string {
  const lines = [`apiVersion: kubeadm.k8s.io/v1beta4`, `kind: ${kind}`];
  lines.push('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]');
  let prev = "a";
  for (const n of "bcdefghi") {
    lines.push(`${n}: &${n} [${Array(9).fill(`*${prev}`).join(",")}]`);
    prev = n;
  }
  return `${lines.join("\n")}\n`;
}

async function withFile<T>(text: string, fn: (path: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "kts-config-errors-" });
  try {
    const path = `${dir}/bomb.yaml`;
    await Deno.writeTextFile(path, text);
    return await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (
  const [cmd, kind] of [
    [["config", "validate"], "InitConfiguration"],
    [["init", "phase", "certs", "ca", "--dry-run"], "InitConfiguration"],
    [["join", "--dry-run"], "JoinConfiguration"],
  ] as const
) {
  Deno.test(`kubeadm ${cmd.join(" ")} --config <alias bomb>: config error naming the file, exit 3`, async () => {
    await withFile(aliasBomb(kind), async (path) => {
      const r = await run([kubeadmLauncher(), ...cmd, "--config", path]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`${path.replaceAll(".", "\\.")}: invalid YAML in document 1: .*aliases`),
      );
      assert.doesNotMatch(r.stderr, /at \S+\.ts:\d+/, "no stack trace");
    });
  });
}

Deno.test("init --config with a bad localAPIEndpoint.advertiseAddress names the field", async () => {
  await withFile(
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nlocalAPIEndpoint:\n  advertiseAddress: notanip\n",
    async (path) => {
      const r = await run([kubeadmLauncher(), "config", "validate", "--config", path]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        /couldn't use "notanip" as "localAPIEndpoint\.advertiseAddress", must be ipv4 or ipv6 address/,
      );
    },
  );
});

// Issue 15: what kubeadm v1.37 refuses — a control plane older than v1.36, the v1beta3 API,
// the removed feature gates — is a clear error, a non-zero exit, and nothing written.
const V37 = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n---\n" +
  "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n";
const REFUSED: { name: string; config?: string; flags?: string[]; message: string }[] = [
  {
    name: "a v1.35 control plane (file)",
    config: `${V37}kubernetesVersion: v1.35.9\n`,
    message:
      "this version of kubeadm only supports deploying clusters with the control plane version >= 1.36.0. Current version: v1.35.9",
  },
  {
    name: "a v1.34 control plane (flag)",
    flags: ["--kubernetes-version", "v1.34.4"],
    message:
      "this version of kubeadm only supports deploying clusters with the control plane version >= 1.36.0. Current version: v1.34.4",
  },
  {
    name: "a v1beta3 file",
    config: V37.replaceAll("v1beta4", "v1beta3"),
    message:
      `your configuration file uses an old API spec: "kubeadm.k8s.io/v1beta3" (kind: "ClusterConfiguration"). Please use kubeadm v1.36 instead and run 'kubeadm config migrate --old-config old-config-file --new-config new-config-file'`,
  },
  {
    name: "a removed gate (file)",
    config: `${V37}featureGates:\n  ControlPlaneKubeletLocalMode: true\n`,
    message:
      'featureGates: Invalid value: {"ControlPlaneKubeletLocalMode":true}: ControlPlaneKubeletLocalMode is not a valid feature name.',
  },
  {
    name: "a removed gate (flag)",
    flags: ["--feature-gates", "NodeLocalCRISocket=true"],
    message: "unrecognized feature-gate key: NodeLocalCRISocket",
  },
];

for (const c of REFUSED) {
  for (
    const cmd of [
      ["init", "--ignore-preflight-errors=all"],
      ["init", "phase", "certs", "all"],
      ["init", "phase", "kubelet-start"],
    ]
  ) {
    // Flags go to `init` only: each phase accepts its own flag set (cli/flags.ts).
    if (c.flags && cmd[1] === "phase") continue;
    Deno.test(`kubeadm ${cmd.join(" ")} refuses ${c.name}: error, exit != 0, nothing written`, async () => {
      const root = await Deno.makeTempDir({ prefix: "kts-refused-" });
      const cfgDir = await Deno.makeTempDir({ prefix: "kts-refused-cfg-" });
      try {
        const args = [...cmd, "--rootfs", root, ...(c.flags ?? [])];
        if (c.config !== undefined) {
          await Deno.writeTextFile(`${cfgDir}/cfg.yaml`, c.config);
          args.push("--config", `${cfgDir}/cfg.yaml`);
        }
        const r = await run([kubeadmLauncher(), ...args]);
        assert.notEqual(r.code, 0, r.stdout);
        assert.ok(r.stderr.includes(c.message), r.stderr);
        assert.doesNotMatch(r.stderr, /at \S+\.ts:\d+/, "no stack trace");
        assert.deepEqual([...Deno.readDirSync(root)], [], "nothing written under --rootfs");
      } finally {
        await Deno.remove(root, { recursive: true });
        await Deno.remove(cfgDir, { recursive: true });
      }
    });
  }
}

Deno.test("kubeadm join --config <v1beta3 JoinConfiguration> is refused before any file or request", async () => {
  await withFile(
    "apiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    token: abcdef.0123456789abcdef\n    apiServerEndpoint: 192.0.2.1:6443\n    unsafeSkipCAVerification: true\n",
    async (path) => {
      const root = await Deno.makeTempDir({ prefix: "kts-refused-" });
      try {
        const r = await run([kubeadmLauncher(), "join", "--config", path, "--rootfs", root]);
        assert.equal(r.code, 3, r.stderr);
        assert.match(
          r.stderr,
          /old API spec: "kubeadm\.k8s\.io\/v1beta3" \(kind: "JoinConfiguration"\)\. Please use kubeadm v1\.36 instead/,
        );
        assert.deepEqual([...Deno.readDirSync(root)], []);
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    },
  );
});

Deno.test("kubeadm config validate: v1beta3, removed gates, too-old versions, UpgradeConfiguration typos and invalid values fail; the experimental v1 only with its flag", async () => {
  const cases: [string, string[], RegExp | undefined][] = [
    [
      V37.replaceAll("v1beta4", "v1beta3"),
      ["--allow-deprecated-api"],
      /Please use kubeadm v1\.36 instead/,
    ],
    [
      `${V37}featureGates:\n  WaitForAllControlPlaneComponents: true\n`,
      [],
      /WaitForAllControlPlaneComponents is not a valid feature name\./,
    ],
    [`${V37}kubernetesVersion: v1.35.0\n`, [], />= 1\.36\.0\. Current version: v1\.35\.0/],
    [
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\napply:\n  bogusField: true\n",
      [],
      /unknown field "apply\.bogusField"/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\nnode:\n  patches:\n    directory: rel\n",
      [],
      /node\.patches\.directory: Invalid value: "rel": path is not absolute/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1\nkind: ClusterConfiguration\n",
      [],
      /experimental API spec: "kubeadm\.k8s\.io\/v1" \(kind: "ClusterConfiguration"\) is not allowed/,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1\nkind: ClusterConfiguration\n",
      ["--allow-experimental-api"],
      undefined,
    ],
    [
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\napply:\n  forceUpgrade: true\n",
      [],
      undefined,
    ],
  ];
  for (const [text, flags, error] of cases) {
    await withFile(text, async (path) => {
      const r = await run([kubeadmLauncher(), "config", "validate", "--config", path, ...flags]);
      if (error) {
        assert.equal(r.code, 3, `${text}\n${r.stdout}`);
        assert.match(r.stderr, error);
      } else {
        assert.equal(r.code, 0, `${text}\n${r.stderr}`);
        assert.equal(r.stdout, "ok\n");
      }
    });
  }
});
