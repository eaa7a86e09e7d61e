// `kubeadm reset` through the command line, on a temp --rootfs tree, with the real Deno hosts
// (except the init system: the machine's kubelet is never touched).
import assert from "node:assert/strict";
import { createProgram } from "../../cli/program.ts";
import { registerReset } from "../../cli/commands/reset.ts";
import { normaliseArgv } from "../../cli/flags.ts";
import { DenoNodeHost } from "../../adapters/deno/node.ts";
import { FlagError, PhaseError } from "../../core/errors.ts";
import { CapturePrinter, FakeContainerRuntime, FakeInitSystem } from "../support/fake_machine.ts";
import {
  fakeClusterKubeconfig,
  putClusterConfiguration,
  withFakeCluster,
} from "../support/fake_cluster.ts";
import { closedPort } from "../support/tls_fixtures.ts";
import { readHostFacts } from "../../adapters/deno/host/facts.ts";
import { KUBERNETES_VERSION } from "../../core/versions.ts";
import type { Node, Pod } from "kubernetes-types/core/v1.d.ts";

interface Run {
  out: CapturePrinter;
  init: FakeInitSystem;
  prompts: string[];
  error?: unknown;
}

async function kubeadm(args: string[], answers: (string | undefined)[] = []): Promise<Run> {
  const out = new CapturePrinter();
  const init = new FakeInitSystem();
  const prompts: string[] = [];
  const program = createProgram((p) =>
    registerReset(p, {
      out,
      confirm: (p) => {
        prompts.push(p);
        return Promise.resolve(answers.shift());
      },
      node: (root) =>
        new DenoNodeHost({
          root,
          initSystem: () => Promise.resolve(init),
          containerRuntime: (s) => new FakeContainerRuntime(s),
        }),
    })
  );
  let error: unknown;
  try {
    await program.parseAsync(normaliseArgv(args), { from: "user" });
  } catch (e) {
    error = e;
  }
  return { out, init, prompts, error };
}

async function tree(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "kubeadm-ts-cli-reset-" });
  const files = [
    "/etc/kubernetes/manifests/kube-apiserver.yaml",
    "/etc/kubernetes/admin.conf",
    "/etc/kubernetes/kubelet.conf",
    "/etc/kubernetes/pki/ca.crt",
    "/etc/kubernetes/tmp/x",
    "/var/lib/kubelet/config.yaml",
    "/etc/kubernetes/keep.txt",
  ];
  for (const f of files) {
    await Deno.mkdir(`${root}${f.slice(0, f.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${root}${f}`, f);
  }
  return root;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("reset -f --rootfs cleans the tree and prints the closing notes", async () => {
  const root = await tree();
  try {
    const r = await kubeadm(["--rootfs", root, "reset", "-f"]);
    assert.equal(r.error, undefined);
    assert.deepEqual(r.prompts, []);
    // A root other than / is not the running machine: its kubelet service is left alone.
    assert.deepEqual(r.init.stopped, []);
    assert.ok(
      r.out.stderr.includes(
        `[reset] The node's root is ${root}; kubeadm does not stop the running machine's kubelet service for it`,
      ),
      r.out.stderr.join("\n"),
    );
    assert.ok(r.out.stdout.includes("[preflight] Running pre-flight checks"));
    assert.ok(r.out.stdout.includes(
      "The reset process does not perform cleanup of CNI plugin configuration,",
    ));
    assert.equal(await exists(`${root}/etc/kubernetes/admin.conf`), false);
    assert.equal(await exists(`${root}/etc/kubernetes/pki/ca.crt`), false);
    assert.equal(await exists(`${root}/var/lib/kubelet/config.yaml`), false);
    assert.equal(await exists(`${root}/etc/kubernetes/tmp/x`), true);
    assert.equal(await exists(`${root}/etc/kubernetes/keep.txt`), true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("reset asks first; a no (or no input) changes nothing", async () => {
  const root = await tree();
  try {
    for (const answers of [["n"], [undefined]]) {
      const r = await kubeadm(["--rootfs", root, "reset"], answers);
      assert.ok(r.error instanceof PhaseError);
      assert.match(String((r.error as Error).message), /won't proceed; the user didn't answer/);
      assert.deepEqual(r.prompts, ["[reset] Are you sure you want to proceed? [y/N]: "]);
      assert.equal(await exists(`${root}/etc/kubernetes/admin.conf`), true);
    }
    const yes = await kubeadm(["--rootfs", root, "reset", "--force=false"], ["yes"]);
    assert.equal(yes.error, undefined);
    assert.equal(await exists(`${root}/etc/kubernetes/admin.conf`), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("reset --dry-run --cleanup-tmp-dir changes nothing and prints [dryrun] lines", async () => {
  const root = await tree();
  try {
    const r = await kubeadm(["--rootfs", root, "reset", "--dry-run", "--cleanup-tmp-dir"]);
    assert.equal(r.error, undefined);
    assert.ok(r.out.stdout.includes(
      "[dryrun] Would delete contents of directories: [/etc/kubernetes/manifests /etc/kubernetes/pki /etc/kubernetes/tmp]",
    ));
    assert.deepEqual(r.init.stopped, []);
    assert.equal(await exists(`${root}/etc/kubernetes/admin.conf`), true);
    assert.equal(await exists(`${root}/etc/kubernetes/tmp/x`), true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("dangerous --cert-dir values are refused before anything happens", async () => {
  const root = await tree();
  try {
    for (const dir of ["/", "", "pki", "/etc/kubernetes/pki/../../..", "/usr"]) {
      const r = await kubeadm(["--rootfs", root, "reset", "-f", "--cert-dir", dir]);
      assert.ok(r.error instanceof FlagError, dir);
      assert.equal((r.error as FlagError).field, "--cert-dir");
      assert.equal(await exists(`${root}/etc/kubernetes/admin.conf`), true);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ResetConfiguration, --skip-phases and reset phase <alias>", async () => {
  const root = await tree();
  try {
    const cfg = `${root}/reset.yaml`;
    await Deno.writeTextFile(
      cfg,
      "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ResetConfiguration\nforce: true\ncleanupTmpDir: true\n" +
        "skipPhases: [remove-etcd-member]\n",
    );
    const skip = await kubeadm([
      "--rootfs",
      root,
      "reset",
      "-f",
      "--skip-phases",
      "remove-etcd-member,cleanup-node",
    ]);
    assert.equal(skip.error, undefined);
    assert.equal(await exists(`${root}/etc/kubernetes/admin.conf`), true);

    const phase = await kubeadm([
      "--rootfs",
      root,
      "reset",
      "phase",
      "cleanupnode",
      "--cleanup-tmp-dir",
    ]);
    assert.equal(phase.error, undefined);
    assert.equal(await exists(`${root}/etc/kubernetes/admin.conf`), false);
    assert.equal(await exists(`${root}/etc/kubernetes/tmp/x`), false);
    assert.ok(!phase.out.stdout.some((l) => l.startsWith("The reset process")));

    // The ResetConfiguration's force, cleanupTmpDir and skipPhases (a phase command takes no
    // --config, as upstream's).
    const other = await tree();
    try {
      const configured = await kubeadm(["--rootfs", other, "reset", "--config", cfg]);
      assert.equal(configured.error, undefined);
      assert.deepEqual(configured.prompts, []);
      assert.equal(await exists(`${other}/etc/kubernetes/admin.conf`), false);
      assert.equal(await exists(`${other}/etc/kubernetes/tmp/x`), false);
      assert.ok(configured.out.stdout.some((l) => l.startsWith("The reset process")));
      const mixed = await kubeadm(["--rootfs", other, "reset", "--config", cfg, "-f"]);
      assert.match(
        String((mixed.error as Error).message),
        /can not mix '--config' with arguments \[force\]/,
      );
    } finally {
      await Deno.remove(other, { recursive: true });
    }

    const bad = await kubeadm(["--rootfs", root, "reset", "-f", "--skip-phases", "nope"]);
    assert.match(String((bad.error as Error).message), /phase "nope" does not exist/);
    const unknown = await kubeadm([
      "--rootfs",
      root,
      "reset",
      "-f",
      "--ignore-preflight-errors",
      "typo",
    ]);
    assert.match(String((unknown.error as Error).message), /valid names are: all, /);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("reset reads the cluster's configuration through --kubeconfig: its certificatesDir is emptied and the etcd member is looked for at this node's advertise address", async () => {
  const root = await tree();
  try {
    for (const f of ["/srv/pki/ca.crt", "/srv/etcd/member/wal"]) {
      await Deno.mkdir(`${root}${f.slice(0, f.lastIndexOf("/"))}`, { recursive: true });
      await Deno.writeTextFile(`${root}${f}`, f);
    }
    const nodeName = readHostFacts("/").hostname;
    await withFakeCluster(async ({ api, kc }) => {
      putClusterConfiguration(
        api,
        `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: ${KUBERNETES_VERSION}
certificatesDir: /srv/pki
etcd:
  local:
    dataDir: /srv/etcd
`,
      );
      api.put(<Node> { apiVersion: "v1", kind: "Node", metadata: { name: nodeName } });
      api.put(
        <Pod> {
          apiVersion: "v1",
          kind: "Pod",
          metadata: {
            name: `kube-apiserver-${nodeName}`,
            namespace: "kube-system",
            labels: { component: "kube-apiserver", tier: "control-plane" },
            annotations: {
              "kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint": "192.0.2.44:6443",
            },
          },
          spec: { nodeName, containers: [] },
        },
      );

      const dry = await kubeadm(["--rootfs", root, "reset", "-f", "--dry-run", "--kubeconfig", kc]);
      assert.equal(dry.error, undefined);
      assert.ok(dry.out.stdout.includes(
        '[reset] Reading configuration from the "kubeadm-config" ConfigMap in namespace "kube-system"...',
      ));
      assert.ok(dry.out.stdout.includes(
        "[dryrun] Would delete contents of the etcd data directory: /srv/etcd",
      ));
      assert.ok(dry.out.stdout.includes(
        "[dryrun] Would delete contents of directories: [/etc/kubernetes/manifests /srv/pki]",
      ));
      assert.equal(await exists(`${root}/srv/pki/ca.crt`), true);

      const real = await kubeadm(["--rootfs", root, "reset", "-f", "--kubeconfig", kc]);
      assert.equal(real.error, undefined);
      // Its etcd client certificates are gone from /srv/pki: the member could not be reached,
      // and the data directory is emptied all the same.
      assert.ok(real.out.stderr.some((l) => l.startsWith("[reset] Failed to remove etcd member")));
      assert.equal(await exists(`${root}/srv/pki/ca.crt`), false);
      assert.equal(await exists(`${root}/srv/etcd/member`), false);
      assert.equal(await exists(`${root}/etc/kubernetes/pki/ca.crt`), true);
    });

    // An unreachable cluster is a warning, and the defaults apply.
    const gone = await kubeadm([
      "--rootfs",
      root,
      "reset",
      "-f",
      "--kubeconfig",
      await deadKubeconfig(),
    ]);
    assert.equal(gone.error, undefined);
    assert.ok(
      gone.out.stderr.some((l) =>
        l.startsWith("[reset] Unable to fetch the kubeadm-config ConfigMap from cluster:")
      ),
    );
    assert.equal(await exists(`${root}/etc/kubernetes/pki/ca.crt`), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** A kubeconfig for a server nothing listens on. */
async function deadKubeconfig(): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "kts-dead-", suffix: ".conf" });
  await Deno.writeTextFile(path, await fakeClusterKubeconfig(`https://127.0.0.1:${closedPort()}`));
  return path;
}
