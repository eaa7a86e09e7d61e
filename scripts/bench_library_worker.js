// The Worker scripts/bench_library.ts runs in workerd (scripts/bench-library): one route per
// measured call, the input in the request body (JSON), nothing returned but a status.
// @ts-ignore: the bundle is beside this file only in workerd (scripts/bench_library.ts copies both)
import { checkClusterInfo, planControlPlane, seededRandom } from "./kubeadm-core.js";

const CONFIG = (alg) =>
  `apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nencryptionAlgorithm: ${alg}\n`;
const HOST = { hostname: "cp1", advertiseAddress: "192.0.2.10" };

export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    const body = request.method === "POST" ? await request.json() : {};
    switch (path) {
      case "/noop":
        return new Response("ok");
      case "/verify": {
        const v = await checkClusterInfo(body);
        return new Response(v.verdict, { status: v.verdict === "verified" ? 200 : 500 });
      }
      case "/plan/ecdsa":
      case "/plan/ecdsa-seeded":
      case "/plan/rsa": {
        const plan = await planControlPlane({
          config: CONFIG(path === "/plan/rsa" ? "RSA-2048" : "ECDSA-P256"),
          host: HOST,
          random: path === "/plan/ecdsa-seeded" ? seededRandom(body.seed) : undefined,
        });
        return new Response(String(plan.files.length));
      }
    }
    return new Response("not found", { status: 404 });
  },
};
