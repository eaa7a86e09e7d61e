/**
 * What the system verification expects of a Linux node: upstream's `DefaultSysSpec` from
 * `k8s.io/system-validators` v1.12.1, as vendored by Kubernetes v1.37.
 *
 * The kernel options about cgroups are checked for the host's cgroup version only
 * (`RequiredCgroupsV1`/`RequiredCgroupsV2`, after the common required ones); the optional
 * cgroup options of the spec are not checked by that release's kernel validator.
 *
 * @module
 */

/** A kernel build option (`CONFIG_<name>`), with the alternative names it may have. */
export interface KernelConfig {
  /** Option name without the `CONFIG_` prefix. */
  name: string;
  /** Older or alternative names, tried in order when `name` is absent. */
  aliases?: readonly string[];
  /** Shown next to a missing option. */
  description?: string;
}

/** The kernel part of the spec. */
export interface KernelSpec {
  /** Accepted `uname -r` patterns. */
  versions: readonly RegExp[];
  /** Explanation appended to the unsupported-kernel warning. */
  versionsNote: string;
  required: readonly KernelConfig[];
  /** Required on a cgroup v1 host, checked after {@link KernelSpec.required}. */
  requiredCgroupsV1: readonly KernelConfig[];
  /** Required on a cgroup v2 host, checked after {@link KernelSpec.required}. */
  requiredCgroupsV2: readonly KernelConfig[];
  optional: readonly KernelConfig[];
  forbidden: readonly KernelConfig[];
}

/** The whole spec. */
export interface SysSpec {
  os: string;
  kernel: KernelSpec;
  /** Required cgroup v1 controllers. */
  cgroups: readonly string[];
  cgroupsOptional: readonly string[];
  /** Required cgroup v2 controllers. */
  cgroupsV2: readonly string[];
  cgroupsV2Optional: readonly string[];
}

/** Upstream's Linux spec. */
export const DEFAULT_SYS_SPEC: SysSpec = {
  os: "Linux",
  kernel: {
    versions: [/^5\.4.*$/, /^5\.10.*$/, /^5\.15.*$/, /^([6-9]|[1-9][0-9]+)\.([0-9]+)\.([0-9]+).*$/],
    versionsNote: "Supported LTS versions from the 5.x series are 5.4, 5.10 and 5.15. Any 6.x " +
      "version is also supported. For cgroups v2 support, the recommended version is 5.10 or newer",
    required: [
      { name: "NAMESPACES" },
      { name: "NET_NS" },
      { name: "PID_NS" },
      { name: "IPC_NS" },
      { name: "UTS_NS" },
      { name: "CPUSETS" },
      { name: "MEMCG" },
      { name: "INET" },
      { name: "EXT4_FS" },
      { name: "PROC_FS" },
      { name: "NETFILTER_XT_TARGET_REDIRECT", aliases: ["IP_NF_TARGET_REDIRECT"] },
      { name: "NETFILTER_XT_MATCH_COMMENT" },
      { name: "FAIR_GROUP_SCHED" },
    ],
    requiredCgroupsV1: [
      { name: "CGROUPS", description: "Required for cgroups." },
      {
        name: "CGROUP_CPUACCT",
        description: "Required for cpuacct controller, used in simple CPU accounting controller.",
      },
      { name: "CGROUP_DEVICE", description: "Required for device controller." },
      { name: "CGROUP_FREEZER", description: "Required for freezer controller." },
      { name: "CGROUP_PIDS", description: "Required for PIDs controller." },
      { name: "CGROUP_SCHED", description: "Required for CPU controller." },
    ],
    requiredCgroupsV2: [
      { name: "CGROUPS", description: "Required for cgroups." },
      {
        name: "CGROUP_BPF",
        description: "Required for eBPF programs attached to cgroups, used in device controller.",
      },
      { name: "CGROUP_PIDS", description: "Required for PIDs controller." },
      { name: "CGROUP_SCHED", description: "Required for CPU controller." },
    ],
    optional: [
      { name: "OVERLAY_FS", aliases: ["OVERLAYFS_FS"], description: "Required for overlayfs." },
      { name: "AUFS_FS", description: "Required for aufs." },
      { name: "BLK_DEV_DM", description: "Required for devicemapper." },
      { name: "CFS_BANDWIDTH", description: "Required for CPU quota." },
      { name: "SECCOMP", description: "Required for seccomp." },
      { name: "SECCOMP_FILTER", description: "Required for seccomp mode 2." },
    ],
    forbidden: [],
  },
  cgroups: ["cpu", "cpuacct", "cpuset", "devices", "freezer", "memory", "pids"],
  cgroupsOptional: ["hugetlb", "blkio"],
  cgroupsV2: ["cpu", "cpuset", "devices", "freezer", "memory", "pids"],
  cgroupsV2Optional: ["hugetlb", "io"],
};
