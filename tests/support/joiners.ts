/**
 * Worker joins without kubelets: our `kubeadm join` run in-process, many at once, against a real
 * control plane (scripts/bench-joiners, and its slice in tests/e2e/join_test.ts).
 *
 * Each joiner is the real join command (cli/commands/join.ts: flags, configuration, every phase
 * of a worker join) on a `--rootfs` directory of its own, with a fake node host
 * (fake_node_host.ts: no machine is inspected or changed, the kubelet health check answers) and
 * the preflight checks of the machine left out; the network is the CLI's real transports. Its
 * API work is all of a worker join's: token discovery with the CA pin (cluster-info fetched
 * twice, the second time over the pinned TLS), the cluster's configuration (kubeadm-config,
 * kubelet-config, kube-proxy), the check that no Ready Node has its name. Where a real kubelet
 * would start, a fake kubelet runs the kubelet's TLS bootstrap in-process (a CSR with the
 * bootstrap token, approved and signed by the real kube-controller-manager) and writes
 * `kubelet.conf`, which the join's `kubelet-wait-bootstrap` phase waits for, as it waits for the
 * kubelet's.
 *
 * @module
 */
import type { CertificateSigningRequest } from "kubernetes-types/certificates/v1.d.ts";
import { createProgram } from "../../cli/program.ts";
import { registerJoin } from "../../cli/commands/join.ts";
import { normaliseArgv } from "../../cli/flags.ts";
import { clientTransport } from "../../adapters/deno/transport.ts";
import { HostFileSystem } from "../../adapters/deno/files.ts";
import { realSleep, systemClock } from "../../adapters/web/clock.ts";
import { KubeadmError } from "../../core/errors.ts";
import { KubeClient } from "../../core/kube/client.ts";
import { connectionFromKubeconfig } from "../../core/kube/kubeconfig_connection.ts";
import { poll } from "../../core/kube/retry.ts";
import {
  createKubeconfigWithCerts,
  parseKubeconfig,
  serializeKubeconfig,
} from "../../core/kubeconfig/kubeconfig.ts";
import { createCSR, encodeCSRPEM } from "../../core/pki/csr.ts";
import { encodePrivateKeyPEM, generateKeyPair } from "../../core/pki/keys.ts";
import type { Printer } from "../../core/ports/printer.ts";
import { base64Decode, base64Encode } from "../../core/text/base64.ts";
import { utf8 } from "../../core/text/utf8.ts";
import { FakeInitSystem } from "./fake_machine.ts";
import { FakeNodeHost } from "./fake_node_host.ts";
import { webKeys } from "./platform.ts";

/** What one joiner did and when (milliseconds since its start). */
export interface JoinerResult {
  name: string;
  ok: boolean;
  /** The failure's message. */
  error?: string;
  /** Whole join. */
  totalMs: number;
  /** Discovery, the cluster's configuration and the node check: until the kubelet starts. */
  beforeKubeletMs?: number;
  /** The kubelet's TLS bootstrap: CSR sent until its certificate is issued. */
  tlsBootstrapMs?: number;
  /** What the join printed and logged (up to `-v=1`), each line with its time since the start. */
  transcript: string[];
}

/** A printer that keeps every line, and the `-v=1` log lines, with their time. */
function transcriptPrinter(start: number, lines: string[]): Printer {
  const add = (line: string) => lines.push(`+${(performance.now() - start).toFixed(0)}ms ${line}`);
  return {
    info: add,
    warn: (line) => add(`W ${line}`),
    log: (level, _source, line) => {
      if (level <= 1) add(`I ${line}`);
    },
  };
}

/**
 * What a kubelet does with `bootstrap-kubelet.conf` (its TLS bootstrap): an ECDSA P-256 key, a
 * CSR for `system:node:<name>` in `system:nodes` to the kubelet client signer, sent with the
 * bootstrap token; once kube-controller-manager has approved and signed it, `kubelet.conf` with
 * the certificate and key. Only what the join waits for: no Node, no serving certificate.
 */
async function kubeletTlsBootstrap(root: string, nodeName: string): Promise<void> {
  const files = new HostFileSystem(root);
  const path = "/etc/kubernetes/bootstrap-kubelet.conf";
  const raw = await files.read(path);
  if (raw === undefined) throw new KubeadmError(`${path} was not written`);
  const bootstrap = parseKubeconfig(utf8(raw), path);
  const params = await connectionFromKubeconfig(bootstrap, { files });
  const timing = { clock: systemClock, sleep: realSleep };
  const client = new KubeClient({
    server: params.server,
    transport: clientTransport(params),
    ...timing,
  });
  const key = await generateKeyPair({ type: "ECDSA", namedCurve: "P-256" }, webKeys);
  const user = `system:node:${nodeName}`;
  const csr = await createCSR({ commonName: user, organization: ["system:nodes"] }, key);
  const name = `node-csr-${nodeName}`;
  await client.create<CertificateSigningRequest>({
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: {
      request: base64Encode(new TextEncoder().encode(encodeCSRPEM(csr))),
      signerName: "kubernetes.io/kube-apiserver-client-kubelet",
      usages: ["digital signature", "client auth"],
    },
  });
  const certificate = await poll<string>(async (window) => {
    const c = await client.get<CertificateSigningRequest>(
      { kind: "CertificateSigningRequest", name },
      window.limits(),
    );
    if (c.status?.conditions?.some((x) => x.type === "Denied" || x.type === "Failed")) {
      throw new KubeadmError(`${name}: ${JSON.stringify(c.status.conditions)}`);
    }
    return c.status?.certificate ? { done: true, value: c.status.certificate } : { done: false };
  }, { ...timing, intervalMs: 1000, timeoutMs: 10 * 60_000 });
  const kubelet = createKubeconfigWithCerts(
    params.server,
    "default-cluster",
    "default-auth",
    params.caPem ?? "",
    await encodePrivateKeyPEM(key),
    base64Decode(certificate),
  );
  await files.write({
    path: "/etc/kubernetes/kubelet.conf",
    data: serializeKubeconfig(kubelet),
    mode: 0o600,
    kind: "kubeconfig",
  });
}

/** A kubelet that, when (re)started, performs its TLS bootstrap over the joiner's files. */
class BootstrappingKubelet extends FakeInitSystem {
  started?: number;
  bootstrapped?: number;
  failure?: unknown;

  constructor(readonly root: string, readonly nodeName: string) {
    super();
  }

  override serviceRestart(service: string): Promise<void> {
    if (service === "kubelet" && this.started === undefined) {
      this.started = performance.now();
      kubeletTlsBootstrap(this.root, this.nodeName).then(
        () => this.bootstrapped = performance.now(),
        (e) => this.failure = e,
      );
    }
    return super.serviceRestart(service);
  }
}

/** Where to join and as what. */
export interface JoinTarget {
  /** `host:port` of the API server. */
  endpoint: string;
  token: string;
  /** `sha256:` pin of the cluster CA. */
  pin: string;
}

/**
 * The command line of a `kubeadm join phase preflight` process for joiner `i` of a load: token
 * discovery with the CA pin and the cluster's configuration (what upstream kubeadm runs without
 * a kubelet), the host's checks run and their errors ignored.
 */
export function joinPreflightArgv(kubeadm: string, target: JoinTarget, i: number): string[] {
  return [
    kubeadm,
    "join",
    "phase",
    "preflight",
    ...joinTo(target, `proc-${i}`),
    "--ignore-preflight-errors=all",
  ];
}

/** The endpoint argument and the flags of a token-discovery join of node `name`. */
function joinTo(target: JoinTarget, name: string): string[] {
  return [
    target.endpoint,
    "--token",
    target.token,
    "--discovery-token-ca-cert-hash",
    target.pin,
    "--node-name",
    name,
  ];
}

/**
 * One in-process worker join of `name`, in a fresh `--rootfs` under `workDir`; `argsExtra`
 * adds flags (`--skip-phases`, ...). Never throws: failures are results.
 */
export async function runJoiner(
  target: JoinTarget,
  name: string,
  workDir: string,
  argsExtra: string[] = [],
): Promise<JoinerResult> {
  const root = await Deno.makeTempDir({ dir: workDir, prefix: `${name}-` });
  const kubelet = new BootstrappingKubelet(root, name);
  const node = new FakeNodeHost();
  node.init = kubelet;
  const transcript: string[] = [];
  const start = performance.now();
  const out = transcriptPrinter(start, transcript);
  const program = createProgram((p) =>
    registerJoin(p, { out, node: () => node, ports: { preflight: () => Promise.resolve() } })
  );
  let error: string | undefined;
  try {
    await program.parseAsync(
      normaliseArgv(["join", ...joinTo(target, name), "--rootfs", root, ...argsExtra]),
      { from: "user" },
    );
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const totalMs = performance.now() - start;
  if (!error && kubelet.failure) error = `kubelet: ${kubelet.failure}`;
  return {
    name,
    ok: error === undefined,
    error,
    totalMs,
    beforeKubeletMs: kubelet.started === undefined ? undefined : kubelet.started - start,
    tlsBootstrapMs: kubelet.started === undefined || kubelet.bootstrapped === undefined
      ? undefined
      : kubelet.bootstrapped - kubelet.started,
    transcript,
  };
}
