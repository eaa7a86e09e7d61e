import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.d.ts";
import {
  apiServerCommand,
  apiServerPod,
  authorizationModes,
} from "../../../core/manifests/apiserver.ts";
import {
  type ManifestInput,
  manifestInputFromInit,
} from "../../../core/manifests/manifest_input.ts";
import { initConfigFixture } from "../../support/init_config_fixture.ts";

function input(
  edit: (cfg: ReturnType<typeof initConfigFixture>) => void = () => {},
  extra: Partial<ManifestInput> = {},
): ManifestInput {
  const cfg = initConfigFixture();
  edit(cfg);
  return manifestInputFromInit(cfg, extra);
}

function container(pod: Pod) {
  return pod.spec!.containers[0];
}

const DEFAULT_COMMAND = [
  "kube-apiserver",
  "--advertise-address=192.168.0.10",
  "--allow-privileged=true",
  "--authorization-mode=Node,RBAC",
  "--client-ca-file=/etc/kubernetes/pki/ca.crt",
  "--enable-admission-plugins=NodeRestriction",
  "--enable-bootstrap-token-auth=true",
  "--etcd-cafile=/etc/kubernetes/pki/etcd/ca.crt",
  "--etcd-certfile=/etc/kubernetes/pki/apiserver-etcd-client.crt",
  "--etcd-keyfile=/etc/kubernetes/pki/apiserver-etcd-client.key",
  "--etcd-servers=https://127.0.0.1:2379",
  "--kubelet-client-certificate=/etc/kubernetes/pki/apiserver-kubelet-client.crt",
  "--kubelet-client-key=/etc/kubernetes/pki/apiserver-kubelet-client.key",
  "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
  "--proxy-client-cert-file=/etc/kubernetes/pki/front-proxy-client.crt",
  "--proxy-client-key-file=/etc/kubernetes/pki/front-proxy-client.key",
  "--requestheader-allowed-names=front-proxy-client",
  "--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt",
  "--requestheader-extra-headers-prefix=X-Remote-Extra-",
  "--requestheader-group-headers=X-Remote-Group",
  "--requestheader-username-headers=X-Remote-User",
  "--secure-port=6443",
  "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
  "--service-account-key-file=/etc/kubernetes/pki/sa.pub",
  "--service-account-signing-key-file=/etc/kubernetes/pki/sa.key",
  "--service-cluster-ip-range=10.96.0.0/12",
  "--tls-cert-file=/etc/kubernetes/pki/apiserver.crt",
  "--tls-private-key-file=/etc/kubernetes/pki/apiserver.key",
];

Deno.test("apiServerCommand() has upstream's full default flag set", () => {
  assert.deepStrictEqual(apiServerCommand(input()), DEFAULT_COMMAND);
});

Deno.test("apiServerCommand() follows certificatesDir, bindPort, dnsDomain and serviceSubnet", () => {
  const cmd = apiServerCommand(input((c) => {
    c.cluster.certificatesDir = "/srv/pki";
    c.init.localAPIEndpoint.bindPort = 8443;
    c.cluster.networking.dnsDomain = "corp.example";
    c.cluster.networking.serviceSubnet = "10.100.0.0/16,fd00::/108";
  }));
  assert.ok(cmd.includes("--secure-port=8443"));
  assert.ok(cmd.includes("--client-ca-file=/srv/pki/ca.crt"));
  assert.ok(cmd.includes("--etcd-cafile=/srv/pki/etcd/ca.crt"));
  assert.ok(cmd.includes("--service-account-issuer=https://kubernetes.default.svc.corp.example"));
  assert.ok(cmd.includes("--service-cluster-ip-range=10.100.0.0/16,fd00::/108"));
});

Deno.test("apiServerCommand() merges extraArgs: overrides replace by name, duplicates kept, appended in order", () => {
  const cmd = apiServerCommand(input((c) => {
    c.cluster.apiServer.extraArgs = [
      { name: "enable-admission-plugins", value: "NodeRestriction,PodSecurity" },
      { name: "tls-cipher-suites", value: "b" },
      { name: "tls-cipher-suites", value: "a" },
      { name: "audit-log-path", value: "" },
    ];
  }));
  assert.deepStrictEqual(cmd.filter((f) => f.startsWith("--enable-admission-plugins")), [
    "--enable-admission-plugins=NodeRestriction,PodSecurity",
  ]);
  assert.deepStrictEqual(cmd.filter((f) => f.startsWith("--tls-cipher-suites")), [
    "--tls-cipher-suites=b",
    "--tls-cipher-suites=a",
  ]);
  assert.equal(cmd[1], "--advertise-address=192.168.0.10");
  assert.equal(cmd[2], "--allow-privileged=true");
  // upstream 1.34: the defaults stay sorted, the overrides follow in the user's order.
  assert.deepStrictEqual(cmd.slice(-4), [
    "--enable-admission-plugins=NodeRestriction,PodSecurity",
    "--tls-cipher-suites=b",
    "--tls-cipher-suites=a",
    "--audit-log-path=",
  ]);
  const defaults = cmd.slice(1, -4).map((f) => f.slice(2, f.indexOf("=")));
  assert.deepStrictEqual(defaults, [...defaults].sort());
});

Deno.test("authorizationModes() filters unknown modes and warns like upstream", () => {
  const warnings: string[] = [];
  assert.equal(
    authorizationModes("Node,Foo,RBAC,Webhook", (w) => warnings.push(w)),
    "Node,RBAC,Webhook",
  );
  assert.deepStrictEqual(warnings, [
    'ignoring unknown kube-apiserver authorization-mode "Foo"',
    'the default kube-apiserver authorization-mode is "Node,RBAC"; using "Node,RBAC,Webhook"',
  ]);
  assert.equal(authorizationModes("Bogus", () => {}), "Node,RBAC");
  assert.equal(authorizationModes(undefined), "Node,RBAC");
  const quiet: string[] = [];
  assert.equal(authorizationModes("Node,RBAC", (w) => quiet.push(w)), "Node,RBAC");
  // v1.37: empty items are skipped silently.
  assert.equal(authorizationModes("Node,,RBAC,", (w) => quiet.push(w)), "Node,RBAC");
  assert.deepStrictEqual(quiet, []);
});

Deno.test("apiServerCommand() keeps a user authorization-mode verbatim and warns", () => {
  const warnings: string[] = [];
  const cmd = apiServerCommand(input((c) => {
    c.cluster.apiServer.extraArgs = [{ name: "authorization-mode", value: "Node,RBAC,Foo" }];
  }, { warn: (w) => warnings.push(w) }));
  assert.deepStrictEqual(cmd.filter((f) => f.startsWith("--authorization-mode")), [
    "--authorization-mode=Node,RBAC,Foo",
  ]);
  assert.deepStrictEqual(warnings, ['ignoring unknown kube-apiserver authorization-mode "Foo"']);
});

Deno.test("apiServerCommand() omits authorization-mode when authorization-config is given", () => {
  const cmd = apiServerCommand(input((c) => {
    c.cluster.apiServer.extraArgs = [{
      name: "authorization-config",
      value: "/etc/kubernetes/authz.yaml",
    }];
  }));
  assert.ok(!cmd.some((f) => f.startsWith("--authorization-mode")));
  assert.ok(cmd.includes("--authorization-config=/etc/kubernetes/authz.yaml"));
});

Deno.test("apiServerCommand() uses [::1] for local etcd with an IPv6 advertise address", () => {
  const cmd = apiServerCommand(input((c) => {
    c.init.localAPIEndpoint.advertiseAddress = "fd00::10";
  }));
  assert.ok(cmd.includes("--etcd-servers=https://[::1]:2379"));
  assert.ok(cmd.includes("--advertise-address=fd00::10"));
});

Deno.test("apiServerCommand() points etcd-servers at etcd.local advertise-client-urls", () => {
  const cmd = apiServerCommand(input((c) => {
    c.cluster.etcd.local!.extraArgs = [{
      name: "advertise-client-urls",
      value: "https://10.0.0.5:2379",
    }];
  }));
  assert.ok(cmd.includes("--etcd-servers=https://10.0.0.5:2379"));
});

Deno.test("apiServerCommand() with external etcd uses its endpoints and files", () => {
  const cmd = apiServerCommand(input((c) => {
    c.cluster.etcd = {
      external: {
        endpoints: ["https://e1:2379", "https://e2:2379"],
        caFile: "/etc/etcd/ca.crt",
        certFile: "/etc/etcd/client.crt",
        keyFile: "/etc/etcd/client.key",
      },
    };
  }));
  assert.deepStrictEqual(cmd.filter((f) => f.startsWith("--etcd-")), [
    "--etcd-cafile=/etc/etcd/ca.crt",
    "--etcd-certfile=/etc/etcd/client.crt",
    "--etcd-keyfile=/etc/etcd/client.key",
    "--etcd-servers=https://e1:2379,https://e2:2379",
  ]);
});

Deno.test("apiServerCommand() with plain-HTTP external etcd sets only etcd-servers", () => {
  const cmd = apiServerCommand(input((c) => {
    c.cluster.etcd = { external: { endpoints: ["http://e1:2379"], certFile: "/x.crt" } };
  }));
  assert.deepStrictEqual(cmd.filter((f) => f.startsWith("--etcd-")), [
    "--etcd-servers=http://e1:2379",
  ]);
});

Deno.test("apiServerPod() probes the advertise address on probe-port", () => {
  const c = container(apiServerPod(input()));
  assert.deepStrictEqual(c.ports, [{ containerPort: 6443, name: "probe-port", protocol: "TCP" }]);
  assert.deepStrictEqual(c.livenessProbe, {
    failureThreshold: 8,
    httpGet: { host: "192.168.0.10", path: "/livez", port: "probe-port", scheme: "HTTPS" },
    initialDelaySeconds: 10,
    periodSeconds: 10,
    timeoutSeconds: 15,
  });
  assert.deepStrictEqual(c.readinessProbe, {
    failureThreshold: 3,
    httpGet: { host: "192.168.0.10", path: "/readyz", port: "probe-port", scheme: "HTTPS" },
    periodSeconds: 1,
    timeoutSeconds: 15,
  });
  assert.equal(c.startupProbe!.httpGet!.path, "/livez");
  assert.equal(c.startupProbe!.failureThreshold, 24);
});

Deno.test("apiServerPod() startup failureThreshold follows controlPlaneComponentHealthCheck", () => {
  const pod = apiServerPod(input((c) => {
    c.init.timeouts.controlPlaneComponentHealthCheck = "10m5s";
  }));
  assert.equal(container(pod).startupProbe!.failureThreshold, 61);
});

Deno.test("apiServerPod() brackets IPv6 in the endpoint annotation and omits the 0.0.0.0 probe host", () => {
  const v6 = apiServerPod(input((c) => {
    c.init.localAPIEndpoint.advertiseAddress = "fd00::10";
  }));
  assert.equal(
    v6.metadata!.annotations!["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"],
    "[fd00::10]:6443",
  );
  assert.equal(container(v6).livenessProbe!.httpGet!.host, "fd00::10");
  const any = apiServerPod(input((c) => {
    c.init.localAPIEndpoint.advertiseAddress = "0.0.0.0";
  }));
  assert.equal(container(any).livenessProbe!.httpGet!.host, undefined);
});

Deno.test("apiServerPod() has the common static Pod shape", () => {
  const pod = apiServerPod(input());
  assert.deepStrictEqual(pod.metadata!.labels, {
    component: "kube-apiserver",
    tier: "control-plane",
  });
  assert.equal(pod.metadata!.namespace, "kube-system");
  assert.equal(pod.spec!.priority, 2000001000);
  assert.equal(pod.spec!.priorityClassName, "system-node-critical");
  assert.equal(pod.spec!.hostNetwork, true);
  assert.deepStrictEqual(pod.spec!.securityContext, { seccompProfile: { type: "RuntimeDefault" } });
  assert.deepStrictEqual(container(pod).resources, { requests: { cpu: "250m" } });
  assert.equal(container(pod).image, "registry.k8s.io/kube-apiserver:v1.37.2");
  assert.equal(container(pod).imagePullPolicy, "IfNotPresent");
  assert.deepStrictEqual(pod.status, {});
});

Deno.test("apiServerPod() mounts existing CA-trust dirs, sorted by name", () => {
  const pod = apiServerPod(input(() => {}, {
    existingDirs: new Set(["/usr/share/ca-certificates", "/etc/pki/ca-trust", "/not/a/trust/dir"]),
  }));
  assert.deepStrictEqual(pod.spec!.volumes!.map((v) => v.name), [
    "ca-certs",
    "etc-pki-ca-trust",
    "k8s-certs",
    "usr-share-ca-certificates",
  ]);
  assert.deepStrictEqual(
    container(pod).volumeMounts!.map((v) => [v.name, v.mountPath, v.readOnly]),
    [
      ["ca-certs", "/etc/ssl/certs", true],
      ["etc-pki-ca-trust", "/etc/pki/ca-trust", true],
      ["k8s-certs", "/etc/kubernetes/pki", true],
      ["usr-share-ca-certificates", "/usr/share/ca-certificates", true],
    ],
  );
});

Deno.test("apiServerPod() adds external etcd cert dirs not already mounted", () => {
  const pod = apiServerPod(input((c) => {
    c.cluster.etcd = {
      external: {
        endpoints: ["https://e1:2379"],
        caFile: "/etc/etcd/pki/ca.crt",
        certFile: "/etc/etcd/pki/client/client.crt",
        keyFile: "/etc/kubernetes/pki/etcd-client.key",
      },
    };
  }));
  const etcd = pod.spec!.volumes!.filter((v) => v.name.startsWith("etcd-certs"));
  assert.deepStrictEqual(etcd, [
    { hostPath: { path: "/etc/etcd/pki", type: "DirectoryOrCreate" }, name: "etcd-certs-0" },
  ]);
});

Deno.test("apiServerPod() lets extraVolumes replace a default volume by name", () => {
  const pod = apiServerPod(input((c) => {
    c.cluster.apiServer.extraVolumes = [
      { name: "k8s-certs", hostPath: "/srv/pki", mountPath: "/etc/kubernetes/pki" },
      {
        name: "audit",
        hostPath: "/var/log/audit",
        mountPath: "/audit",
        readOnly: false,
        pathType: "DirectoryOrCreate",
      },
    ];
  }));
  assert.deepStrictEqual(pod.spec!.volumes, [
    { hostPath: { path: "/var/log/audit", type: "DirectoryOrCreate" }, name: "audit" },
    { hostPath: { path: "/etc/ssl/certs", type: "DirectoryOrCreate" }, name: "ca-certs" },
    { hostPath: { path: "/srv/pki", type: "" }, name: "k8s-certs" },
  ]);
  assert.deepStrictEqual(container(pod).volumeMounts, [
    { mountPath: "/audit", name: "audit" },
    { mountPath: "/etc/ssl/certs", name: "ca-certs", readOnly: true },
    { mountPath: "/etc/kubernetes/pki", name: "k8s-certs" },
  ]);
});

Deno.test("apiServerPod() env: host proxy vars merged with extraEnvs, sorted", () => {
  const pod = apiServerPod(input((c) => {
    c.cluster.apiServer.extraEnvs = [{ name: "NO_PROXY", value: "override" }, {
      name: "A",
      value: "1",
    }];
  }, { proxyEnv: { NO_PROXY: "host", https_proxy: "http://p" } }));
  assert.deepStrictEqual(container(pod).env, [
    { name: "A", value: "1" },
    { name: "NO_PROXY", value: "override" },
    { name: "https_proxy", value: "http://p" },
  ]);
  assert.equal(container(apiServerPod(input())).env, undefined);
});
