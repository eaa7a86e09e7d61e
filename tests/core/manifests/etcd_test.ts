import assert from "node:assert/strict";
import { etcdCommand, etcdPod, etcdProbeEndpoint } from "../../../core/manifests/etcd.ts";
import {
  type ManifestInput,
  manifestInputFromInit,
} from "../../../core/manifests/manifest_input.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";

function input(
  edit: (cfg: ReturnType<typeof initConfigFixture>) => void = () => {},
): ManifestInput {
  const cfg = initConfigFixture();
  edit(cfg);
  return manifestInputFromInit(cfg, { proxyEnv: { HTTP_PROXY: "http://p" } });
}

Deno.test("etcdCommand() has upstream's full default flag set for etcd 3.6", () => {
  assert.deepStrictEqual(etcdCommand(input()), [
    "etcd",
    "--advertise-client-urls=https://192.168.0.10:2379",
    "--cert-file=/etc/kubernetes/pki/etcd/server.crt",
    "--client-cert-auth=true",
    "--data-dir=/var/lib/etcd",
    "--feature-gates=InitialCorruptCheck=true",
    "--initial-advertise-peer-urls=https://192.168.0.10:2380",
    "--initial-cluster=cp-1=https://192.168.0.10:2380",
    "--key-file=/etc/kubernetes/pki/etcd/server.key",
    "--listen-client-urls=https://127.0.0.1:2379,https://192.168.0.10:2379",
    "--listen-metrics-urls=http://127.0.0.1:2381",
    "--listen-peer-urls=https://192.168.0.10:2380",
    "--name=cp-1",
    "--peer-cert-file=/etc/kubernetes/pki/etcd/peer.crt",
    "--peer-client-cert-auth=true",
    "--peer-key-file=/etc/kubernetes/pki/etcd/peer.key",
    "--peer-trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt",
    "--snapshot-count=10000",
    "--trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt",
    "--watch-progress-notify-interval=5s",
  ]);
});

Deno.test("etcdCommand() passes the 3.6+ flags whatever the etcd tag (v1.37 dropped the experimental- ones)", () => {
  const cmd = etcdCommand(input((c) => {
    c.cluster.etcd.local!.imageTag = "3.5.24-0";
  }));
  assert.ok(cmd.includes("--feature-gates=InitialCorruptCheck=true"));
  assert.ok(cmd.includes("--watch-progress-notify-interval=5s"));
  assert.ok(!cmd.some((f) => f.startsWith("--experimental-")));
});

Deno.test("etcdCommand() uses IPv6 localhost and brackets", () => {
  const cmd = etcdCommand(input((c) => {
    c.init.localAPIEndpoint.advertiseAddress = "fd00::10";
  }));
  assert.ok(cmd.includes("--listen-client-urls=https://[::1]:2379,https://[fd00::10]:2379"));
  assert.ok(cmd.includes("--listen-metrics-urls=http://[::1]:2381"));
  assert.ok(cmd.includes("--initial-cluster=cp-1=https://[fd00::10]:2380"));
});

Deno.test("etcdCommand() lists existing members and existing state when joining", () => {
  const cmd = etcdCommand(input(), [
    { name: "cp-0", peerURL: "https://10.0.0.1:2380" },
    { name: "cp-1", peerURL: "https://192.168.0.10:2380" },
  ]);
  assert.ok(
    cmd.includes("--initial-cluster=cp-0=https://10.0.0.1:2380,cp-1=https://192.168.0.10:2380"),
  );
  assert.ok(cmd.includes("--initial-cluster-state=existing"));
});

Deno.test("etcdProbeEndpoint() follows the first listen-metrics-urls URL", () => {
  assert.deepStrictEqual(
    etcdProbeEndpoint(
      [{ name: "listen-metrics-urls", value: "https://[fd00::1]:9999,http://x:1" }],
      false,
    ),
    { host: "fd00::1", port: 9999, scheme: "HTTPS" },
  );
  assert.deepStrictEqual(
    etcdProbeEndpoint([{ name: "listen-metrics-urls", value: "http://:80" }], true),
    { host: "::1", port: 80, scheme: "HTTP" },
  );
  assert.deepStrictEqual(etcdProbeEndpoint(undefined, true), {
    host: "::1",
    port: 2381,
    scheme: "HTTP",
  });
  assert.deepStrictEqual(
    etcdProbeEndpoint([{ name: "listen-metrics-urls", value: "10.0.0.1:2381" }], false),
    { host: "127.0.0.1", port: 2381, scheme: "HTTP" },
  );
});

Deno.test("etcdPod() probes, env from extraEnvs only, data dir volume", () => {
  const pod = etcdPod(input((c) => {
    c.cluster.etcd.local = {
      dataDir: "/data/etcd",
      extraArgs: [{ name: "listen-metrics-urls", value: "http://127.0.0.1:2382" }],
      extraEnvs: [{ name: "ETCD_QUOTA", value: "8G" }],
    };
  }));
  const c = pod.spec!.containers[0];
  assert.deepStrictEqual(c.ports, [{ containerPort: 2382, name: "probe-port", protocol: "TCP" }]);
  assert.equal(c.livenessProbe!.httpGet!.path, "/livez");
  assert.equal(c.readinessProbe!.httpGet!.path, "/readyz");
  assert.equal(c.startupProbe!.httpGet!.path, "/readyz");
  assert.deepStrictEqual(c.env, [{ name: "ETCD_QUOTA", value: "8G" }]);
  assert.ok(c.command!.includes("--data-dir=/data/etcd"));
  assert.ok(c.command!.includes("--listen-metrics-urls=http://127.0.0.1:2382"));
  assert.deepStrictEqual(c.volumeMounts, [
    { mountPath: "/data/etcd", name: "etcd-data" },
    { mountPath: "/etc/kubernetes/pki/etcd", name: "etcd-certs" },
  ]);
  assert.deepStrictEqual(c.resources, { requests: { cpu: "100m", memory: "100Mi" } });
  assert.equal(
    pod.metadata!.annotations!["kubeadm.kubernetes.io/etcd.advertise-client-urls"],
    "https://192.168.0.10:2379",
  );
});
