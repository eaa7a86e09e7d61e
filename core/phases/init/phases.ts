/**
 * The `kubeadm init` workflow's phases: upstream's, in upstream's order.
 *
 * Each phase's work lives in its own module (loaded when the phase runs), a thin caller of the
 * domain modules; the phases from `wait-control-plane` on talk to the cluster and the node
 * through the ports of {@link InitData} (`cluster`, `node`). Every phase declares the flags its
 * `init phase` command accepts.
 *
 * The preflight phase's work is the caller's: the command line runs kubeadm's checks
 * (`./workflow.ts`); a plan, which has no machine to inspect and always skips the phase, does
 * not carry the checks at all (they are a good part of the library bundle).
 *
 * @module
 */
import type { Phase, Workflow } from "../../workflow/phase.ts";
import type { InitData } from "./data.ts";
import { CERT_SUB_PHASES } from "../../certs/certlist.ts";
import { KUBECONFIG_SPECS } from "../../kubeconfig/specs.ts";

// Phase implementations pull in the PKI and YAML stacks; load them only when a phase runs so
// that building the command tree (and `--help`) stays cheap.
/**
 * Where the init phases' work lives: a loader per phase module. The command line loads each
 * module when its phase first runs, so building the command tree (and `--help`) stays cheap
 * (`./workflow.ts`); a plan imports them up front (`library/phase_modules.ts`), so that a
 * single-file bundle of the library can leave out what they do not use.
 */
export interface InitPhaseModules {
  certs(): Promise<typeof import("./certs.ts")>;
  kubeconfigs(): Promise<typeof import("./kubeconfig.ts")>;
  controlPlane(): Promise<typeof import("./control_plane.ts")>;
  etcd(): Promise<typeof import("./etcd.ts")>;
  kubeletStart(): Promise<typeof import("./kubelet_start.ts")>;
  waitControlPlane(): Promise<typeof import("./wait_control_plane.ts")>;
  uploadConfig(): Promise<typeof import("./upload_config.ts")>;
  uploadCerts(): Promise<typeof import("./upload_certs.ts")>;
  markControlPlane(): Promise<typeof import("./mark_control_plane.ts")>;
  bootstrapToken(): Promise<typeof import("./bootstrap_token.ts")>;
  kubeletFinalize(): Promise<typeof import("./kubelet_finalize.ts")>;
  addons(): Promise<typeof import("./addons.ts")>;
  showJoinCommand(): Promise<typeof import("./show_join_command.ts")>;
}

const localEtcd = (d: InitData) => d.cfg.cluster.etcd.external === undefined;

/**
 * The flags each `init phase` command accepts: exactly upstream's for that phase (a phase that
 * only groups sub-phases has none), plus `-o` on preflight (a kubeadm-ts addition: the JSON
 * report).
 */
const CERTS = ["cert-dir", "config", "dry-run", "kubernetes-version"] as const;
const KUBECONFIG = [
  "apiserver-advertise-address",
  "apiserver-bind-port",
  "cert-dir",
  "config",
  "control-plane-endpoint",
  "dry-run",
  "kubeconfig-dir",
  "kubernetes-version",
] as const;
const ADDON = [
  "config",
  "dry-run",
  "image-repository",
  "kubeconfig",
  "kubernetes-version",
] as const;
/** Upstream's `--kubeconfig` phases: they talk to the cluster through it. */
const CLUSTER = ["config", "dry-run", "kubeconfig"] as const;
const CONTROL_PLANE_COMMON = [...CERTS, "image-repository", "patches"] as const;
const FLAGS = {
  preflight: [
    "config",
    "cri-socket",
    "dry-run",
    "ignore-preflight-errors",
    "image-repository",
    "output",
  ],
  certs: CERTS,
  /** The apiserver certificate (and `all`) also take the inputs of its SANs. */
  certsApiServer: [
    ...CERTS,
    "apiserver-advertise-address",
    "apiserver-cert-extra-sans",
    "control-plane-endpoint",
    "service-cidr",
    "service-dns-domain",
  ],
  kubeconfig: KUBECONFIG,
  /** kubelet.conf (and `all`) also take the node name. */
  kubeconfigKubelet: [...KUBECONFIG, "node-name"],
  etcd: ["cert-dir", "config", "dry-run", "image-repository", "patches"],
  /** The apiserver's; `all` adds the pod CIDR (the controller-manager's). */
  controlPlane: [
    ...CONTROL_PLANE_COMMON,
    "apiserver-advertise-address",
    "apiserver-bind-port",
    "control-plane-endpoint",
    "feature-gates",
    "service-cidr",
  ],
  controlPlaneAll: [
    ...CONTROL_PLANE_COMMON,
    "apiserver-advertise-address",
    "apiserver-bind-port",
    "control-plane-endpoint",
    "feature-gates",
    "pod-network-cidr",
    "service-cidr",
  ],
  controllerManager: [...CONTROL_PLANE_COMMON, "pod-network-cidr"],
  scheduler: CONTROL_PLANE_COMMON,
  kubeletStart: ["config", "cri-socket", "dry-run", "image-repository", "node-name", "patches"],
  uploadConfig: [...CLUSTER, "cri-socket"],
  uploadCerts: [...CLUSTER, "certificate-key", "skip-certificate-key-print", "upload-certs"],
  markControlPlane: ["config", "dry-run", "node-name"],
  bootstrapToken: [...CLUSTER, "skip-token-print"],
  kubeletFinalize: ["cert-dir", "config", "dry-run"],
  addonAll: [
    ...ADDON,
    "apiserver-advertise-address",
    "apiserver-bind-port",
    "control-plane-endpoint",
    "feature-gates",
    "pod-network-cidr",
    "service-cidr",
    "service-dns-domain",
  ],
  addonCoreDNS: [...ADDON, "feature-gates", "print-manifest", "service-cidr", "service-dns-domain"],
  addonKubeProxy: [
    ...ADDON,
    "apiserver-advertise-address",
    "apiserver-bind-port",
    "control-plane-endpoint",
    "pod-network-cidr",
    "print-manifest",
  ],
} as const satisfies Record<string, readonly string[]>;

function certsPhase(m: InitPhaseModules): Phase<InitData> {
  return {
    name: "certs",
    short: "Certificate generation",
    run: async (d) => (await m.certs()).runCertsHeader(d),
    phases: [
      {
        name: "all",
        short: "Generate all certificates",
        runAllSiblings: true,
        flags: FLAGS.certsApiServer,
      },
      ...CERT_SUB_PHASES.map((c): Phase<InitData> => ({
        name: c.name,
        short: c.short,
        long: c.long,
        run: async (d) => (await m.certs()).runCert(d, c.name),
        flags: c.name === "apiserver" ? FLAGS.certsApiServer : FLAGS.certs,
      })),
    ],
  };
}

function kubeconfigPhase(m: InitPhaseModules): Phase<InitData> {
  return {
    name: "kubeconfig",
    short:
      "Generate all kubeconfig files necessary to establish the control plane and the admin kubeconfig file",
    run: async (d) => (await m.kubeconfigs()).runKubeconfigHeader(d),
    phases: [
      {
        name: "all",
        short: "Generate all kubeconfig files",
        runAllSiblings: true,
        flags: FLAGS.kubeconfigKubelet,
      },
      ...KUBECONFIG_SPECS.map((k): Phase<InitData> => ({
        name: k.name,
        short: k.short,
        run: async (d) => (await m.kubeconfigs()).runKubeconfig(d, k.name),
        flags: k.name === "kubelet" ? FLAGS.kubeconfigKubelet : FLAGS.kubeconfig,
      })),
    ],
  };
}

/**
 * Builds the init workflow on the phase modules `m`, with `preflight` as the preflight phase's
 * work (see `initWorkflow` in `./workflow.ts` for the command line's).
 */
export function initWorkflowWith(
  m: InitPhaseModules,
  preflight: (data: InitData) => Promise<void>,
): Workflow<InitData> {
  return {
    name: "init",
    phases: [
      {
        name: "preflight",
        short: "Run pre-flight checks",
        run: preflight,
        flags: FLAGS.preflight,
      },
      certsPhase(m),
      kubeconfigPhase(m),
      {
        name: "etcd",
        short: "Generate static Pod manifest file for local etcd",
        phases: [{
          name: "local",
          short:
            "Generate the static Pod manifest file for a local, single-node local etcd instance",
          runIf: localEtcd,
          run: async (d) => (await m.etcd()).runLocalEtcd(d),
          flags: FLAGS.etcd,
        }],
      },
      {
        name: "control-plane",
        short: "Generate all static Pod manifest files necessary to establish the control plane",
        run: async (d) => (await m.controlPlane()).runControlPlaneHeader(d),
        phases: [
          {
            name: "all",
            short: "Generate all static Pod manifest files",
            runAllSiblings: true,
            flags: FLAGS.controlPlaneAll,
          },
          {
            name: "apiserver",
            short: "Generates the kube-apiserver static Pod manifest",
            run: async (d) => (await m.controlPlane()).runControlPlane(d, "kube-apiserver"),
            flags: FLAGS.controlPlane,
          },
          {
            name: "controller-manager",
            short: "Generates the kube-controller-manager static Pod manifest",
            run: async (d) =>
              (await m.controlPlane()).runControlPlane(d, "kube-controller-manager"),
            flags: FLAGS.controllerManager,
          },
          {
            name: "scheduler",
            short: "Generates the kube-scheduler static Pod manifest",
            run: async (d) => (await m.controlPlane()).runControlPlane(d, "kube-scheduler"),
            flags: FLAGS.scheduler,
          },
        ],
      },
      {
        name: "kubelet-start",
        short: "Write kubelet settings and (re)start the kubelet",
        run: async (d) => (await m.kubeletStart()).runKubeletStart(d),
        flags: FLAGS.kubeletStart,
      },
      {
        name: "wait-control-plane",
        short: "Wait for the control plane to start",
        run: async (d) => (await m.waitControlPlane()).runWaitControlPlane(d),
      },
      {
        name: "upload-config",
        aliases: ["uploadconfig"],
        short: "Upload the kubeadm and kubelet configuration to a ConfigMap",
        phases: [
          {
            name: "all",
            short: "Upload all configuration to a config map",
            runAllSiblings: true,
            flags: FLAGS.uploadConfig,
          },
          {
            name: "kubeadm",
            short: "Upload the kubeadm ClusterConfiguration to a ConfigMap",
            run: async (d) => (await m.uploadConfig()).runUploadKubeadmConfig(d),
            flags: FLAGS.uploadConfig,
          },
          {
            name: "kubelet",
            short: "Upload the kubelet component config to a ConfigMap",
            run: async (d) => (await m.uploadConfig()).runUploadKubeletConfig(d),
            flags: FLAGS.uploadConfig,
          },
        ],
      },
      {
        name: "upload-certs",
        short: "Upload certificates to kubeadm-certs",
        run: async (d) => (await m.uploadCerts()).runUploadCerts(d),
        flags: FLAGS.uploadCerts,
      },
      {
        name: "mark-control-plane",
        short: "Mark a node as a control-plane",
        run: async (d) => (await m.markControlPlane()).runMarkControlPlane(d),
        flags: FLAGS.markControlPlane,
      },
      {
        name: "bootstrap-token",
        aliases: ["bootstraptoken"],
        short: "Generates bootstrap tokens used to join a node to a cluster",
        run: async (d) => (await m.bootstrapToken()).runBootstrapToken(d),
        flags: FLAGS.bootstrapToken,
      },
      {
        name: "kubelet-finalize",
        short: "Updates settings relevant to the kubelet after TLS bootstrap",
        phases: [
          {
            name: "all",
            short: "Run all kubelet-finalize phases",
            runAllSiblings: true,
            flags: FLAGS.kubeletFinalize,
          },
          {
            name: "enable-client-cert-rotation",
            short: "Enable kubelet client certificate rotation",
            run: async (d) => (await m.kubeletFinalize()).runEnableClientCertRotation(d),
            flags: FLAGS.kubeletFinalize,
          },
        ],
      },
      {
        name: "addon",
        short: "Install required addons for passing conformance tests",
        phases: [
          {
            name: "all",
            short: "Install all the addons",
            runAllSiblings: true,
            flags: FLAGS.addonAll,
          },
          {
            name: "coredns",
            short: "Install the CoreDNS addon to a Kubernetes cluster",
            runIf: (d) => !d.cfg.cluster.dns.disabled,
            run: async (d) => (await m.addons()).runCoreDNSAddon(d),
            flags: FLAGS.addonCoreDNS,
          },
          {
            name: "kube-proxy",
            short: "Install the kube-proxy addon to a Kubernetes cluster",
            runIf: (d) => !d.cfg.cluster.proxy.disabled,
            run: async (d) => (await m.addons()).runKubeProxyAddon(d),
            flags: FLAGS.addonKubeProxy,
          },
        ],
      },
      {
        name: "show-join-command",
        short: "Show the join command for control-plane and worker node",
        run: async (d) => (await m.showJoinCommand()).runShowJoinCommand(d),
      },
    ],
  };
}
