import assert from "node:assert/strict";
import {
  kubeletFlags,
  kubeletFlagsEnv,
  kubeletNodeName,
  taintToString,
} from "../../../core/kubelet/flags_env.ts";

const nodeRegistration = {
  name: "cp-1",
  criSocket: "unix:///var/run/containerd/containerd.sock",
  kubeletExtraArgs: [],
  taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" as const }],
};
const base = { nodeRegistration, pauseImage: "registry.k8s.io/pause:3.10.1", hostname: "cp-1" };

Deno.test("kubeletFlagsEnv() writes the default flags quoted like Go's %q", () => {
  assert.equal(
    kubeletFlagsEnv(base),
    'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10.1"\n',
  );
});

Deno.test("kubeletFlags() overrides the hostname only when the node name differs", () => {
  assert.ok(kubeletFlags({ ...base, hostname: "other-host" }).includes("--hostname-override=cp-1"));
  assert.ok(!kubeletFlags(base).some((f) => f.startsWith("--hostname-override")));
  const viaArg = {
    ...nodeRegistration,
    kubeletExtraArgs: [{ name: "hostname-override", value: "Alias" }],
  };
  assert.equal(kubeletNodeName(viaArg, "cp-1"), "Alias");
  assert.deepStrictEqual(
    kubeletFlags({ ...base, nodeRegistration: viaArg }).filter((f) => f.startsWith("--hostname")),
    ["--hostname-override=Alias"],
  );
});

Deno.test("kubeletFlags() keeps sorted defaults, then kubeletExtraArgs in the user's order", () => {
  const flags = kubeletFlags({
    ...base,
    nodeRegistration: {
      ...nodeRegistration,
      kubeletExtraArgs: [
        { name: "pod-infra-container-image", value: "my/pause:1" },
        { name: "node-ip", value: "10.0.0.2" },
        { name: "cgroup-driver", value: "" },
      ],
    },
  });
  assert.deepStrictEqual(flags, [
    "--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock",
    "--pod-infra-container-image=my/pause:1",
    "--node-ip=10.0.0.2",
    "--cgroup-driver=",
  ]);
});

Deno.test("kubeletFlags() registers taints only when asked (join) and drops the CRI flag for NodeLocalCRISocket", () => {
  assert.ok(!kubeletFlags(base).some((f) => f.startsWith("--register-with-taints")));
  const join = kubeletFlags({
    ...base,
    registerTaintsUsingFlags: true,
    nodeRegistration: {
      ...nodeRegistration,
      taints: [...nodeRegistration.taints, {
        key: "gpu",
        value: "true",
        effect: "NoExecute" as const,
      }],
    },
  });
  assert.ok(
    join.includes(
      "--register-with-taints=node-role.kubernetes.io/control-plane:NoSchedule,gpu=true:NoExecute",
    ),
  );
  assert.ok(
    !kubeletFlags({ ...base, nodeLocalCRISocket: true }).some((f) =>
      f.startsWith("--container-runtime")
    ),
  );
});

Deno.test("kubeletFlagsEnv() escapes quotes and backslashes in values", () => {
  const env = kubeletFlagsEnv({
    ...base,
    nodeRegistration: { ...nodeRegistration, kubeletExtraArgs: [{ name: "x", value: 'a"b\\c' }] },
  });
  assert.ok(env.endsWith(' --x=a\\"b\\\\c"\n'), env);
});

Deno.test("taintToString() renders key[=value]:effect", () => {
  assert.equal(taintToString({ key: "k", effect: "NoSchedule" }), "k:NoSchedule");
  assert.equal(
    taintToString({ key: "k", value: "v", effect: "PreferNoSchedule" }),
    "k=v:PreferNoSchedule",
  );
});
