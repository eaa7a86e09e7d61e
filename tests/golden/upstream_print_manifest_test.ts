// Golden comparison of `init phase addon coredns|kube-proxy --print-manifest` with upstream
// kubeadm v1.37.2: the same objects, in the same order, for the same configuration. Upstream
// prints its templates as written and we print the objects, so documents are compared parsed.
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { kubeadmLauncher, run } from "../support/commands.ts";

// Every image and version pinned, so the comparison does not depend on the target version.
const CONFIG = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 10.0.0.5
nodeRegistration:
  name: cp1
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
controlPlaneEndpoint: api.example.test:6443
networking:
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.100.0.0/16
  dnsDomain: golden.local
dns:
  imageRepository: example.org/dns
  imageTag: v9.9.9
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
`;

/** `readOnly: false` is how upstream's template spells the default the API omits. */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => !(k === "readOnly" && v === false))
      .map(([k, v]) => [k, normalise(v)]),
  );
}

function documents(text: string): unknown[] {
  return parseAllDocuments(text).map((d) => d.toJS()).filter((d) => d !== null).map(normalise);
}

for (const addon of ["coredns", "kube-proxy"]) {
  Deno.test(`init phase addon ${addon} --print-manifest prints upstream's objects`, async () => {
    const root = await Deno.makeTempDir({ prefix: "kubeadm-ts-print-manifest-" });
    try {
      await Deno.writeTextFile(`${root}/cfg.yaml`, CONFIG);
      const args = ["init", "phase", "addon", addon, "--print-manifest"];
      // Upstream chroots into --rootfs, so its --config is a path inside the root.
      const theirs = await run([
        `${await k8sBinDir()}/kubeadm`,
        ...args,
        "--config",
        "/cfg.yaml",
        "--rootfs",
        root,
      ]);
      const ours = await run([
        kubeadmLauncher(),
        ...args,
        "--config",
        `${root}/cfg.yaml`,
        "--rootfs",
        root,
      ]);
      assert.equal(theirs.code, 0, theirs.stderr);
      assert.equal(ours.code, 0, ours.stderr);
      const want = documents(theirs.stdout);
      const got = documents(ours.stdout);
      assert.equal(want.length, 6);
      assert.deepEqual(got, want);
      // Nothing was written, nothing asked of a cluster (there is none).
      assert.deepEqual([...Deno.readDirSync(root)].map((e) => e.name), ["cfg.yaml"]);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}
