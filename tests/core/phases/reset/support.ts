// Shared setup for the reset phase tests: a fake control-plane node after `kubeadm init`.
import { buildResetData, type ResetData } from "../../../../core/phases/reset/data.ts";
import type { Inputs } from "../../../../core/config/inputs.ts";
import type { ResetConfiguration } from "../../../../core/config/types.ts";
import type { ResetClusterConfig } from "../../../../core/phases/reset/data.ts";
import { CapturePrinter, type FakeMachine } from "../../../support/fake_machine.ts";
import { FakeNodeHost } from "../../../support/fake_node_host.ts";

/** The etcd manifest of member `cp-1` at 192.168.0.10 in a two-member cluster. */
export const ETCD_MANIFEST = `apiVersion: v1
kind: Pod
metadata:
  name: etcd
  namespace: kube-system
spec:
  containers:
  - name: etcd
    command:
    - etcd
    - --advertise-client-urls=https://192.168.0.10:2379
    - --data-dir=/var/lib/etcd
    - --initial-advertise-peer-urls=https://192.168.0.10:2380
    - --initial-cluster=cp-1=https://192.168.0.10:2380,cp-2=https://192.168.0.11:2380
    - --name=cp-1
  volumes:
  - hostPath:
      path: /var/lib/etcd
      type: DirectoryOrCreate
    name: etcd-data
`;

/** Seeds the files `kubeadm init` leaves on a control-plane node. */
export function seedInitNode(host: FakeNodeHost): void {
  const f = host.files;
  for (const m of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
    f.put(`/etc/kubernetes/manifests/${m}.yaml`, "kind: Pod\n");
  }
  f.put("/etc/kubernetes/manifests/etcd.yaml", ETCD_MANIFEST);
  for (const k of ["admin", "super-admin", "kubelet", "controller-manager", "scheduler"]) {
    f.put(`/etc/kubernetes/${k}.conf`, "apiVersion: v1\n");
  }
  for (const c of ["ca.crt", "ca.key", "apiserver-etcd-client.crt", "apiserver-etcd-client.key"]) {
    f.put(`/etc/kubernetes/pki/${c}`, `PEM ${c}`);
  }
  f.put("/etc/kubernetes/pki/etcd/ca.crt", "PEM etcd-ca");
  f.put("/etc/kubernetes/tmp/kubeadm-backup/x", "x");
  f.put("/var/lib/kubelet/config.yaml", "kind: KubeletConfiguration\n");
  f.put("/var/lib/kubelet/pki/kubelet-client-current.pem", "PEM");
  f.put("/var/lib/etcd/member/snap/db", "data");
  f.put("/etc/kubernetes/keep-me.txt", "not kubeadm's");
}

/** Options of {@link resetFixture}. */
export interface ResetFixtureOptions {
  inputs?: Inputs;
  config?: ResetConfiguration;
  cluster?: ResetClusterConfig;
  /** Lines the user types at the prompt (`undefined` = end of input). */
  answers?: (string | undefined)[];
  seed?: boolean;
}

/** A reset run on a seeded fake node; `prompts` records what was asked. */
export function resetFixture(opts: ResetFixtureOptions = {}): {
  data: ResetData & { skipPhases: string[] };
  host: FakeNodeHost;
  preflight: FakeMachine;
  out: CapturePrinter;
  prompts: string[];
} {
  const host = new FakeNodeHost();
  if (opts.seed ?? true) seedInitNode(host);
  const preflight = host.machine;
  const out = new CapturePrinter();
  const prompts: string[] = [];
  const answers = [...(opts.answers ?? [])];
  const data = buildResetData({
    inputs: opts.inputs ?? { force: true },
    config: opts.config,
    cluster: opts.cluster,
    out,
    node: host,
    confirm: (prompt) => {
      prompts.push(prompt);
      return Promise.resolve(answers.shift());
    },
  });
  return { data, host, preflight, out, prompts };
}
