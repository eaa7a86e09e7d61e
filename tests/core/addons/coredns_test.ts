import assert from "node:assert/strict";
import type { Deployment } from "kubernetes-types/apps/v1.d.ts";
import type { ConfigMap, Service } from "kubernetes-types/core/v1.d.ts";
import type { ClusterRole, ClusterRoleBinding } from "kubernetes-types/rbac/v1.d.ts";
import {
  coreDNSClusterRole,
  coreDNSDeployment,
  corefile,
  dnsServiceIP,
  ensureCoreDNS,
  kubeDNSService,
} from "../../../core/addons/coredns.ts";
import type { KubeObject } from "../../../core/kube/client.ts";
import { toKubeYaml } from "../../../core/yaml/kube_yaml.ts";
import { fakeApiClient, requestMatching } from "../../support/fake_kube_api.ts";
import { RecordingPrinter } from "../../support/recording_printer.ts";

const INPUT = {
  dnsDomain: "cluster.local",
  serviceSubnet: "10.96.0.0/12",
  image: "registry.k8s.io/coredns/coredns:v1.14.6",
};

function setup(objects: KubeObject[] = []) {
  return { ...fakeApiClient(objects), out: new RecordingPrinter() };
}

Deno.test("Corefile for cluster.local, byte for byte", () => {
  assert.equal(
    corefile("cluster.local"),
    `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success cluster.local
       disable denial cluster.local
    }
    loop
    reload
    loadbalance
}
`,
  );
  assert.ok(corefile("corp.example").includes("kubernetes corp.example in-addr.arpa ip6.arpa {"));
  assert.ok(corefile("").includes("    cache 30\n    loop\n"));
});

Deno.test("the Corefile ConfigMap renders as a literal block", () => {
  const yaml = toKubeYaml({ data: { Corefile: corefile("cluster.local") } });
  assert.ok(yaml.startsWith("data:\n  Corefile: |\n    .:53 {\n        errors\n"));
});

Deno.test("DNS service IP is the 10th address of the first service CIDR", () => {
  assert.equal(dnsServiceIP("10.96.0.0/12"), "10.96.0.10");
  assert.equal(dnsServiceIP("10.100.0.0/16,fd00::/108"), "10.100.0.10");
  assert.equal(dnsServiceIP("fd00:10:96::/112"), "fd00:10:96::a");
  assert.throws(
    () => dnsServiceIP("nonsense"),
    /unable to get the tenth IP address from service subnet CIDR nonsense/,
  );
});

Deno.test("Deployment: 1.34 ports and named probes, tolerations, security context", () => {
  const d = coreDNSDeployment(INPUT.image);
  assert.equal(d.spec?.replicas, 2);
  assert.deepEqual(d.spec?.strategy, {
    type: "RollingUpdate",
    rollingUpdate: { maxUnavailable: 1 },
  });
  const pod = d.spec!.template.spec!;
  const c = pod.containers[0];
  assert.deepEqual(c.ports?.map((p) => `${p.name}/${p.containerPort}/${p.protocol}`), [
    "dns/53/UDP",
    "dns-tcp/53/TCP",
    "metrics/9153/TCP",
    "liveness-probe/8080/TCP",
    "readiness-probe/8181/TCP",
  ]);
  assert.deepEqual(c.livenessProbe, {
    httpGet: { path: "/health", port: "liveness-probe", scheme: "HTTP" },
    initialDelaySeconds: 60,
    timeoutSeconds: 5,
    successThreshold: 1,
    failureThreshold: 5,
  });
  assert.deepEqual(c.readinessProbe, {
    httpGet: { path: "/ready", port: "readiness-probe", scheme: "HTTP" },
  });
  assert.deepEqual(c.args, ["-conf", "/etc/coredns/Corefile"]);
  assert.deepEqual(c.resources, {
    limits: { memory: "170Mi" },
    requests: { cpu: "100m", memory: "70Mi" },
  });
  assert.deepEqual(pod.tolerations, [
    { key: "CriticalAddonsOnly", operator: "Exists" },
    { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
  ]);
  assert.equal(pod.priorityClassName, "system-cluster-critical");
  assert.equal(pod.dnsPolicy, "Default");
  assert.deepEqual(pod.nodeSelector, { "kubernetes.io/os": "linux" });
  assert.deepEqual(c.securityContext, {
    allowPrivilegeEscalation: false,
    capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] },
    readOnlyRootFilesystem: true,
  });
  assert.deepEqual(pod.volumes, [{
    name: "config-volume",
    configMap: { name: "coredns", items: [{ key: "Corefile", path: "Corefile" }] },
  }]);
  const anti = pod.affinity!.podAntiAffinity!.preferredDuringSchedulingIgnoredDuringExecution![0];
  assert.equal(anti.weight, 100);
  assert.equal(anti.podAffinityTerm.topologyKey, "kubernetes.io/hostname");
});

Deno.test("Service kube-dns and the ClusterRole", () => {
  const s = kubeDNSService("10.96.0.10");
  assert.equal(s.spec?.clusterIP, "10.96.0.10");
  assert.equal(s.metadata?.resourceVersion, "0");
  assert.deepEqual(s.metadata?.labels, {
    "k8s-app": "kube-dns",
    "kubernetes.io/cluster-service": "true",
    "kubernetes.io/name": "CoreDNS",
  });
  assert.deepEqual(s.metadata?.annotations, {
    "prometheus.io/port": "9153",
    "prometheus.io/scrape": "true",
  });
  assert.deepEqual(s.spec?.ports?.map((p) => [p.name, p.port, p.protocol, p.targetPort]), [
    ["dns", 53, "UDP", 53],
    ["dns-tcp", 53, "TCP", 53],
    ["metrics", 9153, "TCP", 9153],
  ]);
  assert.deepEqual(coreDNSClusterRole().rules, [
    {
      apiGroups: [""],
      resources: ["endpoints", "services", "pods", "namespaces"],
      verbs: ["list", "watch"],
    },
    { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
  ]);
});

Deno.test("ensureCoreDNS creates everything in upstream's order", async () => {
  const { api, client, out } = setup();
  await ensureCoreDNS(client, INPUT, out);
  assert.deepEqual(out.lines, ["[addons] Applied essential addon: CoreDNS"]);
  assert.deepEqual(api.calls().filter((c) => !c.startsWith("GET")), [
    "POST /api/v1/namespaces/kube-system/configmaps",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterroles",
    "POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "POST /api/v1/namespaces/kube-system/serviceaccounts",
    "POST /apis/apps/v1/namespaces/kube-system/deployments",
    "POST /api/v1/namespaces/kube-system/services",
  ]);
  assert.equal(
    api.get<ConfigMap>("ConfigMap", "kube-system", "coredns")?.data?.Corefile,
    corefile("cluster.local"),
  );
  assert.deepEqual(
    api.get<ClusterRoleBinding>("ClusterRoleBinding", undefined, "system:coredns")?.subjects,
    [{ kind: "ServiceAccount", name: "coredns", namespace: "kube-system" }],
  );
  assert.ok(api.get<ClusterRole>("ClusterRole", undefined, "system:coredns"));
  assert.equal(
    api.get<Service>("Service", "kube-system", "kube-dns")?.spec?.clusterIP,
    "10.96.0.10",
  );
});

Deno.test("re-run: keeps the replica count, keeps a customized Corefile, updates the Service", async () => {
  const custom: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "coredns", namespace: "kube-system" },
    data: { Corefile: ".:53 { forward . 1.1.1.1 }" },
  };
  const existing = coreDNSDeployment("old", 5);
  const { api, client, out } = setup([custom, existing, kubeDNSService("10.96.0.10")]);
  await ensureCoreDNS(client, {
    ...INPUT,
    patchDeployment: (d) => ({
      ...d,
      metadata: { ...d.metadata, annotations: { patched: "yes" } },
    }),
  }, out);
  const d = api.get<Deployment>("Deployment", "kube-system", "coredns")!;
  assert.equal(d.spec?.replicas, 5);
  assert.equal(d.spec?.template.spec?.containers[0].image, INPUT.image);
  assert.equal(d.metadata?.annotations?.patched, "yes");
  assert.equal(
    api.get<ConfigMap>("ConfigMap", "kube-system", "coredns")?.data?.Corefile,
    custom.data!.Corefile,
  );
  assert.ok(api.calls().includes("PUT /api/v1/namespaces/kube-system/services/kube-dns"));
});

Deno.test("an Invalid (IP already allocated) Service create falls back to update", async () => {
  const { api, client, out } = setup([kubeDNSService("10.96.0.10")]);
  api.failNext({
    match: requestMatching("POST", "Service"),
    status: 422,
    reason: "Invalid",
    message:
      'Service "kube-dns" is invalid: spec.clusterIP: Invalid value: "10.96.0.10": provided IP is already allocated',
  });
  await ensureCoreDNS(client, INPUT, out);
  assert.ok(api.calls().includes("PUT /api/v1/namespaces/kube-system/services/kube-dns"));
  api.failNext({
    match: requestMatching("POST", "Service"),
    status: 403,
    reason: "Forbidden",
    message: "nope",
  });
  await assert.rejects(
    () => ensureCoreDNS(client, INPUT, out),
    /^KubeadmError: unable to create a new DNS service: /,
  );
});

Deno.test("two DNS deployments are an error", async () => {
  const a = coreDNSDeployment("x");
  const b = { ...coreDNSDeployment("x"), metadata: { ...a.metadata, name: "kube-dns" } };
  const { client, out } = setup([a, b]);
  await assert.rejects(
    () => ensureCoreDNS(client, INPUT, out),
    /multiple DNS addon deployments found: \[coredns kube-dns\]/,
  );
});
