import assert from "node:assert/strict";
import { connectionFromKubeconfig } from "../../../core/kube/kubeconfig_connection.ts";
import { type Kubeconfig, resolveContext } from "../../../core/kubeconfig/kubeconfig.ts";
import { MemoryFileSystem } from "../../support/memory_fs.ts";

const b64 = (s: string) => btoa(s);

function admin(): Kubeconfig {
  return {
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [
      {
        name: "kubernetes",
        cluster: { server: "https://10.0.0.1:6443", "certificate-authority-data": b64("CA PEM") },
      },
      {
        name: "other",
        cluster: { server: "https://other:6443", "insecure-skip-tls-verify": true },
      },
    ],
    contexts: [
      {
        name: "kubernetes-admin@kubernetes",
        context: { cluster: "kubernetes", user: "kubernetes-admin" },
      },
      { name: "tok@other", context: { cluster: "other", user: "tok" } },
    ],
    "current-context": "kubernetes-admin@kubernetes",
    users: [
      {
        name: "kubernetes-admin",
        user: { "client-certificate-data": b64("CERT PEM"), "client-key-data": b64("KEY PEM") },
      },
      { name: "tok", user: { tokenFile: "/var/run/token" } },
    ],
  };
}

Deno.test("embedded data of the current context is decoded", async () => {
  const p = await connectionFromKubeconfig(admin());
  assert.deepEqual(p, {
    server: "https://10.0.0.1:6443",
    caPem: "CA PEM",
    certPem: "CERT PEM",
    keyPem: "KEY PEM",
  });
  assert.equal(resolveContext(admin()).cluster.server, "https://10.0.0.1:6443");
});

Deno.test("a named context, insecure flag and token file read through the reader", async () => {
  const files = new MemoryFileSystem({ "/var/run/token": "s3cr3t\n" });
  const p = await connectionFromKubeconfig(admin(), { context: "tok@other", files });
  assert.deepEqual(p, {
    server: "https://other:6443",
    insecureSkipTLSVerify: true,
    token: "s3cr3t",
  });
  await assert.rejects(
    () => connectionFromKubeconfig(admin(), { context: "tok@other" }),
    /tokenFile refers to file "\/var\/run\/token"/,
  );
});

Deno.test("kubelet.conf style file references", async () => {
  const cfg = admin();
  cfg.users![0].user = {
    "client-certificate": "/var/lib/kubelet/pki/kubelet-client-current.pem",
    "client-key": "/var/lib/kubelet/pki/kubelet-client-current.pem",
  };
  const files = new MemoryFileSystem({ "/var/lib/kubelet/pki/kubelet-client-current.pem": "BOTH" });
  const p = await connectionFromKubeconfig(cfg, { files });
  assert.equal(p.certPem, "BOTH");
  assert.equal(p.keyPem, "BOTH");
});

Deno.test("broken kubeconfigs give clear errors", async () => {
  const noCtx = { ...admin(), "current-context": "" };
  await assert.rejects(() => connectionFromKubeconfig(noCtx), /has no current-context/);
  await assert.rejects(
    () => connectionFromKubeconfig(admin(), { context: "missing" }),
    /context "missing" not found/,
  );
  const noUser = admin();
  noUser.users = [];
  await assert.rejects(() => connectionFromKubeconfig(noUser), /user "kubernetes-admin" not found/);
  const halfCert = admin();
  delete halfCert.users![0].user["client-key-data"];
  await assert.rejects(() => connectionFromKubeconfig(halfCert), /needs a client key/);
  const badB64 = admin();
  badB64.clusters![0].cluster["certificate-authority-data"] = "%%%";
  await assert.rejects(() => connectionFromKubeconfig(badB64), /not valid base64/);
});
