// toCloudInit: the user-data parses as YAML the way cloud-init reads it (PyYAML safe_load), its
// write_files are exactly the plan's files (and the bring-up's), with their modes, cloud-init's
// own schema check (Debian's cloud-init 22.4) accepts it, and bad input is refused by field.
import assert from "node:assert/strict";
import { parse } from "yaml";
import { planControlPlane } from "../../library/control_plane.ts";
import { planControlPlaneJoin, planWorker } from "../../library/join.ts";
import { toCloudInit } from "../../library/cloud_init.ts";
import type { PlanFile } from "../../library/node_plan.ts";
import { seededRandom } from "../../adapters/offline/random.ts";
import { base64Decode } from "../../core/text/base64.ts";
import { ValidationError } from "../../core/errors.ts";
import { cloudInitSchema } from "../support/cloud_init.ts";

interface UserData {
  write_files: {
    path: string;
    permissions: string;
    owner: string;
    encoding: string;
    content: string;
  }[];
  runcmd: string[][];
}

/** What cloud-init's own YAML loader (PyYAML `safe_load`) makes of the user-data. */
async function pyyaml(text: string): Promise<UserData> {
  const out = await new Deno.Command("python3", {
    args: ["-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = out.stdin.getWriter();
  await w.write(new TextEncoder().encode(text));
  await w.close();
  const r = await out.output();
  assert.ok(r.success, new TextDecoder().decode(r.stderr));
  return JSON.parse(new TextDecoder().decode(r.stdout));
}

function filesOf(userData: UserData): PlanFile[] {
  return userData.write_files.map((f) => {
    assert.equal(f.encoding, "b64");
    assert.equal(f.owner, "root:root");
    assert.match(f.permissions, /^0[0-7]{3}$/);
    return {
      path: f.path,
      mode: parseInt(f.permissions, 8),
      content: new TextDecoder().decode(base64Decode(f.content)),
    };
  });
}

const clock = { now: () => new Date("2026-02-01T00:00:00Z") };
const cp = await planControlPlane({
  config: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
    "encryptionAlgorithm: ECDSA-P256\n---\napiVersion: kubelet.config.k8s.io/v1beta1\n" +
    "kind: KubeletConfiguration\nmaxPods: 42\n",
  host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
  random: seededRandom("cloud-init"),
  clock,
});

Deno.test("control-plane user-data: #cloud-config, the plan's files byte for byte, kubeadm init reusing them", async () => {
  const text = toCloudInit(cp);
  assert.match(text, /^#cloud-config\n/);
  const data = await pyyaml(text);
  assert.deepEqual(data, parse(text), "PyYAML and the yaml package agree");
  assert.deepEqual(filesOf(data), [...cp.bringUp.files, ...cp.files]);
  assert.deepEqual(data.runcmd, cp.bringUp.commands);
  const [init] = data.runcmd;
  assert.deepEqual(init.slice(0, 4), ["kubeadm", "init", "--config", "/run/kubeadm/kubeadm.yaml"]);
  assert.match(init[4], /FileAvailable--etc-kubernetes-manifests-kube-apiserver\.yaml/);
  // The configuration kubeadm init reads keeps the plan's token, node and component config.
  const config = cp.bringUp.files[0].content;
  assert.ok(config.includes(cp.token), "the plan's token");
  assert.match(config, /name: cp1\n/);
  assert.match(config, /maxPods: 42\n/);
  assert.equal(cp.bringUp.files[0].mode, 0o600);
});

Deno.test("worker user-data: join's files and `kubeadm join`; extra commands go first", async () => {
  const w = await planWorker({
    cluster: cp,
    host: { hostname: "w1", advertiseAddress: "192.0.2.21" },
    clock,
  });
  const data = await pyyaml(toCloudInit(w, { preCommands: [["modprobe", "br_netfilter"]] }));
  assert.deepEqual(filesOf(data), [...w.bringUp.files, ...w.files]);
  assert.deepEqual(data.runcmd, [["modprobe", "br_netfilter"], ...w.bringUp.commands]);
});

Deno.test("cloud-init's own schema check accepts every user-data the library renders", async () => {
  const w = await planWorker({
    cluster: cp,
    host: { hostname: "w1", advertiseAddress: "192.0.2.21" },
    clock,
  });
  const withEndpoint = await planControlPlane({
    config: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n" +
      "encryptionAlgorithm: ECDSA-P256\ncontrolPlaneEndpoint: 192.0.2.10:6443\n",
    host: { hostname: "cp1", advertiseAddress: "192.0.2.10" },
    uploadCerts: true,
    random: seededRandom("cloud-init-ha"),
    clock,
  });
  const cp2 = await planControlPlaneJoin({
    cluster: withEndpoint,
    host: { hostname: "cp2", advertiseAddress: "192.0.2.11" },
    clock,
  });
  const cases: [string, string][] = [
    ["control plane", toCloudInit(cp)],
    ["control plane, uploaded certificates", toCloudInit(withEndpoint)],
    ["control-plane join", toCloudInit(cp2)],
    ["worker", toCloudInit(w)],
    ["worker with commands", toCloudInit(w, { preCommands: [["modprobe", "br_netfilter"]] })],
    ["own commands", toCloudInit(w, { commands: [["sh", "-c", "echo 'a b' \"$HOME\""]] })],
  ];
  for (const [what, text] of cases) {
    const r = await cloudInitSchema(text);
    assert.equal(r.code, 0, `${what}: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^Valid cloud-config: /, what);
  }
  // The check is real: a runcmd entry cloud-init cannot run is refused.
  const bad = await cloudInitSchema(`${toCloudInit(w)}bootcmd: [{ not: a command }]\n`);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /bootcmd\.0/);
});

Deno.test("bad user-data input is refused naming every bad field, secrets never echoed", () => {
  const secret = "abcdef.0123456789abcdef";
  const file = (path: string, mode = 0o600) => ({ path, mode, content: secret });
  const refused = (
    input: Parameters<typeof toCloudInit>[0],
    options: Parameters<typeof toCloudInit>[1],
    fields: string[],
  ) => {
    assert.throws(() => toCloudInit(input, options), (e) => {
      assert.ok(e instanceof ValidationError, String(e));
      assert.deepEqual(e.errors.map((f) => f.field), fields);
      assert.equal(e.exitCode, 3);
      assert.ok(e.hint, "a hint");
      assert.ok(!e.message.includes(secret), e.message);
      return true;
    });
  };
  const bringUp = { files: [], commands: [["systemctl", "restart", "kubelet"]] };
  refused({ files: [file("etc/kubernetes/x")], bringUp }, {}, ["files[0].path"]);
  refused({ files: [file("/etc/x\ny")], bringUp }, {}, ["files[0].path"]);
  refused({ files: [file("/etc/x"), file("/etc/x")], bringUp }, {}, ["files[1].path"]);
  refused({ files: [file("/etc/x", 0o10000), file("/etc/y", 1.5)], bringUp }, {}, [
    "files[0].mode",
    "files[1].mode",
  ]);
  refused(
    { files: [{ path: "/etc/x", mode: 0o600, content: 7 as unknown as string }], bringUp },
    {},
    ["files[0].content"],
  );
  refused({ files: [], bringUp: { files: [file("/run/a")], commands: [[]] } }, {}, [
    "bringUp.commands[0]",
  ]);
  refused({ files: [file("/run/a")], bringUp: { files: [file("/run/a")], commands: [] } }, {}, [
    "files[0].path",
  ]);
  refused({ files: [], bringUp }, {
    preCommands: [["kubeadm", "join", "--token", secret, 7 as unknown as string]],
    commands: "reboot" as unknown as string[][],
  }, ["preCommands[0]", "commands"]);
  refused({ files: [], bringUp }, { preCommands: [["", secret], [`a\u0000${secret}`]] }, [
    "preCommands[0]",
    "preCommands[1]",
  ]);
  // What a plan gives is accepted, and so are octal modes such as setgid directories' files.
  assert.match(
    toCloudInit({ files: [file("/etc/x", 0o2755)], bringUp }),
    /permissions: "02755"/,
  );
});
