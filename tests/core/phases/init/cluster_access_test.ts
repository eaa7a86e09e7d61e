// The admin client of init: the wait until admin.conf is no longer forbidden ends within its
// timeout (timeouts.kubernetesAPICall) when the API server then stops answering.
import assert from "node:assert/strict";
import { createClusterAccess } from "../../../../core/phases/init/cluster_access.ts";
import {
  createKubeconfigWithToken,
  serializeKubeconfig,
} from "../../../../core/kubeconfig/kubeconfig.ts";
import { FakeKubeApi, statusResponse } from "../../../support/fake_kube_api.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import { failedWait, silentApiClient } from "../../../support/silent_peer.ts";

Deno.test("the wait for admin.conf's permissions ends within its timeout", async () => {
  const files = new MemoryFileSystem();
  const admin = createKubeconfigWithToken(
    "https://10.0.0.1:6443",
    "kubernetes",
    "kubernetes-admin",
    "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n",
    "admin-token",
  );
  files.put("/etc/kubernetes/admin.conf", serializeKubeconfig(admin), 0o600);
  const api = new FakeKubeApi();
  // The binding is created; reading kube-system is forbidden 50 times (the authorizer's
  // cache), then the server stops answering.
  let reads = 0;
  const forbidden = (request: Request) => {
    if (!request.url.endsWith("/namespaces/kube-system")) return api.transport(request);
    return Promise.resolve(statusResponse(403, "Forbidden", "namespaces is forbidden"));
  };
  const { clock, peer } = silentApiClient();
  const transport = peer.transport(
    (r) => r.url.endsWith("/namespaces/kube-system") && ++reads > 50,
    forbidden,
  );
  const access = createClusterAccess({
    files,
    kubeconfigDir: "/etc/kubernetes",
    transportFor: () => transport,
    bootstrapClusterAdmins: true,
    clock,
    sleep: clock.sleep,
    apiCallTimeoutMs: 60_000,
  });
  const { error, elapsedMs } = await failedWait(clock, () => access.client());
  assert.equal(elapsedMs, 60_000, "1m, not 1m + the client's own 1m of retries");
  assert.match(
    error,
    /^ApiError: the wait's timeout of 1m0s ran out during its last attempt: unable to get Namespace kube-system: .*context deadline exceeded/,
  );
});
