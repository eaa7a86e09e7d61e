/**
 * The `kubeadm join` workflow's phases: upstream v1.37's, in upstream's order, with the flags
 * each `join phase <name>` command accepts.
 *
 * The etcd member join runs in `etcd-join` right after `kubelet-start`, and the wait for the
 * kubelet's TLS bootstrap in `kubelet-wait-bootstrap` (both listed and always run since v1.36;
 * `control-plane-join etcd` is gone). Only `check-etcd` stays hidden.
 *
 * The preflight phase's work is the caller's: the command line runs kubeadm's checks
 * (`./workflow.ts`); a plan, which has no machine to inspect and always skips the phase, does
 * not carry the checks at all.
 *
 * @module
 */
import type { Phase, Workflow } from "../../workflow/phase.ts";
import type { JoinData } from "./data.ts";

/**
 * Where the join phases' work lives: a loader per phase module, as `InitPhaseModules`
 * (`../init/phases.ts`) for init.
 */
export interface JoinPhaseModules {
  prepare(): Promise<typeof import("./control_plane_prepare.ts")>;
  etcd(): Promise<typeof import("./etcd.ts")>;
  kubelet(): Promise<typeof import("./kubelet_start.ts")>;
  mark(): Promise<typeof import("./mark_control_plane.ts")>;
  wait(): Promise<typeof import("./wait_control_plane.ts")>;
}

const DISCOVERY_FLAGS = [
  "config",
  "discovery-file",
  "discovery-token",
  "discovery-token-ca-cert-hash",
  "discovery-token-unsafe-skip-ca-verification",
  "tls-bootstrap-token",
  "token",
] as const;

const API_SERVER_ENDPOINT = "[api-server-endpoint]";

function cpJoinFlags(name: "all" | "etcd-join" | "mark-control-plane"): string[] {
  const flags = ["config", "control-plane", "node-name"];
  if (name === "etcd-join" || name === "all") flags.push("patches");
  if (name !== "mark-control-plane") flags.push("apiserver-advertise-address");
  flags.push("dry-run");
  return flags;
}

function controlPlanePrepare(m: JoinPhaseModules): Phase<JoinData> {
  return {
    name: "control-plane-prepare",
    short: "Prepare the machine for serving a control plane",
    phases: [
      {
        name: "all",
        short: "Prepare the machine for serving a control plane",
        runAllSiblings: true,
        argsUsage: API_SERVER_ENDPOINT,
        flags: [
          "apiserver-advertise-address",
          "apiserver-bind-port",
          "control-plane",
          "node-name",
          ...DISCOVERY_FLAGS,
          "certificate-key",
          "patches",
          "dry-run",
        ],
      },
      {
        name: "download-certs",
        short:
          "Download certificates shared among control-plane nodes from the kubeadm-certs Secret",
        argsUsage: API_SERVER_ENDPOINT,
        run: async (d) => (await m.prepare()).runDownloadCerts(d),
        flags: ["control-plane", ...DISCOVERY_FLAGS, "certificate-key", "dry-run"],
      },
      {
        name: "certs",
        short: "Generate the certificates for the new control plane components",
        argsUsage: API_SERVER_ENDPOINT,
        run: async (d) => (await m.prepare()).runJoinCerts(d),
        flags: [
          "apiserver-advertise-address",
          "control-plane",
          "node-name",
          ...DISCOVERY_FLAGS,
          "dry-run",
        ],
      },
      {
        name: "kubeconfig",
        short: "Generate the kubeconfig for the new control plane components",
        argsUsage: API_SERVER_ENDPOINT,
        run: async (d) => (await m.prepare()).runJoinKubeconfigs(d),
        flags: ["control-plane", ...DISCOVERY_FLAGS, "certificate-key", "dry-run"],
      },
      {
        name: "control-plane",
        short: "Generate the manifests for the new control plane components",
        run: async (d) => (await m.prepare()).runJoinControlPlaneManifests(d),
        flags: [
          "apiserver-advertise-address",
          "apiserver-bind-port",
          "config",
          "control-plane",
          "patches",
          "dry-run",
        ],
      },
    ],
  };
}

/**
 * Builds the join workflow on the phase modules `m`, with `preflight` as the preflight phase's
 * work (see `joinWorkflow` in `./workflow.ts` for the command line's).
 */
export function joinWorkflowWith(
  m: JoinPhaseModules,
  preflight: (data: JoinData) => Promise<void>,
): Workflow<JoinData> {
  return {
    name: "join",
    phases: [
      {
        name: "preflight",
        short: "Run join pre-flight checks",
        long: "Run pre-flight checks for kubeadm join.",
        argsUsage: API_SERVER_ENDPOINT,
        run: preflight,
        flags: [
          "config",
          "ignore-preflight-errors",
          "tls-bootstrap-token",
          "token",
          "control-plane",
          "apiserver-advertise-address",
          "apiserver-bind-port",
          "cri-socket",
          "node-name",
          "discovery-file",
          "discovery-token",
          "discovery-token-ca-cert-hash",
          "discovery-token-unsafe-skip-ca-verification",
          "certificate-key",
          "dry-run",
          "output",
        ],
      },
      controlPlanePrepare(m),
      {
        name: "check-etcd",
        short: "Check that the local etcd cluster is healthy",
        hidden: true,
        run: async (d) => (await m.etcd()).runCheckEtcd(d),
        flags: ["config", "control-plane", "dry-run"],
      },
      {
        name: "kubelet-start",
        short: "Write kubelet settings, certificates and (re)start the kubelet",
        long:
          "Write a file with KubeletConfiguration and an environment file with node specific kubelet settings, and then (re)start kubelet.",
        argsUsage: API_SERVER_ENDPOINT,
        run: async (d) => (await m.kubelet()).runKubeletStart(d),
        flags: [
          "config",
          "cri-socket",
          "node-name",
          ...DISCOVERY_FLAGS.filter((f) => f !== "config"),
          "patches",
          "dry-run",
        ],
      },
      {
        name: "etcd-join",
        short: "Join etcd for control plane nodes",
        run: async (d) => (await m.etcd()).runEtcdJoin(d),
        flags: cpJoinFlags("etcd-join"),
      },
      {
        name: "kubelet-wait-bootstrap",
        short: "Wait for the kubelet to bootstrap itself",
        run: async (d) => (await m.kubelet()).runKubeletWaitBootstrap(d),
        flags: ["config", "cri-socket", "dry-run"],
      },
      {
        name: "control-plane-join",
        short: "Join a machine as a control plane instance",
        phases: [
          {
            name: "all",
            short: "Join a machine as a control plane instance",
            runAllSiblings: true,
            flags: cpJoinFlags("all"),
          },
          {
            name: "mark-control-plane",
            short: "Mark a node as a control-plane",
            run: async (d) => (await m.mark()).runJoinMarkControlPlane(d),
            flags: cpJoinFlags("mark-control-plane"),
          },
        ],
      },
      {
        name: "wait-control-plane",
        short: "Wait for the control plane to start",
        run: async (d) => (await m.wait()).runJoinWaitControlPlane(d),
        flags: [],
      },
    ],
  };
}
