/**
 * The interface `kubeadm:core/api` (`wit/kubeadm-core.wit`) on the library: what the
 * WebAssembly component exports, and the same functions for Deno (the tests' and the
 * benchmark's reference).
 *
 * Each function turns WIT values into the library's inputs, calls `mod.ts`, and turns the
 * result back: files as bytes, objects as JSON, time as Unix milliseconds, entropy as a seed
 * expanded with `seededRandom`. Crypto is the pure-JavaScript port (`pureJsCryptoPort`: no
 * WebCrypto at all, ECDSA only), which the component's engine needs and which gives the same
 * bytes as the library's deterministic port, passed to the library's functions. Every failure is thrown as an
 * {@link ErrorRecord}, which componentize-js returns as the `err` of the function's `result`.
 *
 * @module
 */
import {
  checkClusterInfo as libCheckClusterInfo,
  type ControlPlanePlan as LibControlPlanePlan,
  type DiscoveryVerdict,
  generateToken as libGenerateToken,
  type JoinPlan as LibJoinPlan,
  type JoinPlanOptions,
  KubeadmError,
  type KubeObject,
  parseKubeYaml,
  parseToken as libParseToken,
  pemCertificatePins,
  planControlPlane as libPlanControlPlane,
  planControlPlaneJoin as libPlanControlPlaneJoin,
  type PlanFile,
  type PlanRunOptions,
  planWorker as libPlanWorker,
  seededRandom,
  toCloudInit,
} from "../mod.ts";
// The component's one adapter choice; mod.ts leaves it out so that the web bundles do not carry it.
import { pureJsCryptoPort } from "../adapters/crypto/pure_js.ts";
import type * as Wit from "./wit.d.ts";

/** The fewest seed bytes a function takes: 256 bits of the host's entropy. */
export const MIN_SEED_BYTES = 32;

/** Thrown for an argument the component cannot take (`ERR_INPUT`). */
class InputError extends KubeadmError {
  override readonly code = "ERR_INPUT";
}

const GENERIC_CODES = new Set(["ERR_KUBEADM", "ERR_PHASE"]);

/**
 * The code of what really failed: the innermost specific code among the error and its causes
 * (a phase's failure is its cause's; a discovery failure stays one whatever it wraps).
 */
function rootCode(e: KubeadmError): string {
  let code = "ERR_KUBEADM";
  for (let c: unknown = e; c instanceof KubeadmError; c = c.cause) {
    if (!GENERIC_CODES.has(c.code)) code = c.code;
  }
  return code;
}

/** Any failure as the WIT `error-record`. */
export function errorRecord(e: unknown): Wit.ErrorRecord {
  if (e instanceof KubeadmError) {
    return {
      code: rootCode(e),
      message: e.message,
      field: e.field,
      value: e.value,
      hint: e.hint,
    };
  }
  return {
    code: "ERR_INTERNAL",
    message: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
    hint: "this is a bug in kubeadm-ts: please report it with the input that caused it",
  };
}

/** Runs `fn`, throwing any failure as an {@link ErrorRecord}. */
async function guarded<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw errorRecord(e);
  }
}

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function text(bytes: Uint8Array, field: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new InputError(`${field} is not UTF-8 text`, {
      field,
      hint: "kubeadm's files are text (PEM, YAML, env): pass them as UTF-8",
    });
  }
}

function random(seed: Uint8Array, field: string) {
  if (seed.length < MIN_SEED_BYTES) {
    throw new InputError(
      `${field} has ${seed.length} bytes: at least ${MIN_SEED_BYTES} are needed`,
      {
        field,
        hint: `pass ${MIN_SEED_BYTES} or more bytes from a CSPRNG (a fixed seed only for tests)`,
      },
    );
  }
  return seededRandom(seed);
}

function date(ms: bigint, field: string): Date {
  const d = new Date(Number(ms));
  if (Number.isNaN(d.getTime())) {
    throw new InputError(`${field} is out of range: ${ms}`, {
      field,
      hint: "milliseconds since 1970-01-01T00:00:00Z",
    });
  }
  return d;
}

function witFile(f: PlanFile): Wit.File {
  return { path: f.path, mode: f.mode, content: utf8.encode(f.content) };
}

function planFile(f: Wit.File, field: string): PlanFile {
  return { path: f.path, mode: f.mode, content: text(f.content, `${field}.content`) };
}

function planFiles(files: readonly Wit.File[], field: string): PlanFile[] {
  return files.map((f, i) => planFile(f, `${field}[${i}]`));
}

/** The library's ports and shared options from the WIT `plan-inputs`. */
function runOptions(i: Wit.PlanInputs, field: string): PlanRunOptions {
  const now = date(i.now, `${field}.now`);
  return {
    host: {
      hostname: i.host.hostname,
      advertiseAddress: i.host.advertiseAddress,
      existingDirs: i.host.existingDirs,
      proxyEnv: Object.fromEntries(i.host.proxyEnv),
      systemdResolved: i.host.systemdResolved,
    },
    random: random(i.seed, `${field}.seed`),
    clock: { now: () => now },
    crypto: pureJsCryptoPort,
    existingFiles: planFiles(i.existingFiles, `${field}.existing-files`),
    keys: Object.fromEntries(i.keys),
  };
}

function witBringUp(b: { files: readonly PlanFile[]; commands: string[][] }): Wit.BringUp {
  return { files: b.files.map(witFile), commands: b.commands };
}

function witControlPlanePlan(p: LibControlPlanePlan): Wit.ControlPlanePlan {
  return {
    files: p.files.map(witFile),
    objects: p.objects.map((o) => JSON.stringify(o)),
    joinCommand: p.joinCommand,
    controlPlaneJoinCommand: p.controlPlaneJoinCommand,
    caCertHash: p.caCertHash,
    token: p.token,
    apiServerEndpoint: p.apiServerEndpoint,
    certificateKey: p.certificateKey,
    kubernetesVersion: p.kubernetesVersion,
    bringUp: witBringUp(p.bringUp),
    log: p.log,
  };
}

function witJoinPlan(p: LibJoinPlan): Wit.JoinPlan {
  return { files: p.files.map(witFile), bringUp: witBringUp(p.bringUp), log: p.log };
}

/** The objects of one text (JSON or YAML, one or more documents; a `List` gives its items). */
function objectsOf(text: string, field: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of parseKubeYaml(text, field)) {
    const v = doc.value as KubeObject & { items?: unknown };
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new InputError(`${field} is not a Kubernetes object`, { field });
    }
    if (v.kind === "List" && Array.isArray(v.items)) out.push(...(v.items as KubeObject[]));
    else out.push(v);
  }
  return out;
}

/** The library's `cluster` of a join from the WIT variant. */
function joinCluster(c: Wit.Cluster): JoinPlanOptions["cluster"] {
  if (c.tag === "objects") {
    return { objects: c.val.flatMap((t, i) => objectsOf(t, `cluster.objects[${i}]`)) };
  }
  const p = c.val;
  return {
    kind: "control-plane",
    files: planFiles(p.files, "cluster.plan.files"),
    objects: p.objects.flatMap((t, i) => objectsOf(t, `cluster.plan.objects[${i}]`)),
    joinCommand: p.joinCommand,
    controlPlaneJoinCommand: p.controlPlaneJoinCommand,
    caCertHash: p.caCertHash,
    token: p.token,
    apiServerEndpoint: p.apiServerEndpoint,
    certificateKey: p.certificateKey,
    kubernetesVersion: p.kubernetesVersion,
    bringUp: {
      files: planFiles(p.bringUp.files, "cluster.plan.bring-up.files"),
      commands: p.bringUp.commands,
    },
    log: p.log,
  };
}

function joinOptions(r: Wit.JoinRequest): JoinPlanOptions {
  return {
    ...runOptions(r.inputs, "inputs"),
    cluster: joinCluster(r.cluster),
    config: r.config,
    apiServerEndpoint: r.apiServerEndpoint,
    token: r.token,
    caCertHashes: r.caCertHashes,
    unsafeSkipCAVerification: r.unsafeSkipCaVerification,
    certificateKey: r.certificateKey,
  };
}

function witVerdict(v: DiscoveryVerdict): Wit.Verdict {
  return {
    verified: v.verdict === "verified",
    reason: v.reason,
    tokenId: v.tokenId,
    server: v.server,
    caPinned: v.caPinned,
    checks: v.checks.map((c) => ({ name: c.name, status: c.status, message: c.message })),
    ca: v.ca && {
      subject: v.ca.subject,
      issuer: v.ca.issuer,
      serialNumber: v.ca.serialNumber,
      notBefore: v.ca.notBefore,
      notAfter: v.ca.notAfter,
      pin: v.ca.pin,
      pinned: v.ca.pinned,
    },
    caCerts: v.caCerts.map((c) => ({
      subject: c.subject,
      issuer: c.issuer,
      serialNumber: c.serialNumber,
      notBefore: c.notBefore,
      notAfter: c.notAfter,
      signatureAlgorithm: c.signatureAlgorithm,
      publicKeyAlgorithm: c.publicKeyAlgorithm,
      isCa: c.isCA,
      pin: c.pin,
    })),
  };
}

/** `check-cluster-info`. */
export function checkClusterInfo(request: Wit.ClusterInfoCheck): Promise<Wit.Verdict> {
  return guarded(async () =>
    witVerdict(
      await libCheckClusterInfo({
        clusterInfo: request.clusterInfo,
        token: request.token,
        caCertHashes: request.caCertHashes,
        unsafeSkipCAVerification: request.unsafeSkipCaVerification,
        now: date(request.now, "now"),
      }, pureJsCryptoPort),
    )
  );
}

/** `generate-token`. */
export function generateToken(seed: Uint8Array): Promise<string> {
  return guarded(() => libGenerateToken(random(seed, "seed")));
}

/** `parse-token`. */
export function parseToken(token: string): Promise<Wit.TokenParts> {
  return guarded(() => libParseToken(token));
}

/** `ca-cert-pins`. */
export function caCertPins(caPem: string): Promise<string[]> {
  return guarded(() => pemCertificatePins(caPem, pureJsCryptoPort));
}

/** `plan-control-plane`. */
export function planControlPlane(request: Wit.ControlPlaneRequest): Promise<Wit.ControlPlanePlan> {
  return guarded(async () =>
    witControlPlanePlan(
      await libPlanControlPlane({
        ...runOptions(request.inputs, "inputs"),
        config: request.config,
        uploadCerts: request.uploadCerts,
      }),
    )
  );
}

/** `plan-worker`. */
export function planWorker(request: Wit.JoinRequest): Promise<Wit.JoinPlan> {
  return guarded(async () => witJoinPlan(await libPlanWorker(joinOptions(request))));
}

/** `plan-control-plane-join`. */
export function planControlPlaneJoin(request: Wit.JoinRequest): Promise<Wit.JoinPlan> {
  return guarded(async () => witJoinPlan(await libPlanControlPlaneJoin(joinOptions(request))));
}

/** `render-cloud-init`. */
export function renderCloudInit(
  files: Wit.File[],
  bringUp: Wit.BringUp,
  options: Wit.CloudInitOptions,
): Promise<string> {
  return guarded(() =>
    toCloudInit(
      {
        files: planFiles(files, "files"),
        bringUp: {
          files: planFiles(bringUp.files, "bring-up.files"),
          commands: bringUp.commands,
        },
      },
      { preCommands: options.preCommands, commands: options.commands },
    )
  );
}

/** Promise-returning versions of the WIT functions (componentize-js awaits them). */
type Async<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;

/** The interface `kubeadm:core/api`, as the component exports it. */
export const api: { [K in keyof typeof Wit]: Async<typeof Wit[K]> } = {
  checkClusterInfo,
  generateToken,
  parseToken,
  caCertPins,
  planControlPlane,
  planWorker,
  planControlPlaneJoin,
  renderCloudInit,
};
