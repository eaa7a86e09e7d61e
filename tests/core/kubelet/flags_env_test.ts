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
const base = { nodeRegistration, hostname: "cp-1" };

Deno.test("kubeletFlagsEnv() writes no flag by default (v1.37: no CRI socket, no pause image)", () => {
  assert.equal(kubeletFlagsEnv(base), 'KUBELET_KUBEADM_ARGS=""\n');
  // upstream kubeadm v1.37.2 init --dry-run (node name cp1 on another host).
  assert.equal(
    kubeletFlagsEnv({ ...base, nodeRegistration: { ...nodeRegistration, name: "cp1" } }),
    'KUBELET_KUBEADM_ARGS="--hostname-override=cp1"\n',
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
    "--pod-infra-container-image=my/pause:1",
    "--node-ip=10.0.0.2",
    "--cgroup-driver=",
  ]);
});

Deno.test("kubeletFlags() registers taints only when asked (worker join)", () => {
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
  assert.equal(
    kubeletFlags({
      ...base,
      registerTaintsUsingFlags: true,
      nodeRegistration: { ...nodeRegistration, taints: [] },
    }).length,
    0,
  );
});

Deno.test("kubeletFlagsEnv() escapes quotes and backslashes in values", () => {
  const env = kubeletFlagsEnv({
    ...base,
    nodeRegistration: { ...nodeRegistration, kubeletExtraArgs: [{ name: "x", value: 'a"b\\c' }] },
  });
  assert.equal(env, 'KUBELET_KUBEADM_ARGS="--x=a\\"b\\\\c"\n');
});

Deno.test("taintToString() renders key[=value]:effect", () => {
  assert.equal(taintToString({ key: "k", effect: "NoSchedule" }), "k:NoSchedule");
  assert.equal(
    taintToString({ key: "k", value: "v", effect: "PreferNoSchedule" }),
    "k=v:PreferNoSchedule",
  );
});
