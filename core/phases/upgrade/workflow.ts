/**
 * The `kubeadm upgrade apply` and `kubeadm upgrade node` workflows: upstream v1.37's phases,
 * in upstream's order, with the flags each `upgrade apply|node phase <name>` command accepts.
 * Both run a hidden `kubeconfig` phase (no command, still skippable by name).
 *
 * @module
 */
import type { Phase, Workflow } from "../../workflow/phase.ts";
import type { UpgradeData } from "./data.ts";

const preflight = () => import("./preflight.ts");
const controlPlane = () => import("./control_plane.ts");
const uploadConfig = () => import("./upload_config.ts");
const kubeconfig = () => import("./kubeconfig.ts");
const kubeletConfig = () => import("./kubelet_config.ts");
const bootstrapToken = () => import("./bootstrap_token.ts");
const addon = () => import("./addon.ts");
const postUpgrade = () => import("./post_upgrade.ts");

const BASE = ["config", "kubeconfig", "dry-run"] as const;

const controlPlaneFlags = [
  ...BASE,
  "certificate-renewal",
  "etcd-upgrade",
  "patches",
] as const;

const kubeconfigPhase: Phase<UpgradeData> = {
  name: "kubeconfig",
  short: "Upgrade kubeconfig files for this node",
  hidden: true,
  run: async (d) => (await kubeconfig()).runKubeconfig(d),
  flags: BASE,
};

const kubeletConfigPhase: Phase<UpgradeData> = {
  name: "kubelet-config",
  short: "Upgrade the kubelet configuration for this node",
  long:
    "Upgrade the kubelet configuration for this node by downloading it from the kubelet-config ConfigMap stored in the cluster",
  run: async (d) => (await kubeletConfig()).runKubeletConfig(d),
  flags: [...BASE, "patches"],
};

const addonPhase: Phase<UpgradeData> = {
  name: "addon",
  short: "Upgrade the default kubeadm addons",
  phases: [
    {
      name: "all",
      short: "Upgrade all the addons",
      runAllSiblings: true,
      flags: [...BASE, "patches"],
    },
    {
      name: "coredns",
      short: "Upgrade the CoreDNS addon",
      run: async (d) => (await addon()).runCoreDNSAddon(d),
      flags: [...BASE, "patches"],
    },
    {
      name: "kube-proxy",
      short: "Upgrade the kube-proxy addon",
      run: async (d) => (await addon()).runKubeProxyAddon(d),
      flags: [...BASE, "patches"],
    },
  ],
};

const postUpgradePhase: Phase<UpgradeData> = {
  name: "post-upgrade",
  short: "Run post upgrade tasks",
  run: async (d) => (await postUpgrade()).runPostUpgrade(d),
  flags: BASE,
};

/** `kubeadm upgrade apply`'s workflow. */
export function upgradeApplyWorkflow(): Workflow<UpgradeData> {
  return {
    name: "apply",
    phases: [
      {
        name: "preflight",
        short: "Run preflight checks before upgrade",
        run: async (d) => (await preflight()).runApplyPreflight(d),
        flags: [
          ...BASE,
          "force",
          "ignore-preflight-errors",
          "allow-experimental-upgrades",
          "allow-release-candidate-upgrades",
          "yes",
        ],
      },
      {
        name: "control-plane",
        short: "Upgrade the control plane",
        run: async (d) => (await controlPlane()).runApplyControlPlane(d),
        flags: controlPlaneFlags,
      },
      {
        name: "upload-config",
        aliases: ["uploadconfig"],
        short: "Upload the kubeadm and kubelet configurations to ConfigMaps",
        phases: [
          {
            name: "all",
            short: "Upload all the configurations to ConfigMaps",
            runAllSiblings: true,
            flags: BASE,
          },
          {
            name: "kubeadm",
            short: "Upload the kubeadm ClusterConfiguration to a ConfigMap",
            run: async (d) => (await uploadConfig()).runUploadKubeadmConfig(d),
            flags: BASE,
          },
          {
            name: "kubelet",
            short: "Upload the kubelet configuration to a ConfigMap",
            run: async (d) => (await uploadConfig()).runUploadKubeletConfig(d),
            flags: BASE,
          },
        ],
      },
      kubeconfigPhase,
      kubeletConfigPhase,
      {
        name: "bootstrap-token",
        short: "Configures bootstrap token and cluster-info RBAC rules",
        run: async (d) => (await bootstrapToken()).runBootstrapToken(d),
        flags: BASE,
      },
      addonPhase,
      postUpgradePhase,
    ],
  };
}

/** `kubeadm upgrade node`'s workflow. */
export function upgradeNodeWorkflow(): Workflow<UpgradeData> {
  return {
    name: "node",
    phases: [
      {
        name: "preflight",
        short: "Run upgrade node pre-flight checks",
        long: "Run pre-flight checks for kubeadm upgrade node.",
        run: async (d) => (await preflight()).runNodePreflight(d),
        flags: ["config", "ignore-preflight-errors"],
      },
      {
        name: "control-plane",
        short: "Upgrade the control plane instance deployed on this node, if any",
        run: async (d) => (await controlPlane()).runNodeControlPlane(d),
        flags: controlPlaneFlags,
      },
      kubeconfigPhase,
      kubeletConfigPhase,
      addonPhase,
      postUpgradePhase,
    ],
  };
}
