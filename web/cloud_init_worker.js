// A Cloudflare Worker (or any fetch-handler runtime: Deno Deploy, Bun, workerd) that answers
// with cloud-init user-data for a new control-plane node: the node's whole PKI, kubeconfigs,
// static Pod manifests and kubelet files, and the `kubeadm init` that reuses them, planned by
// kubeadm's own init workflow in the request, with no disk and no network of its own.
// Deploy it next to dist/kubeadm-core.js.
//
//   POST /cloud-init/control-plane
//        {"hostname": "cp1", "advertiseAddress": "192.0.2.10",
//         "config": "<kubeadm config YAML, optional>",
//         "seed": "<optional: makes the plan reproducible>", "time": "<optional RFC 3339>"}
//   → 200 text/cloud-config (secret: it holds the cluster's keys and token)
//   → 200 JSON {joinCommand, caCertHash} with "Accept: application/json"
//   → 400 {error, field, hint} for bad input
//
// Reproducible plans: with a seed (or the PLAN_SEED secret binding, combined with the
// hostname), the same request always returns the same bytes (ECDSA keys derived from the seed,
// RFC 6979 signatures); a retried boot gets the same PKI. Without one, keys come from
// WebCrypto. The node's image needs kubeadm and a kubelet, as with Cluster API.
import { KubeadmError, planControlPlane, seededRandom, toCloudInit } from "./kubeadm-core.js";

const DEFAULT_CONFIG = "apiVersion: kubeadm.k8s.io/v1beta4\n" +
  "kind: ClusterConfiguration\n" +
  "encryptionAlgorithm: ECDSA-P256\n";

function bad(message, field, hint) {
  return Response.json({ error: message, field, hint }, { status: 400 });
}

export default {
  async fetch(request, env = {}) {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/cloud-init/control-plane") {
      return new Response("POST /cloud-init/control-plane\n", { status: 404 });
    }
    let body;
    try {
      body = await request.json();
    } catch {
      return bad("the body must be JSON", "body");
    }
    if (typeof body.hostname !== "string" || body.hostname === "") {
      return bad("hostname is required", "hostname", "the node's hostname, e.g. cp1");
    }
    const time = body.time === undefined ? undefined : new Date(body.time);
    if (time && Number.isNaN(time.getTime())) {
      return bad("time must be an RFC 3339 timestamp", "time", "e.g. 2026-01-01T00:00:00Z");
    }
    const seed = body.seed ?? (env.PLAN_SEED ? `${env.PLAN_SEED}/${body.hostname}` : undefined);
    let plan;
    try {
      plan = await planControlPlane({
        config: typeof body.config === "string" ? body.config : DEFAULT_CONFIG,
        host: { hostname: body.hostname, advertiseAddress: body.advertiseAddress },
        random: seed === undefined ? undefined : seededRandom(String(seed)),
        clock: time ? { now: () => time } : undefined,
      });
    } catch (e) {
      if (e instanceof KubeadmError) return bad(e.message, e.field, e.hint);
      throw e;
    }
    const headers = { "cache-control": "no-store" };
    if ((request.headers.get("accept") ?? "").includes("application/json")) {
      return Response.json({ joinCommand: plan.joinCommand, caCertHash: plan.caCertHash }, {
        headers,
      });
    }
    return new Response(toCloudInit(plan), {
      headers: { ...headers, "content-type": "text/cloud-config; charset=utf-8" },
    });
  },
};
