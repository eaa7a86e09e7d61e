// End to end on a real HA cluster (three stacked-etcd control planes and two workers, built by
// our `init` and `join` behind HAProxy: tests/support/ha_cluster.ts), one cluster for two proofs
// of certificate lifecycle beyond upstream. A client reads the Nodes through the load-balanced
// endpoint every 200 ms from the start (tests/support/endpoint_client.ts, kubectl with cp1's
// admin.conf as it is on disk at each request); it also records any Node not Ready.
//
// 1. Scheduled renewal: every control plane's certificates re-issued to expire in 10 days, the
//    schedule installed on each (`certs auto-renewal install`), then the three timers fire at
//    once, as daily timers do: the restart Lease runs them one control plane at a time; every
//    certificate is renewed, every component restarted, and no request through the endpoint
//    fails — nobody takes a control plane out of the load balancer's rotation.
// 2. Cluster CA rotation (`certs rotate-ca`, phase by phase, as the README documents it for
//    several control planes): prepare on cp1, its rotation folder copied to cp2 and cp3; trust
//    on each control plane; node on the workers; reissue on each control plane; node on every
//    node; finish on each control plane; node on every node. Throughout, every Node stays Ready
//    and a Pod of the user's on worker1 reaches the API through the endpoint with the
//    service-account files the kubelet keeps in its volume (never restarted); at each stage its
//    files verify every API server. At the end the old CA is trusted nowhere (ca.crt on every
//    node, every kubeconfig, the kubelets' client CA file, cluster-info, kube-root-ca.crt,
//    extension-apiserver-authentication), every kubelet's client certificate and every API
//    server's serving certificate verify against the new CA alone, and a new worker is refused
//    with the old CA's pin and joins with the new one.
// 3. The front-proxy CA, then the etcd CA, rotated the same way on the three control planes
//    (`--ca front-proxy-ca`, `--ca etcd-ca`: prepare on cp1, its folder copied, then trust,
//    reissue and finish on each control plane in turn; no node takes part): every Node Ready
//    and no request failed throughout; at the end each control plane's CA file holds the same
//    new CA alone and what it signs verifies against it (an aggregating proxy's request with the
//    new front-proxy-client accepted by every API server, the old one's refused; etcd's leaves,
//    and each API server reading through its etcd).
//
// Long (37.5 minutes on 2 cores on 2026-11-29 for 1 and 2): `scripts/test --long` runs it, CI's
// suite leaves it out. `KTS_CERTS_HA_PARTS` picks the proofs, comma-separated: `renewal`, `ca`
// (the cluster CA's rotation and the new worker), `front-proxy-ca`, `etcd-ca`; `rotation` is the
// three rotations, `all` (the default) everything.
import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import {
  assertOk,
  type ClusterNode,
  CONTROL_PLANE_PODS,
  createClusterNode,
  kubectlJson,
  waitNodeReady,
  workerJoinArgs,
} from "../support/cluster.ts";
import { waitFor } from "../support/commands.ts";
import { type EndpointClient, startEndpointClient } from "../support/endpoint_client.ts";
import { createHaCluster, type HaCluster } from "../support/ha_cluster.ts";
import { sampleHostUsage } from "../support/host_usage.ts";
import { loudSteps } from "../support/loud_steps.ts";
import { NODE_IMAGE_SET } from "../support/node_images.ts";
import { opensslSpkiSha256 } from "../support/openssl.ts";
import { RESTARTED, type RestartWindow, watchRestarts } from "../support/restart_windows.ts";
import {
  assertPodAccess,
  fileTrust,
  fingerprints,
  nodeFile,
  type PodApiAccessOptions,
  podCredentials,
  proxiedRequest,
  publishedAuthentication,
  trustOf,
} from "../support/ca_trust.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const TIMER = "kubeadm-certs-renewal.timer";
const SERVICE = "kubeadm-certs-renewal";
/** The user's Pod that polls the API with its service account (on worker1, never restarted). */
const API_CLIENT = "api-client";

/** The proofs `KTS_CERTS_HA_PARTS` picks from (see the top of the file). */
const PART_NAMES = ["renewal", "ca", "front-proxy-ca", "etcd-ca"];
const PARTS = new Set(
  (Deno.env.get("KTS_CERTS_HA_PARTS") ?? "all").split(",").map((p) => p.trim()).flatMap((p) =>
    p === "all" ? PART_NAMES : p === "rotation" ? PART_NAMES.slice(1) : [p]
  ),
);
for (const p of PARTS) {
  if (!PART_NAMES.includes(p)) {
    throw new Error(
      `KTS_CERTS_HA_PARTS: unknown part "${p}" (${PART_NAMES.join(", ")}, rotation or all)`,
    );
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const hhmmss = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/**
 * What a `rotate-ca` run restarted, from its output, in order: `kube-apiserver 41s (stop 1.2s)`
 * (in place), `kube-controller-manager new Pod 33s`, `heartbeat +3.1s` (the wait for the
 * kubelet's Node Lease before its API server stopped), `kube-apiserver reads etcd 40s` (its
 * readiness after etcd's restart, from etcd's stop), `kubelet`.
 */
function restartSummary(stdout: string): string {
  const parts: string[] = [];
  for (const line of stdout.split("\n")) {
    const heartbeat = /\[restart\] The kubelet renewed its Node Lease \(after (\S+)\)/.exec(line);
    const inPlace =
      /\[restart\] (\S+) is back.*\(healthy (\S+) after its container's stop, which took (\S+)\)/
        .exec(line);
    const newPod = /\[restart\] (\S+) is back.*\(its new Pod healthy (\S+) after/.exec(line);
    const reads = /\[restart\] kube-apiserver reads through etcd again \(ready (\S+) after/.exec(
      line,
    );
    if (heartbeat) parts.push(`heartbeat +${heartbeat[1]}`);
    else if (reads) parts.push(`kube-apiserver reads etcd ${reads[1]}`);
    else if (inPlace) parts.push(`${inPlace[1]} ${inPlace[2]} (stop ${inPlace[3]})`);
    else if (newPod) parts.push(`${newPod[1]} new Pod ${newPod[2]}`);
    else if (/\[rotate-ca\] Restarting the kubelet/.test(line)) parts.push("kubelet");
  }
  return parts.join(", ") || "nothing restarted";
}

/** A Node not Ready, as the endpoint client saw it. */
interface NotReady {
  at: string;
  nodes: string[];
}

/** Observations of Nodes not Ready as spans, `cp1 21:40:51–21:41:31`, in time order. */
function notReadySpans(list: readonly NotReady[]): string[] {
  const open = new Map<string, { start: string; end: string; last: number }>();
  const spans: { node: string; start: string; end: string }[] = [];
  for (const { at, nodes } of list) {
    const t = Date.parse(at);
    for (const node of nodes) {
      const s = open.get(node);
      if (s && t - s.last <= 5_000) {
        s.end = at;
        s.last = t;
      } else {
        if (s) spans.push({ node, start: s.start, end: s.end });
        open.set(node, { start: at, end: at, last: t });
      }
    }
  }
  for (const [node, s] of open) spans.push({ node, start: s.start, end: s.end });
  return spans.sort((a, b) => a.start.localeCompare(b.start)).map((s) =>
    `${s.node} ${s.start.slice(11, 19)}–${s.end.slice(11, 19)}`
  );
}

/**
 * The Nodes of a `kubectl get nodes -o json` that are not Ready, each with its Ready condition's
 * reason: `cp1 (NodeStatusUnknown)` (the node-lifecycle controller: the kubelet stopped posting)
 * or `cp1 (KubeletNotReady)` (the kubelet's own report, e.g. just after its restart).
 */
function notReadyNodes(json: string): string[] {
  const items = JSON.parse(json).items as {
    metadata: { name: string };
    status: { conditions?: { type: string; status: string; reason?: string }[] };
  }[];
  return items.flatMap((n) => {
    const ready = n.status.conditions?.find((c) => c.type === "Ready");
    return ready?.status === "True" ? [] : [`${n.metadata.name} (${ready?.reason ?? "no Ready"})`];
  });
}

/**
 * A Pod's own API access, polled: every `intervalMs`, inside `node`, curl GETs /api through the
 * endpoint with the token and ca.crt of the Pod's projected volume as they are at that moment
 * (what client-go's in-cluster configuration reads).
 */
function startPodPoller(node: ClusterNode, uid: string, endpoint: string, intervalMs = 3_000) {
  const dir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~projected/kube-api-access-*`;
  const script = `d=$(echo ${dir}); curl -sS -o /dev/null -w '%{http_code}' --max-time 30 ` +
    `--cacert "$d/ca.crt" -H "Authorization: Bearer $(cat "$d/token")" https://${endpoint}/api`;
  let stopping = false;
  let requests = 0;
  const failures: { at: string; error: string }[] = [];
  const loop = (async () => {
    while (!stopping) {
      const t0 = Date.now();
      const at = new Date().toISOString();
      requests++;
      const r = await node.exec(["sh", "-c", script], { timeoutMs: 60_000 });
      if (r.code !== 0 || r.stdout.trim() !== "200") {
        failures.push({ at, error: `exit ${r.code}, HTTP ${r.stdout.trim()}: ${r.stderr.trim()}` });
      }
      const wait = intervalMs - (Date.now() - t0);
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
      return { requests, failures };
    },
  };
}

/** The `certs check-expiration --fail-if-expiring-within 720h` exit status on a node. */
async function expiringWithin30Days(cp: ClusterNode): Promise<number> {
  const r = await cp.kubeadm(["certs", "check-expiration", "--fail-if-expiring-within", "720h"]);
  assert.ok(r.code === 0 || r.code === 4, `${cp.name}: ${r.stdout}\n${r.stderr}`);
  return r.code;
}

/** The kubeconfig files a control plane has (super-admin.conf: the first one only). */
async function controlPlaneKubeconfigs(cp: ClusterNode): Promise<string[]> {
  const all = ["admin.conf", "super-admin.conf", "controller-manager.conf", "scheduler.conf"];
  const present: string[] = [];
  for (const f of all) {
    if (await Deno.lstat(cp.path(`/etc/kubernetes/${f}`)).then(() => true, () => false)) {
      present.push(f);
    }
  }
  return present;
}

/** `openssl verify` inside the node of node files against one CA file; the verified count. */
async function verifiedBy(node: ClusterNode, caFile: string, files: string[]): Promise<number> {
  const r = await node.exec(["openssl", "verify", "-CAfile", caFile, ...files]);
  assert.equal(r.code, 0, `${node.name}: ${r.stdout}\n${r.stderr}`);
  return r.stdout.trim().split("\n").filter((l) => / OK$/.test(l)).length;
}

Deno.test({
  name:
    "certificates on three control planes and two workers behind HAProxy: scheduled renewal with no failed request, then the cluster, front-proxy and etcd CAs rotated",
  ...e2e,
  async fn(ctx) {
    const t = loudSteps(ctx);
    const usage = await sampleHostUsage();
    let ha: HaCluster | undefined;
    let client: EndpointClient | undefined;
    const extra: ClusterNode[] = [];
    const notReady: NotReady[] = [];
    const figures: string[] = [];
    try {
      const booted = performance.now();
      ha = await createHaCluster(NODE_IMAGE_SET, 2);
      const { cps, workers, nodes, lb, endpoint } = ha;
      const [cp1, cp2, cp3] = cps;
      const [worker1] = workers;
      figures.push(
        `HA cluster (3 control planes, 2 workers) built in ${seconds(performance.now() - booted)}`,
      );

      // The user's Pod, pinned to worker1: its service-account files are what it talks with.
      await assertOk(
        cp1,
        "kubectl run api-client",
        await cp1.kubectl([
          "run",
          API_CLIENT,
          "--image=registry.k8s.io/pause:3.10.2",
          `--overrides={"spec":{"nodeName":"${worker1.name}"}}`,
        ]),
      );
      const podBefore = await waitFor("the api-client Pod Ready", async () => {
        const pod = await kubectlJson(cp1, ["get", "pod", API_CLIENT]) as unknown as Pod;
        return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") &&
          pod;
      }, 180_000);
      const podAccess: PodApiAccessOptions = {
        namespace: "default",
        selector: `run=${API_CLIENT}`,
        servers: cps.map((cp) => `https://${cp.ip}:6443`),
      };
      await assertPodAccess(cp1, worker1, "before anything", podAccess);

      // From here on the endpoint is read every 200 ms: no request may fail, no Node be not Ready.
      client = startEndpointClient(worker1, cp1.path("/etc/kubernetes/admin.conf"), ["nodes"], {
        output: "json",
        onSuccess: (stdout, at) => {
          const bad = notReadyNodes(stdout);
          if (bad.length > 0) notReady.push({ at, nodes: bad });
        },
      });
      const tally = () => ({ requests: client!.requests, failed: client!.failures.length });

      // ---- 1. scheduled renewal on three control planes --------------------------------------
      if (PARTS.has("renewal")) {
        await t.step(
          "certificates re-issued to expire in 10 days; the schedule on each",
          async () => {
            for (const cp of cps) {
              const short = `${cp.machine.dir}/short-validity.yaml`;
              await Deno.writeTextFile(
                short,
                "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\ncertificateValidityPeriod: 240h\n",
              );
              await assertOk(
                cp,
                "certs renew all (10 days)",
                await cp.kubeadm(["certs", "renew", "all", "--config", short]),
              );
              assert.equal(
                await expiringWithin30Days(cp),
                4,
                `${cp.name}: expiring within 30 days`,
              );
              await assertOk(
                cp,
                "certs auto-renewal install",
                await cp.kubeadm(["certs", "auto-renewal", "install"]),
              );
            }
          },
        );

        await t.step(
          "the three timers fire at once: renewed and restarted one control plane at a time, no failed request",
          async () => {
            /**
             * Each control-plane Pod's UID and restart count: restarted in place (same UID, count
             * up), or as a new Pod when the kubelet restarted its container less than 10 minutes
             * ago (one that crashed while the cluster came up).
             */
            const podState = async (cp: ClusterNode, c: string) => {
              const pod = await kubectlJson(cp1, [
                "-n",
                "kube-system",
                "get",
                "pod",
                `${c}-${cp.name}`,
              ]) as unknown as Pod;
              return {
                uid: pod.metadata?.uid,
                restarts: pod.status?.containerStatuses?.[0].restartCount ?? 0,
              };
            };
            const podsBefore = new Map<string, { uid?: string; restarts: number }>();
            for (const cp of cps) {
              for (const c of CONTROL_PLANE_PODS) {
                podsBefore.set(`${c}-${cp.name}`, await podState(cp, c));
              }
            }
            const before = tally();
            const notReadyBefore = notReady.length;
            const started = Date.now();
            const runs = await Promise.all(
              cps.map((cp) =>
                watchRestarts(cp, SERVICE, () => cp.machine.services.fireTimer(TIMER))
              ),
            );
            const took = Date.now() - started;
            await new Promise((r) => setTimeout(r, 2_000));
            const after = tally();
            const failed = client!.failures.slice(before.failed);
            const renewalNotReady = notReady.slice(notReadyBefore);
            const span = (w: RestartWindow[]) => ({
              start: Math.min(...w.map((x) => x.start)),
              end: Math.max(...w.map((x) => x.end)),
            });
            figures.push(
              `scheduled renewal, 3 timers fired at once: ${seconds(took)}; ${failed.length} of ${
                after.requests - before.requests
              } requests through the endpoint failed; Nodes not Ready: ${
                notReadySpans(renewalNotReady).join(", ") || "none"
              }`,
              ...cps.flatMap((cp, i) => [
                `  ${cp.name}: ${
                  runs[i].windows.map((w) =>
                    `${w.component} ${hhmmss(w.start)} +${seconds(w.end - w.start)}`
                  ).join(", ")
                }`,
              ]),
              ...(await Promise.all(
                cps.map(async (cp) =>
                  `  ${cp.name}, healthy after (kubeadm's log): ${
                    restartSummary(await cp.machine.log(SERVICE))
                  }`
                ),
              )),
              ...failed.map((f) => {
                // The restarts under way when it was sent.
                const at = Date.parse(f.at);
                const during = cps.flatMap((cp, i) =>
                  runs[i].windows.filter((w) => w.start <= at && at <= w.end).map((w) =>
                    `${cp.name} ${w.component}`
                  )
                );
                return `  failed ${f.at} (during ${during.join(", ") || "no restart"}): ${
                  f.error.slice(0, 200)
                }`;
              }),
            );
            if (failed.length > 0) {
              figures.push(
                "  HAProxy:",
                ...(await lb.log()).split("\n").filter((l) => / is (DOWN|UP)/.test(l)).map((l) =>
                  `    ${l}`
                ),
              );
            }
            for (const [i, cp] of cps.entries()) {
              const journal = await cp.machine.log(SERVICE);
              assert.equal(runs[i].result.result, "success", `${cp.name}:\n${journal}`);
              assert.match(
                journal,
                /Renewing what expires within 720h0m0s: admin\.conf, apiserver, /,
              );
              assert.deepEqual(runs[i].windows.map((w) => w.component), RESTARTED, cp.name);
              for (const c of RESTARTED) {
                assert.match(journal, new RegExp(`\\[restart\\] ${c} is back`), cp.name);
              }
              assert.equal(await expiringWithin30Days(cp), 0, `${cp.name}: renewed for a year`);
              for (const c of CONTROL_PLANE_PODS) {
                const was = podsBefore.get(`${c}-${cp.name}`)!;
                await waitFor(`${c}-${cp.name} restarted`, async () => {
                  const now = await podState(cp, c);
                  return now.uid !== was.uid || now.restarts > was.restarts;
                }, 60_000);
              }
            }
            // The Lease kept the control planes' restarts apart (the log lines are seen within
            // 200 ms of their writing).
            const spans = runs.map((r) => span(r.windows)).sort((a, b) => a.start - b.start);
            for (let i = 1; i < spans.length; i++) {
              assert.ok(
                spans[i].start + 200 >= spans[i - 1].end,
                `restarts of two control planes overlap: ${JSON.stringify(spans)}`,
              );
            }
            assert.deepEqual(failed, [], "requests through the endpoint failed during the renewal");
          },
        );
      }

      /** Stops the endpoint client and adds the whole run's figures. */
      const stopClient = async () => {
        const report = await client!.stop();
        client = undefined;
        figures.push(
          `whole run: ${report.failures.length} of ${report.requests} requests through the endpoint failed, slowest ${
            seconds(report.slowestMs)
          }; Nodes not Ready: ${notReadySpans(notReady).join(", ") || "none"}`,
        );
      };

      /**
       * Runs `certs rotate-ca phase <name> …extra` on the nodes, timed into the figures (as each
       * completes: a failed run keeps them) under `label`, with what
       * each run restarted: on the control planes one after the other (as the README says),
       * `node` on every node at once (each only touches its own kubelet).
       */
      const phaseRunner =
        (label: string, extra: string[] = []) => async (name: string, on: ClusterNode[]) => {
          const started = Date.now();
          figures.push(
            `  ${label} ${name} (${on.map((n) => n.name).join(", ")}) from ${
              hhmmss(started).slice(0, 8)
            }:`,
          );
          const one = async (n: ClusterNode) => {
            const t0 = Date.now();
            const r = await n.kubeadm(["certs", "rotate-ca", "phase", name, ...extra]);
            figures.push(
              `    ${n.name} ${hhmmss(t0).slice(0, 8)} +${seconds(Date.now() - t0)}: ${
                restartSummary(r.stdout)
              }${r.code === 0 ? "" : " (failed)"}`,
            );
            await assertOk(n, `rotate-ca phase ${[name, ...extra].join(" ")} on ${n.name}`, r);
          };
          if (name === "node") await Promise.all(on.map(one));
          else for (const n of on) await one(n);
          figures.push(`    ${name}: ${seconds(Date.now() - started)} in all`);
        };
      /** A step of a rotation: the next ones make no sense after it failed. */
      const must = async (name: string, fn: () => Promise<void>) => {
        if (!(await t.step(name, fn))) throw new Error(`the rotation stopped at: ${name}`);
      };
      /** Copies a rotation folder of cp1's certificates directory to cp2 and cp3. */
      const copyRotationFolder = async (dir: string) => {
        for (const cp of [cp2, cp3]) {
          const r = await new Deno.Command("cp", {
            args: ["-a", cp1.path(`/etc/kubernetes/pki/${dir}`), cp.path("/etc/kubernetes/pki/")],
          }).output();
          assert.ok(r.success, new TextDecoder().decode(r.stderr));
        }
      };

      /**
       * 3. `--ca front-proxy-ca` or `--ca etcd-ca` on the three control planes, phase by phase
       * (prepare on cp1, its folder copied, then trust, reissue and finish on each control
       * plane in turn; no node takes part), the endpoint read throughout; then what the new CA
       * alone verifies on each control plane.
       */
      const rotateControlPlaneCA = async (ca: string) => {
        const frontProxy = ca === "front-proxy-ca";
        const caFile = `/etc/kubernetes/pki/${frontProxy ? "front-proxy-ca.crt" : "etcd/ca.crt"}`;
        const pkiText = (cp: ClusterNode, f: string) =>
          Deno.readTextFile(cp.path(`/etc/kubernetes/pki/${f}`));
        const proxyClient = async (cp: ClusterNode) => ({
          crt: await pkiText(cp, "front-proxy-client.crt"),
          key: await pkiText(cp, "front-proxy-client.key"),
        });
        const oldCA = fingerprints(await Deno.readTextFile(cp1.path(caFile)));
        const oldClient = await proxyClient(cp1);
        const before = tally();
        const notReadyFrom = notReady.length;
        const started = Date.now();
        const phase = phaseRunner(ca, ["--ca", ca]);
        await must(`${ca}: prepare on cp1; its rotation folder copied to cp2 and cp3`, async () => {
          await phase("prepare", [cp1]);
          await copyRotationFolder(`${ca}-rotation`);
        });
        await must(`${ca}: trust, reissue and finish on each control plane in turn`, async () => {
          for (const stage of ["trust", "reissue", "finish"]) await phase(stage, cps);
        });
        const after = tally();
        const failures = client!.failures.slice(before.failed);
        const spans = notReadySpans(notReady.slice(notReadyFrom));
        figures.push(
          `${ca} rotation on 3 control planes: ${
            seconds(Date.now() - started)
          }; ${failures.length} of ${
            after.requests - before.requests
          } requests through the endpoint failed`,
          `  Nodes not Ready: ${spans.join(", ") || "none"}`,
          ...failures.map((f) => `  failed ${f.at}: ${f.error.slice(0, 200)}`),
        );
        await t.step(
          `${ca}: every control plane has the same new CA alone; what it signs verifies against it`,
          async () => {
            const only = fingerprints(await Deno.readTextFile(cp1.path(caFile)));
            assert.equal(only.length, 1);
            assert.notDeepEqual(only, oldCA);
            const leaves = frontProxy
              ? ["front-proxy-client"]
              : ["etcd/server", "etcd/peer", "etcd/healthcheck-client", "apiserver-etcd-client"];
            for (const cp of cps) {
              assert.deepEqual(
                fingerprints(await Deno.readTextFile(cp.path(caFile))),
                only,
                `${cp.name} ${caFile}`,
              );
              await assert.rejects(Deno.lstat(cp.path(`/etc/kubernetes/pki/${ca}-rotation`)));
              assert.equal(
                await verifiedBy(cp, caFile, leaves.map((l) => `/etc/kubernetes/pki/${l}.crt`)),
                leaves.length,
                cp.name,
              );
              const server = `--server=https://${cp.ip}:6443`;
              if (frontProxy) {
                // What an aggregating proxy sends: the new client accepted, the old one refused.
                assert.equal(await proxiedRequest(cp, await proxyClient(cp)), 200, cp.name);
                const refused = await proxiedRequest(cp, oldClient);
                assert.ok([401, 403].includes(refused), `${cp.name}: the old client: ${refused}`);
              } else {
                // Each API server reads and writes through its own etcd member.
                await assertOk(
                  cp,
                  "readyz/etcd",
                  await cp.kubectl([server, "get", "--raw", "/readyz/etcd"]),
                );
                await assertOk(
                  cp,
                  "a write through etcd",
                  await cp.kubectl([
                    server,
                    "create",
                    "configmap",
                    `after-etcd-ca-${cp.name}`,
                    "--from-literal=k=v",
                  ]),
                );
              }
            }
            if (frontProxy) {
              assert.deepEqual(
                await publishedAuthentication(cp1, "requestheader-client-ca-file"),
                only,
              );
            }
          },
        );
        await t.step(`${ca}: through the rotation every Node Ready, every request answered`, () => {
          assert.deepEqual(spans, [], "every Node stayed Ready");
          assert.deepEqual(failures, [], "requests through the endpoint failed");
          return Promise.resolve();
        });
      };

      // ---- 2. cluster CA rotation on three control planes and two workers ----------------------
      let oldPem = "";
      let newPem = "";
      if (PARTS.has("ca")) {
        oldPem = await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca.crt"));
        const old = fingerprints(oldPem);
        const rotationBefore = tally();
        const rotationNotReady = notReady.length;
        const rotationStarted = Date.now();
        const podPoller = startPodPoller(worker1, podBefore.metadata!.uid!, endpoint);
        const phase = phaseRunner("ca");
        /** Waits for the user's Pod's ca.crt to hold `bundle`. */
        const podTrusts = (bundle: string[]) =>
          waitFor(`the Pod's ca.crt to hold ${bundle.length} CA(s)`, async () => {
            const { ca } = await podCredentials(worker1, podBefore.metadata!.uid!);
            return fingerprints(ca).join() === bundle.join();
          }, 180_000);
        /** Every node's ca.crt and kubelet.conf, and every control plane's kubeconfigs, trust `bundle`. */
        const assertTrust = async (bundle: string[], when: string) => {
          for (const n of nodes) {
            assert.deepEqual(
              fingerprints(await Deno.readTextFile(n.path("/etc/kubernetes/pki/ca.crt"))),
              bundle,
              `${n.name} ca.crt ${when}`,
            );
            assert.deepEqual(await fileTrust(n, "kubelet.conf"), bundle, `${n.name} kubelet.conf`);
          }
          for (const cp of cps) {
            for (const f of await controlPlaneKubeconfigs(cp)) {
              assert.deepEqual(await fileTrust(cp, f), bundle, `${cp.name} ${f} ${when}`);
            }
          }
        };

        await must("prepare on cp1; its rotation folder copied to cp2 and cp3", async () => {
          await phase("prepare", [cp1]);
          newPem = await Deno.readTextFile(cp1.path("/etc/kubernetes/pki/ca-rotation/new-ca.crt"));
          await copyRotationFolder("ca-rotation");
        });

        await must("trust on each control plane, node on the workers: all trust both", async () => {
          await phase("trust", cps);
          await phase("node", workers);
          await assertTrust([...old, ...fingerprints(newPem)], "after trust");
          await waitFor("kube-root-ca.crt to carry both CAs", async () => {
            const cm = await kubectlJson(cp1, ["get", "cm", "kube-root-ca.crt"]) as {
              data: Record<string, string>;
            };
            return fingerprints(cm.data["ca.crt"]).length === 2;
          }, 120_000);
          // The Pod's volume follows kube-root-ca.crt (the kubelet refreshes it within about a
          // minute) before any API server serves a certificate of the new CA.
          await podTrusts([...old, ...fingerprints(newPem)]);
          await assertPodAccess(cp1, worker1, "after trust", podAccess);
        });

        await must(
          "reissue on each control plane, node on every node: the new CA signs everything",
          async () => {
            await phase("reissue", cps);
            // Only the last control plane's reissue got its kubelet a certificate of the new CA
            // (before, the leading controller-manager may still sign with the old): node on
            // every node, the first two control planes too.
            await phase("node", nodes);
            await assertTrust([...fingerprints(newPem), ...old], "after reissue");
            for (const n of nodes) {
              // Verified against the new CA alone (both CAs have the subject "kubernetes").
              const ca = `${n.machine.dir}/new-ca.crt`;
              await Deno.writeTextFile(ca, newPem);
              assert.equal(
                await verifiedBy(n, ca, ["/var/lib/kubelet/pki/kubelet-client-current.pem"]),
                1,
                `${n.name}'s kubelet client certificate`,
              );
            }
            await assertPodAccess(cp1, worker1, "after reissue", podAccess);
          },
        );

        await must("finish on each control plane, node on every node", async () => {
          await phase("finish", cps);
          await phase("node", nodes);
          for (const n of nodes) await waitNodeReady(cp1, n.name, 120_000);
        });

        const rotationTook = Date.now() - rotationStarted;
        const rotation = tally();
        const pods = await podPoller.stop();
        const rotationFailures = client.failures.slice(rotationBefore.failed);
        figures.push(
          `cluster CA rotation on 3 control planes + 2 workers: ${
            seconds(rotationTook)
          }; ${rotationFailures.length} of ${
            rotation.requests - rotationBefore.requests
          } requests through the endpoint failed; the Pod's own requests: ${pods.failures.length} of ${pods.requests} failed`,
          `  Nodes not Ready: ${
            notReadySpans(notReady.slice(rotationNotReady)).join(", ") || "none"
          }`,
          ...rotationFailures.map((f) => `  failed ${f.at}: ${f.error.slice(0, 200)}`),
          ...pods.failures.map((f) => `  Pod request failed ${f.at}: ${f.error.slice(0, 200)}`),
        );
        await t.step(
          "through the rotation: every Node Ready, the Pod's and the endpoint's requests answered",
          () => {
            assert.deepEqual(
              notReadySpans(notReady.slice(rotationNotReady)),
              [],
              "every Node stayed Ready",
            );
            assert.deepEqual(pods.failures, [], "the Pod's own requests failed");
            assert.deepEqual(rotationFailures, [], "requests through the endpoint failed");
            return Promise.resolve();
          },
        );

        await t.step("the old CA is trusted nowhere", async () => {
          const only = fingerprints(newPem);
          assert.notDeepEqual(only, old);
          await assertTrust(only, "at the end");
          for (const n of nodes) {
            // What the kubelet verifies client certificates with (its config's clientCAFile).
            const config = await nodeFile(n, "/var/lib/kubelet/config.yaml");
            const caFile = /clientCAFile: (\S+)/.exec(config)?.[1];
            assert.ok(caFile, `${n.name}: the kubelet's clientCAFile`);
            assert.deepEqual(fingerprints(await nodeFile(n, caFile)), only, `${n.name} ${caFile}`);
            assert.equal(
              await verifiedBy(n, "/etc/kubernetes/pki/ca.crt", [
                "/var/lib/kubelet/pki/kubelet-client-current.pem",
              ]),
              1,
            );
          }
          for (const cp of cps) {
            await assert.rejects(Deno.lstat(cp.path("/etc/kubernetes/pki/ca-rotation")));
            assert.equal(
              await verifiedBy(
                cp,
                "/etc/kubernetes/pki/ca.crt",
                ["apiserver", "apiserver-kubelet-client"].map((f) =>
                  `/etc/kubernetes/pki/${f}.crt`
                ),
              ),
              2,
            );
            // Each API server serves a certificate of the new CA (every TLS session OpenSSL read).
            const served = await cp.exec([
              "sh",
              "-c",
              `openssl s_client -connect ${cp.ip}:6443 -CAfile /etc/kubernetes/pki/ca.crt -verify_return_error </dev/null 2>&1 | grep "Verify return code:"`,
            ]);
            const codes = served.stdout.trim().split("\n");
            assert.ok(codes.length >= 1 && codes[0] !== "", `${cp.name}: ${served.stdout}`);
            for (const line of codes) {
              assert.match(
                line,
                /^\s*Verify return code: 0 \(ok\)$/,
                `${cp.name}: ${served.stdout}`,
              );
            }
          }
          const info = await kubectlJson(cp1, [
            "-n",
            "kube-public",
            "get",
            "cm",
            "cluster-info",
          ]) as {
            data: Record<string, string>;
          };
          assert.deepEqual(trustOf(info.data.kubeconfig), only, "cluster-info");
          assert.deepEqual(await publishedAuthentication(cp1, "client-ca-file"), only);
          await waitFor("kube-root-ca.crt to hold the new CA alone", async () => {
            const cm = await kubectlJson(cp1, ["get", "cm", "kube-root-ca.crt"]) as {
              data: Record<string, string>;
            };
            return fingerprints(cm.data["ca.crt"]).join() === only.join();
          }, 120_000);
          const secret = await cp1.kubectl(["-n", "kube-system", "get", "secret", "kubeadm-certs"]);
          assert.match(secret.stderr, /NotFound/, "the kubeadm-certs Secret (the old CA) deleted");
          await podTrusts(only);
          await assertPodAccess(cp1, worker1, "after finish", podAccess);
          // The same Pod, its container never restarted.
          const podAfter = await kubectlJson(cp1, ["get", "pod", API_CLIENT]) as unknown as Pod;
          assert.equal(podAfter.metadata?.uid, podBefore.metadata?.uid);
          assert.equal(
            podAfter.status?.containerStatuses?.[0].containerID,
            podBefore.status?.containerStatuses?.[0].containerID,
          );
          assert.equal(podAfter.status?.containerStatuses?.[0].restartCount, 0);
        });
      }

      // ---- 3. the front-proxy CA and the etcd CA on the three control planes -------------------
      for (const ca of ["front-proxy-ca", "etcd-ca"]) {
        if (PARTS.has(ca)) await rotateControlPlaneCA(ca);
      }

      // worker3 is not Ready while it joins: the client stops before.
      await stopClient();

      if (PARTS.has("ca")) {
        await t.step("a new worker joins with the new CA's pin, not the old one's", async () => {
          const oldPin = `sha256:${await opensslSpkiSha256(oldPem)}`;
          const newPin = `sha256:${await opensslSpkiSha256(newPem)}`;
          const worker3 = await createClusterNode("worker3", { role: "worker", linkTo: cps });
          extra.push(worker3);
          await lb.addClient(worker3);
          const refused = await worker3.kubeadm(workerJoinArgs(endpoint, oldPin, "worker3"));
          assert.notEqual(refused.code, 0, refused.stdout);
          assert.match(
            refused.stderr,
            /cluster CA found in cluster-info ConfigMap is invalid: none of the public keys/,
          );
          await assertOk(
            worker3,
            "join with the new pin",
            await worker3.kubeadm(workerJoinArgs(endpoint, newPin, "worker3")),
          );
          await waitNodeReady(cp1, "worker3", 180_000);
          assert.deepEqual(
            fingerprints(await Deno.readTextFile(worker3.path("/etc/kubernetes/pki/ca.crt"))),
            fingerprints(newPem),
          );
        });
      }
    } finally {
      if (client) {
        // Stopped early (a step failed): what the endpoint client saw until then.
        const report = await client.stop();
        figures.push(
          `until the failure: ${report.failures.length} of ${report.requests} requests through the endpoint failed; Nodes not Ready: ${
            notReadySpans(notReady).join(", ") || "none"
          }`,
        );
      }
      const cost = await usage.stop();
      figures.push(
        `host: memory peak ${cost.peakGiB.toFixed(1)} GiB (+${cost.addedGiB.toFixed(1)}); CPU ${
          (cost.meanBusy * 100).toFixed(0)
        }% busy of ${cost.cores} cores on average, load peak ${cost.peakLoad.toFixed(1)}`,
      );
      console.log(figures.join("\n"));
      for (const n of extra) await n.stop().catch((e) => console.error(e));
      await ha?.stop();
    }
  },
});
