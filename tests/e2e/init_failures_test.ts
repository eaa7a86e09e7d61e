// End to end: `kubeadm init` phases when things go wrong, on a real node (tests/support/
// cluster.ts: its own namespaces, containerd, a real kubelet once kubelet-start has run). The API
// server is unreachable (no control plane yet: no kubelet runs the manifests; or the local API
// endpoint on a closed port: since v1.35 init talks to this node's API server whatever
// admin.conf's server says), admin.conf trusts another CA, the kubelet or a control-plane
// component never becomes healthy, or the process is killed half-way and run again. Each failure
// must be clear (naming the server or component), bounded by the configured timeouts, and leave
// nothing behind that a re-run would duplicate.
import assert from "node:assert/strict";
import { type ClusterNode, createClusterNode, writeInitConfig } from "../support/cluster.ts";
import { type RunResult, waitFor } from "../support/commands.ts";
import { openssl } from "../support/openssl.ts";
import { initWorkflow } from "../../core/phases/init/workflow.ts";
import { FAULT_INJECT_ENV } from "../../adapters/deno/fault_injection.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

/** `timeouts.kubernetesAPICall` of the short config, in seconds. */
const API_CALL_TIMEOUT_S = 10;
/** `timeouts.kubeletHealthCheck` / `controlPlaneComponentHealthCheck` of the short config. */
const HEALTH_TIMEOUT_S = 5;

/** The fixture config plus short `timeouts`, as `short-timeouts.yaml`. */
function writeShortTimeoutsConfig(node: ClusterNode): Promise<string> {
  return writeInitConfig(node, "", {
    file: "short-timeouts.yaml",
    initExtra: `timeouts:
  kubernetesAPICall: ${API_CALL_TIMEOUT_S}s
  kubeletHealthCheck: ${HEALTH_TIMEOUT_S}s
  controlPlaneComponentHealthCheck: ${HEALTH_TIMEOUT_S}s
`,
  });
}

/** `init phase <phase...> --config <config>`, timed. */
async function phase(
  node: ClusterNode,
  config: string,
  ...args: string[]
): Promise<RunResult & { seconds: number; output: string }> {
  const t0 = performance.now();
  const r = await node.kubeadm(["init", "phase", ...args, "--config", config]);
  return { ...r, seconds: (performance.now() - t0) / 1000, output: `${r.stdout}\n${r.stderr}` };
}

/**
 * Only the wait-control-plane phase, with the config's timeouts: upstream's `init phase
 * wait-control-plane` takes no flags (no --config), so this is `init --config` skipping every
 * other phase.
 */
async function waitControlPlane(
  node: ClusterNode,
  config: string,
): Promise<RunResult & { seconds: number; output: string }> {
  const others = initWorkflow().phases.map((p) => p.name).filter((n) => n !== "wait-control-plane");
  const t0 = performance.now();
  const r = await node.kubeadm(["init", "--config", config, "--skip-phases", others.join(",")]);
  return { ...r, seconds: (performance.now() - t0) / 1000, output: `${r.stdout}\n${r.stderr}` };
}

async function mustPass(node: ClusterNode, config: string, ...args: string[]): Promise<void> {
  const r = await phase(node, config, ...args);
  assert.equal(r.code, 0, `init phase ${args.join(" ")} failed:\n${r.output}`);
}

async function json(node: ClusterNode, args: string[], kubeconfig = "super-admin.conf") {
  const r = await node.kubectl([...args, "-o", "json"], kubeconfig);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Whether an object exists (kubectl through super-admin.conf, which needs no RBAC setup). */
async function exists(node: ClusterNode, args: string[]): Promise<boolean> {
  const r = await node.kubectl(["get", ...args, "-o", "name"], "super-admin.conf");
  if (r.code === 0) return true;
  assert.match(r.stderr, /NotFound|not found/, `kubectl get ${args.join(" ")}: ${r.stderr}`);
  return false;
}

/** Replaces admin.conf for the duration of `fn`, then restores the original. */
async function withAdminConf(
  node: ClusterNode,
  edit: (text: string) => string,
  fn: () => Promise<void>,
): Promise<void> {
  const path = node.path("/etc/kubernetes/admin.conf");
  const original = await Deno.readTextFile(path);
  const edited = edit(original);
  assert.notEqual(edited, original, "the edit changed nothing");
  await Deno.writeTextFile(path, edited);
  try {
    await fn();
  } finally {
    await Deno.writeTextFile(path, original);
  }
}

/** A self-signed CA that has nothing to do with the cluster, PEM. */
async function otherCA(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "kts-other-ca-" });
  try {
    return await openssl([
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      `${dir}/ca.key`,
      "-subj",
      "/CN=kubernetes",
      "-days",
      "1",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,digitalSignature",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "init phases without a control plane, then on a running one: unhealthy components, " +
    "wrong endpoint or CA, a killed init re-run to completion",
  ...e2e,
  async fn(t) {
    const node = await createClusterNode("cp1");
    try {
      const short = await writeShortTimeoutsConfig(node);
      const config = await writeInitConfig(node);
      const server = `https://${node.ip}:6443`;

      // ---- no API server, no kubelet (kubelet-start has not run: nothing runs the manifests)
      for (const p of ["certs all", "kubeconfig all", "etcd local", "control-plane all"]) {
        await mustPass(node, short, ...p.split(" "));
      }
      const before = await node.machine.files();
      for (const args of [["upload-config", "all"], ["bootstrap-token"]]) {
        await t.step(
          `no API server: ${args.join(" ")}: connection refused, named, within the timeout`,
          async () => {
            const r = await phase(node, short, ...args);
            assert.notEqual(r.code, 0, r.output);
            assert.match(r.stderr, new RegExp(`error execution phase ${args[0]}`));
            assert.match(r.stderr, /connection refused/);
            assert.ok(r.stderr.includes(server), `server ${server} not named:\n${r.stderr}`);
            // The object the call was for (the admin bootstrap's binding comes first).
            assert.match(r.stderr, /unable to create ClusterRoleBinding kubeadm:cluster-admins/);
            assert.match(r.stderr, /check that the kube-apiserver is running/);
            // Retried (not given up at once), but bounded by timeouts.kubernetesAPICall (plus
            // start-up; retries nested in retries would overrun it by half).
            assert.ok(r.seconds >= API_CALL_TIMEOUT_S / 2, `gave up after ${r.seconds}s`);
            assert.ok(r.seconds < 1.5 * API_CALL_TIMEOUT_S, `took ${r.seconds}s`);
          },
        );
      }

      await t.step("no API server: the failed phases wrote no file", async () => {
        assert.deepEqual(await node.machine.files(), before);
      });

      await t.step("wait-control-plane without a kubelet names the kubelet", async () => {
        assert.equal(node.machine.services.isActive("kubelet"), false);
        const r = await waitControlPlane(node, short);
        assert.notEqual(r.code, 0, r.output);
        assert.match(
          r.stderr,
          new RegExp(
            `the kubelet did not become healthy at http://127\\.0\\.0\\.1:10248/healthz within ${HEALTH_TIMEOUT_S}s`,
          ),
        );
        assert.match(r.stderr, /connection refused/);
        assert.match(r.stdout, /\[kubelet-check\] The kubelet is not healthy after/);
        assert.match(r.stdout, /The kubelet is not running/);
        assert.ok(r.seconds >= HEALTH_TIMEOUT_S - 1, `gave up after ${r.seconds}s`);
        assert.ok(r.seconds < 2 * HEALTH_TIMEOUT_S, `took ${r.seconds}s`);
      });

      // ---- a control plane of etcd and the API server only: the other two never come up.
      for (const c of ["kube-controller-manager", "kube-scheduler"]) {
        await Deno.remove(node.path(`/etc/kubernetes/manifests/${c}.yaml`));
      }
      // kubelet-start starts the node's kubelet, which runs them.
      await mustPass(node, config, "kubelet-start");
      await waitFor("the API server's /livez", async () => {
        const r = await node.kubectl(["get", "--raw", "/livez"], "super-admin.conf");
        return r.code === 0 && r.stdout.trim() === "ok";
      }, 90_000);

      await t.step("wait-control-plane names exactly the components that stayed down", async () => {
        const r = await waitControlPlane(node, short);
        assert.notEqual(r.code, 0, r.output);
        assert.match(r.stdout, /\[kubelet-check\] The kubelet is healthy after/);
        assert.match(r.stdout, /\[control-plane-check\] kube-apiserver is healthy after/);
        assert.match(
          r.stderr,
          new RegExp(
            `control plane components kube-controller-manager, kube-scheduler did not become healthy within ${HEALTH_TIMEOUT_S}s`,
          ),
        );
        assert.match(
          r.stderr,
          /kube-controller-manager check failed at https:\/\/127\.0\.0\.1:10257\/healthz/,
        );
        assert.match(
          r.stderr,
          /kube-scheduler check failed at https:\/\/127\.0\.0\.1:10259\/livez/,
        );
        assert.doesNotMatch(r.stderr, /kube-apiserver check failed/);
        assert.ok(r.seconds < 2 * HEALTH_TIMEOUT_S + 2, `took ${r.seconds}s`);
      });

      for (const p of ["control-plane controller-manager", "control-plane scheduler"]) {
        await mustPass(node, config, ...p.split(" "));
      }
      await mustPass(node, config, "kubelet-start");
      const waited = await waitControlPlane(node, config);
      assert.equal(waited.code, 0, `wait-control-plane failed:\n${waited.output}`);

      await t.step(
        "the local API endpoint on a closed port: connection refused, named",
        async () => {
          const closed = `https://${node.ip}:6449`;
          const closedConfig = `${node.machine.dir}/closed-port.yaml`;
          await Deno.writeTextFile(
            closedConfig,
            (await Deno.readTextFile(short)).replace("bindPort: 6443", "bindPort: 6449"),
          );
          const r = await phase(node, closedConfig, "upload-config", "all");
          assert.notEqual(r.code, 0, r.output);
          assert.match(r.stderr, /connection refused/);
          assert.ok(r.stderr.includes(closed), `server ${closed} not named:\n${r.stderr}`);
          assert.match(r.stderr, /ClusterRoleBinding kubeadm:cluster-admins/);
          assert.ok(r.seconds >= API_CALL_TIMEOUT_S / 2, `gave up after ${r.seconds}s`);
          assert.ok(r.seconds < 1.5 * API_CALL_TIMEOUT_S, `took ${r.seconds}s`);
        },
      );

      await t.step("admin.conf trusting another CA: a TLS error at once, not retried", async () => {
        const pem = await otherCA();
        const data = btoa(pem);
        await withAdminConf(
          node,
          (s) =>
            s.replace(/certificate-authority-data: \S+/, `certificate-authority-data: ${data}`),
          async () => {
            const r = await phase(node, short, "upload-config", "kubeadm");
            assert.notEqual(r.code, 0, r.output);
            assert.match(r.stderr, /error execution phase upload-config\/kubeadm/);
            assert.match(r.stderr, /x509: certificate signed by unknown authority/);
            assert.ok(r.stderr.includes(server), `server ${server} not named:\n${r.stderr}`);
            assert.match(r.stderr, /not signed by the CA in the kubeconfig/);
            // A trust failure cannot heal: no retries until timeouts.kubernetesAPICall.
            assert.ok(r.seconds < API_CALL_TIMEOUT_S / 2, `took ${r.seconds}s`);
          },
        );
      });

      await t.step("the failed calls created nothing in the cluster", async () => {
        assert.equal(await exists(node, ["clusterrolebinding", "kubeadm:cluster-admins"]), false);
        assert.equal(await exists(node, ["-n", "kube-system", "cm", "kubeadm-config"]), false);
      });

      await t.step(
        "admin.conf pointing elsewhere does not matter: init talks to this node's API server (v1.35+)",
        async () => {
          await withAdminConf(
            node,
            (s) => s.replace(`server: ${server}`, `server: https://${node.ip}:6449`),
            async () => {
              const r = await phase(node, short, "upload-config", "kubelet");
              assert.equal(r.code, 0, r.output);
            },
          );
          assert.ok(await exists(node, ["-n", "kube-system", "cm", "kubelet-config"]));
        },
      );

      await t.step(
        "init killed half-way, then run again: completes, nothing duplicated",
        async () => {
          const args = [
            "init",
            "--skip-phases=preflight,certs,kubeconfig,etcd,control-plane,kubelet-start",
            "--config",
            config,
          ];
          // Killed (SIGKILL) as the bootstrap-token phase begins: kubeadm-config uploaded, the
          // node marked, no token and no addon yet.
          const killed = await node.kubeadm(args, {
            env: { [FAULT_INJECT_ENV]: "kill@phase:bootstrap-token" },
          });
          assert.notEqual(killed.code, 0, `it was not killed:\n${killed.stdout}`);
          assert.match(killed.stderr, /fault injection: kill at phase:bootstrap-token\n$/);
          assert.doesNotMatch(killed.stdout, /initialized successfully/);
          assert.ok(await exists(node, ["-n", "kube-system", "cm", "kubeadm-config"]));
          assert.equal(
            await exists(node, ["-n", "kube-system", "deployment", "coredns"]),
            false,
            "killed after the addons",
          );

          const again = await node.kubeadm(args);
          assert.equal(again.code, 0, `re-run failed:\n${again.stdout}\n${again.stderr}`);
          assert.match(again.stdout, /Your Kubernetes control-plane has initialized successfully!/);

          const tokenSecrets = (await json(node, [
            "-n",
            "kube-system",
            "get",
            "secrets",
            "--field-selector=type=bootstrap.kubernetes.io/token",
          ])).items;
          assert.deepEqual(
            tokenSecrets.map((s: { metadata: { name: string } }) => s.metadata.name),
            ["bootstrap-token-abcdef"],
          );
          assert.equal(atob(tokenSecrets[0].data["token-id"]), "abcdef");

          const names = (items: { metadata: { name: string } }[]) =>
            items.map((i) => i.metadata.name).sort();
          const deployments = await json(node, ["-n", "kube-system", "get", "deployments"]);
          assert.deepEqual(names(deployments.items), ["coredns"]);
          const daemonsets = await json(node, ["-n", "kube-system", "get", "daemonsets"]);
          assert.deepEqual(names(daemonsets.items), ["kube-proxy"]);
          const dnsServices = await json(node, [
            "-n",
            "kube-system",
            "get",
            "services",
            "-l",
            "k8s-app=kube-dns",
          ]);
          assert.deepEqual(names(dnsServices.items), ["kube-dns"]);

          const crbs = (await json(node, ["get", "clusterrolebindings"])).items as {
            metadata: { name: string };
            roleRef: unknown;
            subjects?: unknown[];
          }[];
          assert.deepEqual(names(crbs.filter((c) => c.metadata.name.startsWith("kubeadm:"))), [
            "kubeadm:apiserver-kubelet-client",
            "kubeadm:cluster-admins",
            "kubeadm:get-nodes",
            "kubeadm:kubelet-bootstrap",
            "kubeadm:node-autoapprove-bootstrap",
            "kubeadm:node-autoapprove-certificate-rotation",
            "kubeadm:node-proxier",
          ]);
          const grants = crbs.map((c) => JSON.stringify([c.roleRef, c.subjects ?? []]));
          assert.equal(new Set(grants).size, grants.length, "two bindings grant the same");

          const clusterInfo = await json(node, ["-n", "kube-public", "get", "cm", "cluster-info"]);
          const keys = Object.keys(clusterInfo.data);
          assert.deepEqual(keys.filter((k) => !k.startsWith("jws-kubeconfig-")), ["kubeconfig"]);
          assert.equal(clusterInfo.data.kubeconfig.match(/certificate-authority-data:/g).length, 1);
          assert.equal(clusterInfo.data.kubeconfig.match(/server:/g).length, 1);

          const kubeadmConfig = await json(node, [
            "-n",
            "kube-system",
            "get",
            "cm",
            "kubeadm-config",
          ]);
          assert.deepEqual(Object.keys(kubeadmConfig.data), ["ClusterConfiguration"]);
          const kubeletConfig = await json(node, [
            "-n",
            "kube-system",
            "get",
            "cm",
            "kubelet-config",
          ]);
          assert.deepEqual(Object.keys(kubeletConfig.data), ["kubelet"]);

          const n = await json(node, ["get", "node", node.name]);
          assert.deepEqual(
            (n.spec.taints ?? []).filter((x: { key: string }) =>
              x.key === "node-role.kubernetes.io/control-plane"
            ),
            [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
          );
        },
      );
    } finally {
      await node.stop();
    }
  },
});
