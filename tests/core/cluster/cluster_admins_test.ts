import assert from "node:assert/strict";
import type { ClusterRoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import {
  clusterAdminsBinding,
  ensureClusterAdminsBinding,
} from "../../../core/cluster/cluster_admins.ts";
import { ApiError } from "../../../core/errors.ts";
import { KubeClient } from "../../../core/kube/client.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { FakeKubeApi, requestMatching } from "../../support/fake_kube_api.ts";
import { failedWait, silentApiClient } from "../../support/silent_peer.ts";

/** One API server seen through two clients: admin.conf (may be forbidden) and super-admin.conf. */
function setup() {
  const clock = new FakeClock();
  const api = new FakeKubeApi({ clock });
  const adminCalls: string[] = [];
  const superCalls: string[] = [];
  let adminForbidden = true;
  const mk = (log: string[], forbidden: () => boolean) =>
    new KubeClient({
      server: "https://h:6443",
      clock,
      sleep: clock.sleep,
      transport: (req) => {
        log.push(`${req.method} ${new URL(req.url).pathname}`);
        if (forbidden()) {
          return Promise.resolve(
            new Response(
              JSON.stringify({
                kind: "Status",
                code: 403,
                reason: "Forbidden",
                message:
                  'clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "kubernetes-admin" cannot create resource "clusterrolebindings"',
              }),
              { status: 403 },
            ),
          );
        }
        return api.transport(req);
      },
    });
  const admin = mk(adminCalls, () => adminForbidden);
  const superAdmin = mk(superCalls, () => false);
  return {
    clock,
    api,
    admin,
    superAdmin,
    adminCalls,
    superCalls,
    allowAdmin: () => (adminForbidden = false),
  };
}

Deno.test("the binding: cluster-admin for group kubeadm:cluster-admins", () => {
  const b = clusterAdminsBinding();
  assert.equal(b.metadata?.name, "kubeadm:cluster-admins");
  assert.deepEqual(b.roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "ClusterRole",
    name: "cluster-admin",
  });
  assert.deepEqual(b.subjects, [{ kind: "Group", name: "kubeadm:cluster-admins" }]);
});

Deno.test("forbidden for admin.conf → created with super-admin.conf, admin client returned", async () => {
  const s = setup();
  const client = await ensureClusterAdminsBinding(s.admin, s.superAdmin);
  assert.equal(client, s.admin);
  assert.deepEqual(s.adminCalls, ["POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings"]);
  assert.deepEqual(s.superCalls, ["POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings"]);
  assert.ok(
    s.api.get<ClusterRoleBinding>("ClusterRoleBinding", undefined, "kubeadm:cluster-admins"),
  );
});

Deno.test("admin.conf already works (binding exists or is created) → super-admin unused", async () => {
  const s = setup();
  s.allowAdmin();
  await ensureClusterAdminsBinding(s.admin, s.superAdmin);
  await ensureClusterAdminsBinding(s.admin, s.superAdmin); // AlreadyExists the second time
  assert.equal(s.adminCalls.length, 2);
  assert.deepEqual(s.superCalls, []);
});

Deno.test("no super-admin.conf → upstream's error", async () => {
  const s = setup();
  await assert.rejects(
    () => ensureClusterAdminsBinding(s.admin, undefined),
    /^KubeadmError: the ClusterRoleBinding for the kubeadm:cluster-admins Group is missing but there is no super-admin.conf to create it$/,
  );
});

Deno.test("super-admin AlreadyExists is fine; persistent super-admin failures are wrapped", async () => {
  const s = setup();
  s.api.put(clusterAdminsBinding());
  await ensureClusterAdminsBinding(s.admin, s.superAdmin);
  const t = setup();
  t.api.failNext({
    match: requestMatching("POST"),
    status: 404,
    reason: "NotFound",
    message: "the server could not find the requested resource",
    times: 1000,
  });
  await assert.rejects(
    () => ensureClusterAdminsBinding(t.admin, t.superAdmin, { timeoutMs: 2000 }),
    /unable to create the kubeadm:cluster-admins ClusterRoleBinding by using super-admin.conf: unable to create ClusterRoleBinding kubeadm:cluster-admins: the server could not find the requested resource/,
  );
  assert.equal(t.superCalls.length, 5, "retried every 500ms for 2s");
});

Deno.test("an unreachable server: single attempts every 500ms, bounded by the timeout", async () => {
  const t = setup();
  t.allowAdmin();
  const refused = new ApiError("dial tcp h:6443: connect: connection refused", {
    status: 0,
    reason: "ConnectionRefused",
  });
  t.api.failNext({ match: requestMatching("POST"), error: refused, times: 1000 });
  const start = t.clock.now().getTime();
  await assert.rejects(
    () => ensureClusterAdminsBinding(t.admin, t.superAdmin, { timeoutMs: 10_000 }),
    /unable to create ClusterRoleBinding kubeadm:cluster-admins: dial tcp h:6443: connect: connection refused/,
  );
  // No client-level backoff nested in the poll: it ends at the timeout, not 1.5x past it.
  assert.ok(t.clock.now().getTime() - start <= 10_000);
  assert.equal(t.adminCalls.length, 21);
  assert.ok(t.clock.sleeps.every((ms) => ms === 500), `sleeps: ${t.clock.sleeps}`);
});

Deno.test("a TLS trust failure is not retried (admin.conf and super-admin.conf)", async () => {
  const untrusted = new ApiError(
    'Post "https://h:6443/apis/rbac.authorization.k8s.io/v1/clusterrolebindings": tls: failed to verify certificate: x509: certificate signed by unknown authority',
    { status: 0, reason: "UnknownAuthority" },
  );
  const a = setup();
  a.allowAdmin();
  a.api.failNext({ match: requestMatching("POST"), error: untrusted, times: 1000 });
  await assert.rejects(
    () => ensureClusterAdminsBinding(a.admin, a.superAdmin),
    /certificate signed by unknown authority/,
  );
  assert.equal(a.adminCalls.length, 1);
  assert.deepEqual(a.clock.sleeps, []);

  const s = setup(); // admin.conf forbidden, super-admin.conf hits the TLS failure
  s.api.failNext({ match: requestMatching("POST"), error: untrusted, times: 1000 });
  await assert.rejects(
    () => ensureClusterAdminsBinding(s.admin, s.superAdmin),
    /unable to create the kubeadm:cluster-admins ClusterRoleBinding by using super-admin.conf: .*certificate signed by unknown authority/,
  );
  assert.equal(s.superCalls.length, 1);
});

Deno.test("creating the binding against a silent API server ends within the wait's timeout", async () => {
  const { clock, peer, client } = silentApiClient();
  const { error, elapsedMs } = await failedWait(
    clock,
    () => ensureClusterAdminsBinding(client, undefined, { timeoutMs: 10_000 }),
  );
  assert.equal(elapsedMs, 10_000);
  assert.match(
    error,
    /^ApiError: the wait's timeout of 10s ran out during its last attempt: unable to create ClusterRoleBinding kubeadm:cluster-admins: /,
  );
  assert.deepEqual(peer.limits, [10_000]);
});
