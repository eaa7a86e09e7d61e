// The kubelet's kubeconfig after an upgrade: pointed at this node's own API server only when it
// points at the control-plane endpoint, each decision logged as upstream's.
import assert from "node:assert/strict";
import { updateKubeletKubeconfigServer } from "../../../core/upgrade/post_upgrade.ts";
import { createBasicKubeconfig, serializeKubeconfig } from "../../../core/kubeconfig/kubeconfig.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const PATH = "/etc/kubernetes/kubelet.conf";
const local = { advertiseAddress: "10.0.0.2", bindPort: 6443 };

function kubeletConf(server: string): MemoryFileSystem {
  const files = new MemoryFileSystem();
  files.put(PATH, serializeKubeconfig(createBasicKubeconfig(server, "kubernetes", "node", "")));
  return files;
}

Deno.test("kubelet.conf on the control-plane endpoint moves to the local API server; logged at -v=1", async () => {
  const out = new RecordingPrinter();
  const files = kubeletConf("https://lb.example:6443");
  const change = await updateKubeletKubeconfigServer({
    files,
    path: PATH,
    controlPlaneEndpoint: "lb.example:6443",
    localAPIEndpoint: local,
    dryRun: false,
    log: out.log,
  });
  assert.deepEqual(change, {
    changed: true,
    from: "https://lb.example:6443",
    to: "https://10.0.0.2:6443",
  });
  assert.match(files.text(PATH)!, /server: https:\/\/10\.0\.0\.2:6443/);
  assert.deepEqual(out.logged, [{
    level: 1,
    source: "post_upgrade.ts",
    message:
      'Changing the Server URL from "https://lb.example:6443" to "https://10.0.0.2:6443" in /etc/kubernetes/kubelet.conf',
  }]);
});

Deno.test("kubelet.conf left alone: elsewhere already, or missing; logged at -v=2", async () => {
  const out = new RecordingPrinter();
  const input = {
    path: PATH,
    controlPlaneEndpoint: "lb.example:6443",
    localAPIEndpoint: local,
    dryRun: false,
    log: out.log,
  };
  const files = kubeletConf("https://10.0.0.2:6443");
  assert.deepEqual(await updateKubeletKubeconfigServer({ ...input, files }), { changed: false });
  assert.deepEqual(
    await updateKubeletKubeconfigServer({ ...input, files: new MemoryFileSystem() }),
    { changed: false },
  );
  assert.deepEqual(out.messages(1), []);
  assert.deepEqual(out.messages(2), [
    'Skipping update of the Server URL in /etc/kubernetes/kubelet.conf, because it\'s already not equal to "https://lb.example:6443" or already matches the localAPIEndpoint',
    "Could not mutate the Server URL in /etc/kubernetes/kubelet.conf: stat /etc/kubernetes/kubelet.conf: no such file or directory",
  ]);
});
