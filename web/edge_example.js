// An edge function (Cloudflare Workers / Deno Deploy / Vercel Edge style) that checks a
// kubeadm cluster-info ConfigMap against a bootstrap token and CA hashes, with no network
// access of its own. Deploy it next to dist/kubeadm-core.js.
//
//   POST /verify  {"clusterInfo": "<kubectl -o yaml|json text or object>",
//                  "token": "abcdef.0123456789abcdef",
//                  "caCertHashes": ["sha256:..."]}
//   → 200 {verdict: "verified", ...} or 422 {verdict: "rejected", reason, checks, ...}
import { checkClusterInfo } from "./kubeadm-core.js";

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/verify") {
      return new Response("POST /verify\n", { status: 404 });
    }
    let body;
    try {
      body = await request.json();
    } catch {
      return Response.json({ error: "the body must be JSON" }, { status: 400 });
    }
    const verdict = await checkClusterInfo({
      clusterInfo: body.clusterInfo,
      token: String(body.token ?? ""),
      caCertHashes: Array.isArray(body.caCertHashes) ? body.caCertHashes.map(String) : [],
    });
    return Response.json(verdict, {
      status: verdict.verdict === "verified" ? 200 : 422,
      headers: { "cache-control": "no-store" },
    });
  },
};
