// Golden comparison of the objects `init` creates in the cluster: upstream kubeadm v1.37.2's
// `init --dry-run` and ours print every API action with the object attached, for a v1.37 and a
// v1.36 control plane; the objects must match field by field (token expiry, CA bytes and
// empty-vs-absent fields aside), in the same order.
import assert from "node:assert/strict";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { run } from "../support/commands.ts";
import {
  dropEmptyFields,
  parseDryRunActions,
  type PrintedAction,
} from "../support/dry_run_output.ts";
import { repoRoot } from "../support/repo.ts";
import { redactSecretValues } from "../../adapters/offline/transport.ts";

const CONFIG = (target: string) =>
  `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
  description: golden
localAPIEndpoint:
  advertiseAddress: 192.0.2.10
nodeRegistration:
  name: cp1
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: ${target}
encryptionAlgorithm: ECDSA-P256
controlPlaneEndpoint: cp.example.test:6443
networking:
  podSubnet: 10.244.0.0/16
`;

/** Drops what legitimately differs between two runs and empty-vs-absent noise. */
function normalise(v: unknown): unknown {
  return dropEmptyFields(v, (path, x) => {
    if (path === "data.expiration") return undefined; // now + TTL
    if (typeof x === "string" && path === "data.kubeconfig") {
      return x.replace(/certificate-authority-data: \S+/, "certificate-authority-data: <CA>");
    }
    return x;
  });
}

function key(a: PrintedAction): string {
  return `${a.verb} ${a.resource} ${a.namespace ? `${a.namespace}/` : ""}${a.name}`;
}

async function dryRunActions(cmd: string[]): Promise<PrintedAction[]> {
  const r = await run(cmd);
  assert.equal(r.code, 0, `${cmd.join(" ")}\n${r.stdout}\n${r.stderr}`);
  return parseDryRunActions(r.stdout).filter((a) =>
    a.verb !== "GET" && a.verb !== "LIST" && a.resource !== "nodes"
  );
}

for (const target of ["v1.37.2", "v1.36.3"]) {
  Deno.test({
    name:
      `init --dry-run creates the same objects as upstream kubeadm v1.37.2, in the same order (${target} target)`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const bin = await k8sBinDir();
      const up = await Deno.makeTempDir({ prefix: "kts-golden-up-" });
      const ours = await Deno.makeTempDir({ prefix: "kts-golden-ours-" });
      try {
        await Deno.writeTextFile(`${up}/cfg.yaml`, CONFIG(target));
        await Deno.writeTextFile(`${ours}/cfg.yaml`, CONFIG(target));
        const env = ["env", "KUBEADM_INIT_DRYRUN_DIR=/tmp"];
        const upstream = await dryRunActions([
          ...env,
          `${bin}/kubeadm`,
          "init",
          "--dry-run",
          "--config",
          "/cfg.yaml",
          "--rootfs",
          up,
          "--ignore-preflight-errors=all",
        ]);
        const mine = await dryRunActions([
          `${repoRoot}/scripts/kubeadm`,
          "init",
          "--dry-run",
          "--config",
          `${ours}/cfg.yaml`,
          "--rootfs",
          ours,
          "--ignore-preflight-errors=all",
        ]);
        assert.ok(upstream.length > 25, "upstream printed its actions");
        assert.deepEqual(mine.map(key), upstream.map(key), "same actions, same order");
        // v1.37: the API server's kubelet client binding right after the rotation binding.
        const crbs = upstream.filter((a) => a.resource === "clusterrolebindings").map((a) =>
          a.name
        );
        assert.equal(
          crbs[crbs.indexOf("kubeadm:node-autoapprove-certificate-rotation") + 1],
          "kubeadm:apiserver-kubelet-client",
        );
        // Upstream prints Secret values (the token secret, kubeadm-certs' encrypted keys);
        // kubeadm-ts redacts them (README, Differences from upstream).
        const upstreamToken = upstream.find((a) =>
          a.object?.metadata &&
          (a.object.metadata as { name?: string }).name === "bootstrap-token-abcdef"
        );
        assert.equal(
          (upstreamToken?.object?.data as Record<string, string>)?.["token-secret"],
          btoa("0123456789abcdef"),
          "upstream prints the token secret",
        );
        for (let i = 0; i < upstream.length; i++) {
          const expected = upstream[i].resource === "secrets"
            ? redactSecretValues(upstream[i].object)
            : upstream[i].object;
          assert.deepEqual(
            normalise(mine[i].object),
            normalise(expected),
            `object of ${key(upstream[i])}`,
          );
        }
      } finally {
        await Deno.remove(up, { recursive: true });
        await Deno.remove(ours, { recursive: true });
      }
    },
  });
}
