/**
 * Fakes for join phase tests: an in-memory API server holding a signed cluster-info, the
 * kubeadm-config and kubelet-config ConfigMaps; a memory file system; and a fake node
 * whose "kubelet" writes kubelet.conf when started (as a real kubelet's TLS bootstrap would).
 *
 * @module
 */
import { webCryptoPort } from "../../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../../support/platform.ts";
import type { KubeObject } from "../../../../core/kube/client.ts";
import { webRandom } from "../../../../adapters/web/random.ts";
import { computeDetachedSignature } from "../../../../core/discovery/jws.ts";
import {
  createBasicKubeconfig,
  serializeKubeconfig,
} from "../../../../core/kubeconfig/kubeconfig.ts";
import { encodeCertificatePEM } from "../../../../core/pki/cert.ts";
import { newCertificateAuthority } from "../../../support/test_pki.ts";
import { generateKeyPair } from "../../../../core/pki/keys.ts";
import { certificatePin } from "../../../../core/pki/pin.ts";
import { resolveJoinConfig } from "../../../../core/config/join.ts";
import type { Inputs } from "../../../../core/config/inputs.ts";
import {
  createJoinData,
  type JoinData,
  type JoinPorts,
} from "../../../../core/phases/join/data.ts";
import { FakeNodeHost } from "../../../support/fake_node_host.ts";
import type { FileSystem } from "../../../../core/ports/files.ts";
import type { CertAndKey } from "../../../../core/certs/pki_dir.ts";
import { FakeKubeApi } from "../../../support/fake_kube_api.ts";
import { FakeClock } from "../../../support/fake_clock.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";
import { RecordingPrinter } from "../../../support/recording_printer.ts";

export const TOKEN = "abcdef.0123456789abcdef";
export const SERVER = "https://10.0.0.1:6443";

const CLUSTER_CONFIGURATION = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
networking:
  serviceSubnet: 10.96.0.0/12
  dnsDomain: cluster.local
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
`;

const KUBELET_CONFIGURATION = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous:
    enabled: false
cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
healthzBindAddress: 127.0.0.1
healthzPort: 10248
rotateCertificates: true
staticPodPath: /etc/kubernetes/manifests
`;

/** A cluster as the fake API server serves it. */
export interface FakeCluster {
  api: FakeKubeApi;
  /** The cluster CA (its key signs what a control-plane node signs). */
  ca: CertAndKey;
  caPem: string;
  pin: string;
}

/** cluster-info signed for {@link TOKEN}, kubeadm-config and kubelet-config. */
export async function fakeCluster(): Promise<FakeCluster> {
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const now = new Date();
  const ca = await newCertificateAuthority(
    {
      commonName: "kubernetes",
      notBefore: new Date(now.getTime() - 60_000),
      notAfter: new Date(now.getTime() + 86400_000),
    },
    key,
    webRandom,
    webCryptoPort,
  );
  const caPem = encodeCertificatePEM(ca.cert);
  const kubeconfig = serializeKubeconfig(createBasicKubeconfig(SERVER, "", "", caPem), {
    nullEmptyLists: true,
  });
  const api = new FakeKubeApi();
  const cm = (namespace: string, name: string, data: Record<string, string>): KubeObject =>
    ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data }) as KubeObject;
  api.put(cm("kube-public", "cluster-info", {
    kubeconfig,
    "jws-kubeconfig-abcdef": await computeDetachedSignature(
      kubeconfig,
      "abcdef",
      "0123456789abcdef",
      webCryptoPort,
    ),
  }));
  api.put(cm("kube-system", "kubeadm-config", { ClusterConfiguration: CLUSTER_CONFIGURATION }));
  api.put(cm("kube-system", "kubelet-config", { kubelet: KUBELET_CONFIGURATION }));
  return { api, ca, caPem, pin: await certificatePin(ca.cert, webCryptoPort) };
}

/** The fake host and what happened on it. */
export interface FakeJoin {
  data: JoinData;
  files: MemoryFileSystem;
  out: RecordingPrinter;
  clock: FakeClock;
  events: string[];
}

/** Options of {@link fakeJoin}. */
export interface FakeJoinOptions {
  /** The "kubelet" completes its TLS bootstrap when started (default true). */
  kubeletBootstraps?: boolean;
  dryRun?: boolean;
  /** Wraps the node's files (e.g. a recording overlay for dry-run). */
  wrapFiles?: (fs: MemoryFileSystem) => FileSystem;
}

/** A join run over the fakes. */
export function fakeJoin(
  cluster: FakeCluster,
  inputs: Inputs,
  opts: FakeJoinOptions = {},
): FakeJoin {
  const files = new MemoryFileSystem();
  const out = new RecordingPrinter();
  // Now: the fake cluster's CA is made now, and discovery checks the clock against it.
  const clock = new FakeClock(Date.now());
  const events: string[] = [];
  const { config } = resolveJoinConfig({
    inputs,
    host: { hostname: "worker-1", defaultAdvertiseAddress: "10.0.0.2" },
  });
  const ports: JoinPorts = {
    transportFor: () => cluster.api.transport,
    hostFiles: new MemoryFileSystem(),
    fetchUrl: () => Promise.reject(new Error("no network")),
    preflight: () => {
      events.push("preflight");
      return Promise.resolve();
    },
  };
  const node = new FakeNodeHost();
  const kubelet = node.machine.init!;
  kubelet.serviceStop = () => {
    events.push("stop kubelet");
    return Promise.resolve();
  };
  kubelet.serviceRestart = async () => {
    events.push("start kubelet");
    if (opts.kubeletBootstraps ?? true) {
      await files.write({
        path: "/etc/kubernetes/kubelet.conf",
        data: serializeKubeconfig({
          ...createBasicKubeconfig(SERVER, "default-cluster", "default-auth", cluster.caPem),
          users: [{ name: "default-auth", user: { token: "node-token" } }],
        }, { nullEmptyLists: true }),
        mode: 0o600,
        kind: "kubeconfig",
      });
    }
  };
  node.health = {
    get: (url) => {
      events.push(`probe ${url}`);
      return Promise.resolve({ status: 200 });
    },
  };
  node.removeFile = (path) => {
    events.push(`remove ${path}`);
    files.remove(path);
    return Promise.resolve();
  };
  node.ensureDir = (path) => {
    events.push(`mkdir ${path}`);
    return Promise.resolve();
  };
  node.etcdClient = () => {
    throw new Error("no etcd in worker tests");
  };
  const data = createJoinData({
    cfg: config,
    files: opts.wrapFiles ? opts.wrapFiles(files) : files,
    out,
    clock,
    sleep: clock.sleep,
    random: webRandom,
    crypto: webCryptoPort,
    dryRun: opts.dryRun ?? false,
    kubeconfigDir: "/etc/kubernetes",
    manifestDir: "/etc/kubernetes/manifests",
    kubeletDir: "/var/lib/kubelet",
    host: {
      hostname: "worker-1",
      existingDirs: new Set(),
      proxyEnv: {},
      defaultAdvertiseAddress: "10.0.0.2",
    },
    node,
    ports,
  });
  return { data, files, out, clock, events };
}
