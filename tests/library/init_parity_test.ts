// `kubeadm init --rootfs` (the CLI, a separate process) and planControlPlane write the same
// files, byte for byte and mode for mode, given the same keys: the plan reuses the CLI's keys
// (`keys`), its start time (the clock) and its certificate serial numbers (replayed as the
// random source, in the order the workflow draws them). RSA-2048, kubeadm's default, whose
// PKCS#1 v1.5 signatures are deterministic in both.
import assert from "node:assert/strict";
import { planControlPlane } from "../../library/control_plane.ts";
import type { PlanFile } from "../../library/node_plan.ts";
import { parseCertificatesPEM } from "../../core/pki/cert.ts";
import { parseKubeconfig } from "../../core/kubeconfig/kubeconfig.ts";
import { base64Decode } from "../../core/text/base64.ts";
import { certKeyId, kubeconfigKeyId } from "../../core/certs/tree.ts";
import { KUBEADM_CERTS } from "../../core/certs/certlist.ts";
import type { RandomSource } from "../../core/ports/random.ts";
import { kubeadmLauncher, run } from "../support/commands.ts";

const CONFIG = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
localAPIEndpoint:
  advertiseAddress: 192.0.2.10
nodeRegistration:
  name: cp1
  criSocket: unix:///var/run/containerd/containerd.sock
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
resolvConf: /etc/resolv.conf
`;
/** The phases that need a cluster or a machine: the plan runs them offline, the CLI cannot. */
const ONLINE = [
  "preflight",
  "wait-control-plane",
  "upload-config",
  "upload-certs",
  "mark-control-plane",
  "bootstrap-token",
  "kubelet-finalize",
  "addon",
  "show-join-command",
];

async function readTree(root: string, dir = root): Promise<PlanFile[]> {
  const out: PlanFile[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await readTree(root, p));
    else {
      out.push({
        path: p.slice(root.length),
        mode: (await Deno.stat(p)).mode! & 0o777,
        content: await Deno.readTextFile(p),
      });
    }
  }
  return out;
}

/** Replays serial numbers as the 8 random bytes `randomSerialNumber` turns into each. */
function serialReplay(serials: bigint[]): RandomSource {
  const queue = [...serials];
  return {
    bytes(n: number): Uint8Array {
      const serial = queue.shift();
      if (n !== 8 || serial === undefined) {
        throw new Error(`unexpected random draw of ${n} bytes (serials left: ${queue.length})`);
      }
      const out = new Uint8Array(8);
      let v = serial - 1n;
      for (let i = 7; i >= 0; i--, v >>= 8n) out[i] = Number(v & 0xffn);
      return out;
    },
  };
}

Deno.test("init --rootfs and planControlPlane write the same files given the same keys", async () => {
  const base = await Deno.makeTempDir({ prefix: "kts-parity-" });
  try {
    const root = `${base}/root`;
    await Deno.mkdir(root);
    await Deno.writeTextFile(`${base}/kubeadm.yaml`, CONFIG);
    const r = await run([
      kubeadmLauncher(),
      "init",
      "--rootfs",
      root,
      "--config",
      `${base}/kubeadm.yaml`,
      `--skip-phases=${ONLINE.join(",")}`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const cli = (await readTree(root)).sort((a, b) => a.path.localeCompare(b.path));
    const byPath = new Map(cli.map((f) => [f.path, f]));

    // The CLI's keys, by the purpose the run's key pool knows them by.
    const keys: Record<string, string> = {};
    const certs: { path: string; serial: bigint; notBefore: Date }[] = [];
    for (const f of cli) {
      const m = /^\/etc\/kubernetes\/pki\/(.+)\.(key|crt)$/.exec(f.path);
      if (m?.[2] === "key") keys[certKeyId(m[1] === "sa" ? "sa" : certName(m[1]))] = f.content;
      if (m?.[2] === "crt") {
        const c = parseCertificatesPEM(f.content)[0];
        certs.push({ path: f.path, serial: c.serialNumber, notBefore: c.notBefore });
      }
      const k = /^\/etc\/kubernetes\/([a-z-]+\.conf)$/.exec(f.path);
      if (k) {
        const user = parseKubeconfig(f.content, f.path).users[0].user;
        keys[kubeconfigKeyId(k[1])] = new TextDecoder().decode(
          base64Decode(user["client-key-data"]!),
        );
        const c = parseCertificatesPEM(base64Decode(user["client-certificate-data"]!))[0];
        certs.push({ path: f.path, serial: c.serialNumber, notBefore: c.notBefore });
      }
    }
    // Start time: certificates are valid from five minutes before it.
    const ca = certs.find((c) => c.path.endsWith("/pki/ca.crt"))!;
    const start = new Date(ca.notBefore.getTime() + 5 * 60_000);
    // The plan is for the machine the CLI ran on (its hostname decides --hostname-override).
    // First, learn the order in which the workflow signs (a plan with any serials), then
    // replay the CLI's serials in that order.
    const probe = await planControlPlane({
      config: CONFIG,
      host: { hostname: Deno.hostname().toLowerCase(), proxyEnv: proxyEnv() },
      keys,
      clock: { now: () => start },
    });
    const order = probe.files.map((f) => f.path).filter((p) => certs.some((c) => c.path === p));
    const plan = await planControlPlane({
      config: CONFIG,
      host: { hostname: Deno.hostname().toLowerCase(), proxyEnv: proxyEnv() },
      keys,
      random: serialReplay(order.map((p) => certs.find((c) => c.path === p)!.serial)),
      clock: { now: () => start },
    });
    const planned = [...plan.files].sort((a, b) => a.path.localeCompare(b.path));
    assert.deepEqual(planned.map((f) => f.path), cli.map((f) => f.path), "the same files");
    for (const f of planned) {
      assert.equal(f.mode, byPath.get(f.path)!.mode, `${f.path}: mode`);
      assert.ok(f.content === byPath.get(f.path)!.content, `${f.path}: content differs`);
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

/** The certificate list's name of a base name under the certificates dir. */
function certName(baseName: string): string {
  return KUBEADM_CERTS.find((c) => c.baseName === baseName)!.name;
}

/** The `*_proxy` variables the CLI copies into control-plane Pods, as it reads them. */
function proxyEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([k, v]) => /_proxy$/i.test(k) && v !== ""),
  );
}
