// Golden comparison: upstream kubeadm v1.37.2 (built from its Go module by scripts/k8s-bins)
// and ours run the same offline init phases with the same config in scratch roots, for a v1.37
// and a v1.36 control plane; the results must match field by field (keys, serials and times
// aside), manifests and kubelet files byte for byte, the directories they create with the same modes.
import assert from "node:assert/strict";
import { GOLDEN_DEFAULT_CONFIG } from "../support/config.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { certView, keyView, kubeconfigView, validitySeconds } from "../support/pki_views.ts";
import { listFiles, repoRoot } from "../support/repo.ts";
import { run } from "../support/commands.ts";

const PHASES = ["certs all", "kubeconfig all", "etcd local", "control-plane all", "kubelet-start"];

/** The control planes kubeadm v1.37 deploys: its own minor and the one before. */
const TARGETS = ["v1.37.2", "v1.36.3"];

const CONFIGS: Record<string, (target: string) => string> = {
  "defaults (RSA-2048)": (target) =>
    `${GOLDEN_DEFAULT_CONFIG}---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: ${target}
`,
  "customised (ECDSA-P256, endpoint, SANs, extra args, patches-free)": (target) =>
    `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 192.0.2.20
  bindPort: 7443
nodeRegistration:
  name: cp-two
  kubeletExtraArgs:
  - name: max-pods
    value: "50"
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: ${target}
clusterName: golden
encryptionAlgorithm: ECDSA-P256
controlPlaneEndpoint: api.example.test
certificatesDir: /etc/kubernetes/pki
networking:
  serviceSubnet: 10.100.0.0/16
  podSubnet: 10.244.0.0/16
  dnsDomain: golden.local
apiServer:
  certSANs: [Extra.Example.Test, 198.51.100.7, "*.wild.example.test"]
  extraArgs:
  - name: audit-log-maxage
    value: "7"
  - name: authorization-mode
    value: Node,RBAC,Webhook
  extraVolumes:
  - name: audit
    hostPath: /var/log/audit
    mountPath: /var/log/audit
    pathType: DirectoryOrCreate
controllerManager:
  extraArgs:
  - name: node-cidr-mask-size
    value: "25"
scheduler:
  extraArgs:
  - name: bind-address
    value: 0.0.0.0
etcd:
  local:
    serverCertSANs: [etcd.example.test]
    extraArgs:
    - name: snapshot-count
      value: "5000"
`,
};

async function tree(root: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const f of await listFiles(root, "")) {
    const rel = f.slice(root.length);
    if (rel === "/cfg.yaml") continue;
    out.set(rel, (await Deno.stat(f)).mode! & 0o777);
  }
  return out;
}

/** Every directory under `root` (relative) with its mode: the directories the phases created. */
async function directories(root: string, rel = ""): Promise<[string, number][]> {
  const out: [string, number][] = [];
  for await (const e of Deno.readDir(`${root}${rel}`)) {
    if (!e.isDirectory) continue;
    const sub = `${rel}/${e.name}`;
    out.push([sub, (await Deno.stat(`${root}${sub}`)).mode! & 0o777]);
    out.push(...await directories(root, sub));
  }
  return out.sort();
}

for (const target of TARGETS) {
  for (const [name, configFor] of Object.entries(CONFIGS)) {
    const config = configFor(target);
    Deno.test({
      name: `offline init phases match upstream kubeadm v1.37.2, ${target} target: ${name}`,
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const bin = await k8sBinDir();
        const up = await Deno.makeTempDir({ prefix: "kts-golden-upstream-" });
        const ours = await Deno.makeTempDir({ prefix: "kts-golden-ours-" });
        try {
          await Deno.writeTextFile(`${up}/cfg.yaml`, config);
          await Deno.writeTextFile(`${ours}/cfg.yaml`, config);
          for (const phase of PHASES) {
            // upstream's --rootfs chroots, so its config path is inside the root.
            const u = await run([
              `${bin}/kubeadm`,
              "init",
              "phase",
              ...phase.split(" "),
              "--config",
              "/cfg.yaml",
              "--rootfs",
              up,
            ]);
            assert.equal(u.code, 0, `upstream ${phase}: ${u.stderr}`);
            const o = await run([
              `${repoRoot}/scripts/kubeadm`,
              "init",
              "phase",
              ...phase.split(" "),
              "--config",
              `${ours}/cfg.yaml`,
              "--rootfs",
              ours,
            ]);
            assert.equal(o.code, 0, `ours ${phase}: ${o.stderr}`);
          }
          const upTree = await tree(up);
          const ourTree = await tree(ours);
          assert.deepEqual(
            [...ourTree.entries()].sort(),
            [...upTree.entries()].sort(),
            "same files, same modes",
          );
          assert.deepEqual(
            await directories(ours),
            await directories(up),
            "same directories, same modes",
          );
          for (const rel of upTree.keys()) {
            const a = `${up}${rel}`;
            const b = `${ours}${rel}`;
            if (rel.endsWith(".crt")) {
              assert.equal(await certView(b), await certView(a), rel);
              assert.equal(await validitySeconds(b), await validitySeconds(a), `${rel} validity`);
              const issuerOk = await run([
                "openssl",
                "verify",
                "-CAfile",
                `${ours}/etc/kubernetes/pki/${
                  rel.includes("/etcd/")
                    ? "etcd/ca"
                    : rel.includes("front-proxy")
                    ? "front-proxy-ca"
                    : rel.includes("etcd-client")
                    ? "etcd/ca"
                    : "ca"
                }.crt`,
                b,
              ]);
              assert.equal(issuerOk.code, 0, `${rel}: ${issuerOk.stdout}${issuerOk.stderr}`);
            } else if (rel.endsWith(".key") || rel.endsWith(".pub")) {
              assert.equal(
                await keyView(b).catch(() => "pub"),
                await keyView(a).catch(() => "pub"),
                rel,
              );
              assert.equal(
                (await Deno.readTextFile(b)).split("\n")[0],
                (await Deno.readTextFile(a)).split("\n")[0],
                `${rel} PEM type`,
              );
            } else if (rel.endsWith(".conf")) {
              assert.deepEqual(await kubeconfigView(b), await kubeconfigView(a), rel);
            } else {
              // manifests and kubelet files: byte for byte
              assert.equal(await Deno.readTextFile(b), await Deno.readTextFile(a), rel);
            }
          }
        } finally {
          await Deno.remove(up, { recursive: true });
          await Deno.remove(ours, { recursive: true });
        }
      },
    });
  }
}
