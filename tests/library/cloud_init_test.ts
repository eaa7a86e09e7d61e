// toCloudInit: the user-data parses as YAML the way cloud-init reads it (PyYAML safe_load) and
// its write_files are exactly the plan's files (and the bring-up's), with their modes.
import assert from "node:assert/strict";
import { parse } from "yaml";
import { planControlPlane } from "../../library/control_plane.ts";
import { planWorker } from "../../library/join.ts";
import { toCloudInit } from "../../library/cloud_init.ts";
import type { PlanFile } from "../../library/node_plan.ts";
import { seededRandom } from "../../adapters/offline/random.ts";
import { base64Decode } from "../../core/text/base64.ts";

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

Deno.test("worker user-data: join's files and the kubelet restart; extra commands go first", async () => {
  const w = await planWorker({
    cluster: cp,
    host: { hostname: "w1", advertiseAddress: "192.0.2.21" },
    clock,
  });
  const data = await pyyaml(toCloudInit(w, { preCommands: [["modprobe", "br_netfilter"]] }));
  assert.deepEqual(filesOf(data), w.files);
  assert.deepEqual(data.runcmd, [["modprobe", "br_netfilter"], ...w.bringUp.commands]);
});
