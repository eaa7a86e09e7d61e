// `kubeadm upgrade apply|node|plan` refuse bad input before any file or API call: a malformed
// or too old version, an unknown phase or preflight check, an invalid UpgradeConfiguration.
// Each exits non-zero with an error naming the argument, flag or field; the API server (a
// listener counting connections) is never contacted and nothing is written under --rootfs.
// The control case (a valid version) does reach the API server, so the count can fail.
import assert from "node:assert/strict";
import { kubeadmLauncher, run } from "../support/commands.ts";
import { countingListener } from "../support/counting_listener.ts";
import { fileTree } from "../support/file_tree.ts";

const kubeconfig = (endpoint: string) =>
  `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://${endpoint}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: not-a-secret}
`;

async function upgrade(args: string[], files: Record<string, string> = {}) {
  const api = countingListener();
  const dir = await Deno.makeTempDir({ prefix: "kts-upgrade-input-" });
  try {
    await Deno.writeTextFile(`${dir}/kc.conf`, kubeconfig(api.endpoint));
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    await Deno.mkdir(`${dir}/root/etc/kubernetes/manifests`, { recursive: true });
    const r = await run([
      kubeadmLauncher(),
      "upgrade",
      ...args.map((a) => a.replaceAll("$DIR", dir)),
      "--kubeconfig",
      `${dir}/kc.conf`,
      "--rootfs",
      `${dir}/root`,
    ]);
    const written = [...(await fileTree(`${dir}/root`, () => Promise.resolve(""))).keys()];
    return { ...r, connections: api.state.connections, written };
  } finally {
    api.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const UPGRADE_CONFIG = (body: string) =>
  `apiVersion: kubeadm.k8s.io/v1beta4\nkind: UpgradeConfiguration\n${body}`;

const cases: { name: string; args: string[]; files?: Record<string, string>; error: RegExp }[] = [
  {
    name: "a malformed version",
    args: ["apply", "v1.37", "--yes"],
    error: /version "v1\.37" doesn't match patterns for neither semantic version nor labels/,
  },
  {
    name: "a version below the oldest control plane kubeadm deploys",
    args: ["apply", "v1.35.9", "--yes"],
    error:
      /only supports deploying clusters with the control plane version >= 1\.36\.0\. Current version: v1\.35\.9/,
  },
  {
    name: "no version at all",
    args: ["apply", "--yes"],
    error: /missing one or more required arguments\. Required arguments: \[version\]/,
  },
  {
    name: "an unknown phase in --skip-phases",
    args: ["apply", "v1.37.2", "--yes", "--skip-phases", "addon/dns"],
    error: /phase "addon\/dns" does not exist in the "apply" workflow/,
  },
  {
    name: "an unknown check in --ignore-preflight-errors",
    args: ["node", "--ignore-preflight-errors", "NoSuchCheck"],
    error: /ignore-preflight-errors: Invalid value: "nosuchcheck": unknown preflight check name/,
  },
  {
    name: "a relative patches directory in the UpgradeConfiguration",
    args: ["apply", "v1.37.2", "--yes", "--config", "$DIR/upgrade.yaml"],
    files: { "upgrade.yaml": UPGRADE_CONFIG("apply:\n  patches:\n    directory: patches\n") },
    error: /apply\.patches\.directory: Invalid value: "patches": path is not absolute/,
  },
  {
    name: "an unknown image pull policy for upgrade node",
    args: ["node", "--config", "$DIR/upgrade.yaml"],
    files: { "upgrade.yaml": UPGRADE_CONFIG("node:\n  imagePullPolicy: Sometimes\n") },
    error: /node\.imagePullPolicy: Invalid value: "Sometimes": invalid pull policy/,
  },
  // Upstream's ValidateMixedArguments on every upgrade command: a flag the file sets instead.
  {
    name: "--config mixed with --patches (apply)",
    args: ["apply", "v1.37.2", "--yes", "--config", "$DIR/u.yaml", "--patches", "/p"],
    files: { "u.yaml": UPGRADE_CONFIG("") },
    error: /^error: can not mix '--config' with arguments \[patches\]$/m,
  },
  {
    name: "--config mixed with --etcd-upgrade and --certificate-renewal (node)",
    args: ["node", "--config", "$DIR/u.yaml", "--etcd-upgrade=false", "--certificate-renewal"],
    files: { "u.yaml": UPGRADE_CONFIG("") },
    error: /^error: can not mix '--config' with arguments \[certificate-renewal etcd-upgrade\]$/m,
  },
  {
    name: "--config mixed with --allow-experimental-upgrades (plan)",
    args: ["plan", "--config", "$DIR/u.yaml", "--allow-experimental-upgrades", "-o", "yaml"],
    files: { "u.yaml": UPGRADE_CONFIG("") },
    error: /^error: can not mix '--config' with arguments \[allow-experimental-upgrades\]$/m,
  },
  {
    name: "a Go template that does not parse (plan -o go-template)",
    args: ["plan", "-o", "go-template={{.availableUpgrades"],
    error:
      /^error: could not construct output printer: error parsing template \{\{\.availableUpgrades, template: output:1: unclosed action$/m,
  },
  {
    name: "a missing JSONPath template file (plan -o jsonpath-file)",
    args: ["plan", "-o", "jsonpath-file=/plan.jsonpath"],
    error:
      /^error: could not construct output printer: error reading --template \/plan\.jsonpath, open \/plan\.jsonpath: no such file or directory$/m,
  },
];

for (const c of cases) {
  Deno.test(`upgrade: ${c.name} fails naming it, with no request and nothing written`, async () => {
    const r = await upgrade(c.args, c.files);
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, c.error);
    assert.equal(r.connections, 0, "the API server was contacted");
    assert.deepEqual(r.written, []);
  });
}

Deno.test("upgrade: a valid version goes on to the API server (the control case)", async () => {
  const started = Date.now();
  const r = await upgrade(["apply", "v1.37.2", "--yes"]);
  assert.notEqual(r.code, 0, "the listener is no API server");
  assert.ok(r.connections > 0, `no connection: ${r.stderr}`);
  assert.match(r.stderr, /unable to fetch the kubeadm-config ConfigMap/);
  // kubeadm-config is read with upstream's short retry (350ms), not the minute-long API retry.
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started}ms`);
  assert.deepEqual(r.written, []);
});
