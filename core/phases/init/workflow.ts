/**
 * The `kubeadm init` workflow: upstream's phases, in upstream's order.
 *
 * Each phase's work lives in its own module; the phases from `wait-control-plane` on talk to
 * the cluster through the ports of {@link InitData} (`health`, `cluster`, `kubelet`).
 *
 * @module
 */
import { KubeadmError } from "../../errors.ts";
import type { Phase, Workflow } from "../../workflow/phase.ts";
import type { InitData } from "./data.ts";
import { CERT_SUB_PHASES } from "../../certs/certlist.ts";
import { KUBECONFIG_SPECS } from "../../kubeconfig/specs.ts";

// Phase implementations pull in the PKI and YAML stacks; load them only when a phase runs so
// that building the command tree (and `--help`) stays cheap.
const certs = () => import("./certs.ts");
const kubeconfigs = () => import("./kubeconfig.ts");
const controlPlane = () => import("./control_plane.ts");
const etcd = () => import("./etcd.ts");
const kubeletStart = () => import("./kubelet_start.ts");
const preflight = () => import("./preflight.ts");
const waitControlPlane = () => import("./wait_control_plane.ts");
const uploadConfig = () => import("./upload_config.ts");
const uploadCerts = () => import("./upload_certs.ts");
const markControlPlane = () => import("./mark_control_plane.ts");
const bootstrapToken = () => import("./bootstrap_token.ts");
const kubeletFinalize = () => import("./kubelet_finalize.ts");
const addons = () => import("./addons.ts");
const showJoinCommand = () => import("./show_join_command.ts");

const localEtcd = (d: InitData) => d.cfg.cluster.etcd.external === undefined;

const CONFIG_FLAGS = ["config", "kubernetes-version", "rootfs", "dry-run"] as const;

const certsPhase: Phase<InitData> = {
  name: "certs",
  short: "Certificate generation",
  run: async (d) => (await certs()).runCertsHeader(d),
  phases: [
    {
      name: "all",
      short: "Generate all certificates",
      runAllSiblings: true,
      flags: ["cert-dir", ...CONFIG_FLAGS],
    },
    ...CERT_SUB_PHASES.map((c): Phase<InitData> => ({
      name: c.name,
      short: c.short,
      long: c.long,
      run: async (d) => (await certs()).runCert(d, c.name),
      flags: ["cert-dir", ...CONFIG_FLAGS],
    })),
  ],
};

const kubeconfigPhase: Phase<InitData> = {
  name: "kubeconfig",
  short:
    "Generate all kubeconfig files necessary to establish the control plane and the admin kubeconfig file",
  run: async (d) => (await kubeconfigs()).runKubeconfigHeader(d),
  phases: [
    {
      name: "all",
      short: "Generate all kubeconfig files",
      runAllSiblings: true,
    },
    ...KUBECONFIG_SPECS.map((k): Phase<InitData> => ({
      name: k.name,
      short: k.short,
      run: async (d) => (await kubeconfigs()).runKubeconfig(d, k.name),
    })),
  ],
};

/** Builds the init workflow. */
export function initWorkflow(): Workflow<InitData> {
  return {
    name: "init",
    phases: [
      {
        name: "preflight",
        short: "Run pre-flight checks",
        run: runPreflightPhase,
      },
      certsPhase,
      kubeconfigPhase,
      {
        name: "etcd",
        short: "Generate static Pod manifest file for local etcd",
        phases: [{
          name: "local",
          short:
            "Generate the static Pod manifest file for a local, single-node local etcd instance",
          runIf: localEtcd,
          run: async (d) => (await etcd()).runLocalEtcd(d),
        }],
      },
      {
        name: "control-plane",
        short: "Generate all static Pod manifest files necessary to establish the control plane",
        run: async (d) => (await controlPlane()).runControlPlaneHeader(d),
        phases: [
          {
            name: "all",
            short: "Generate all static Pod manifest files",
            runAllSiblings: true,
          },
          {
            name: "apiserver",
            short: "Generates the kube-apiserver static Pod manifest",
            run: async (d) => (await controlPlane()).runControlPlane(d, "kube-apiserver"),
          },
          {
            name: "controller-manager",
            short: "Generates the kube-controller-manager static Pod manifest",
            run: async (d) => (await controlPlane()).runControlPlane(d, "kube-controller-manager"),
          },
          {
            name: "scheduler",
            short: "Generates the kube-scheduler static Pod manifest",
            run: async (d) => (await controlPlane()).runControlPlane(d, "kube-scheduler"),
          },
        ],
      },
      {
        name: "kubelet-start",
        short: "Write kubelet settings and (re)start the kubelet",
        run: async (d) => (await kubeletStart()).runKubeletStart(d),
      },
      {
        name: "wait-control-plane",
        short: "Wait for the control plane to start",
        run: async (d) => (await waitControlPlane()).runWaitControlPlane(d),
      },
      {
        name: "upload-config",
        aliases: ["uploadconfig"],
        short: "Upload the kubeadm and kubelet configuration to a ConfigMap",
        phases: [
          { name: "all", short: "Upload all configuration to a config map", runAllSiblings: true },
          {
            name: "kubeadm",
            short: "Upload the kubeadm ClusterConfiguration to a ConfigMap",
            run: async (d) => (await uploadConfig()).runUploadKubeadmConfig(d),
          },
          {
            name: "kubelet",
            short: "Upload the kubelet component config to a ConfigMap",
            run: async (d) => (await uploadConfig()).runUploadKubeletConfig(d),
          },
        ],
      },
      {
        name: "upload-certs",
        short: "Upload certificates to kubeadm-certs",
        run: async (d) => (await uploadCerts()).runUploadCerts(d),
      },
      {
        name: "mark-control-plane",
        short: "Mark a node as a control-plane",
        run: async (d) => (await markControlPlane()).runMarkControlPlane(d),
      },
      {
        name: "bootstrap-token",
        short: "Generates bootstrap tokens used to join a node to a cluster",
        run: async (d) => (await bootstrapToken()).runBootstrapToken(d),
      },
      {
        name: "kubelet-finalize",
        short: "Updates settings relevant to the kubelet after TLS bootstrap",
        phases: [
          { name: "all", short: "Run all kubelet-finalize phases", runAllSiblings: true },
          {
            name: "enable-client-cert-rotation",
            short: "Enable kubelet client certificate rotation",
            run: async (d) => (await kubeletFinalize()).runEnableClientCertRotation(d),
          },
        ],
      },
      {
        name: "addon",
        short: "Install required addons for passing conformance tests",
        phases: [
          { name: "all", short: "Install all the addons", runAllSiblings: true },
          {
            name: "coredns",
            short: "Install the CoreDNS addon to a Kubernetes cluster",
            runIf: (d) => !d.cfg.cluster.dns.disabled,
            run: async (d) => (await addons()).runCoreDNSAddon(d),
          },
          {
            name: "kube-proxy",
            short: "Install the kube-proxy addon to a Kubernetes cluster",
            runIf: (d) => !d.cfg.cluster.proxy.disabled,
            run: async (d) => (await addons()).runKubeProxyAddon(d),
          },
        ],
      },
      {
        name: "show-join-command",
        short: "Show the join command for control-plane and worker node",
        run: async (d) => (await showJoinCommand()).runShowJoinCommand(d),
      },
    ],
  };
}

async function runPreflightPhase(data: InitData): Promise<void> {
  if (!data.node) {
    throw new KubeadmError("the preflight phase needs a host to inspect", {
      hint: "the runtime did not provide one; skip it with --skip-phases=preflight",
    });
  }
  // `--ignore-preflight-errors` is already merged into nodeRegistration by the resolver.
  await (await preflight()).runInitPreflight(data, data.node.machine, {
    ignore: [],
    output: data.preflightOutput,
  });
}
