/**
 * Structure-aware fuzzer of the certificate readers (issue 25, "untrusted bytes"): the DER
 * reader (`core/pki/der_reader.ts`) and its callers parse the CA that arrives in
 * `cluster-info` before anything is trusted. `--seed S --cases N` runs N cases of
 * scripts/fuzz_der_cases.ts (mutations of the committed seed corpus,
 * `scripts/fuzz_der_seeds.pem`) against three targets: `parseCertificate` (then the summary
 * discovery logs), `parseCertificatesPEM` (a PEM bundle around the mutant), and
 * `checkClusterInfo` (token discovery's checks of a `cluster-info` whose signed kubeconfig
 * carries the mutant as its CA, pinned or with the unsafe skip).
 *
 * What counts (a finding fails the run):
 * - **crash**: anything thrown that is not a clean rejection. A clean rejection is a
 *   `KubeadmError` (`PkiError` from the parsers, `DiscoveryError` from discovery) whose whole
 *   `cause` chain is `KubeadmError`s too: a `TypeError` or `RangeError` wrapped into
 *   `x509: malformed certificate` is a crash that a catch-all hid. For `checkClusterInfo`,
 *   which never throws, an `internal` check is a crash.
 * - **hang**: a case taking more than `--hang-ms` (default 2,000 ms) of CPU, in the run and
 *   again when run alone after it (CPU time, not wall time: on a busy machine a case waits for
 *   a core). Cases run in a Worker; one that gives no result within `--kill-ms` (default 60 s
 *   of wall time) is killed, counted as a hang, and the run goes on from the next case.
 * - **disagreement**: a certificate we accept that `openssl x509 -inform DER` refuses
 *   (every distinct accepted certificate is checked, with `--openssl all`, the default).
 * - **memory**: the process's peak RSS (VmHWM, workers included) above `--max-rss-mb`
 *   (default 1024).
 *
 * Prints the counts, the rejection messages, time per case, memory and the openssl
 * agreement, and each finding with its repro (`scripts/fuzz-der --seed S --case I`).
 *
 * @module
 */
import process from "node:process";
import { scriptArgs } from "./script_args.ts";
import { KubeadmError } from "../core/errors.ts";
import { webCryptoPort } from "../adapters/crypto/webcrypto.ts";
import { encodePem } from "../core/pki/pem.ts";
import { parseCertificate, parseCertificatesPEM } from "../core/pki/cert.ts";
import { certificatePin } from "../core/pki/pin.ts";
import { summarizeCertificate } from "../core/discovery/ca_bundle.ts";
import { checkClusterInfo } from "../core/discovery/verdict.ts";
import { clusterInfoFor, signClusterInfo } from "../core/cluster/cluster_info.ts";
import type { ConfigMap } from "kubernetes-types/core/v1.d.ts";
import {
  type DerCase,
  generateDerCase,
  type Node,
  parseTree,
  type Target,
} from "./fuzz_der_cases.ts";
import { readSeeds, writeSeeds } from "./fuzz_der_seeds.ts";

/** How one case ended. */
export interface DerOutcome {
  index: number;
  target: Target;
  verdict: "accepted" | "rejected" | "crash";
  /** The rejection's message, or what crashed (name, message, first frames). */
  detail: string;
  /** The certificates (DER) the target accepted. */
  accepted: Uint8Array[];
  /** Wall time. */
  ms: number;
  /** CPU time of the process meanwhile (the worker's, and the little the main thread does). */
  cpuMs: number;
  /** The worker's V8 heap in use after the case (every 1000th case). */
  heapMiB?: number;
  /** The bytes of a `der` case, when Go's parser is to judge them too. */
  der?: Uint8Array;
}

/** One problem. */
export interface DerFinding {
  kind: "crash" | "hang" | "disagreement" | "memory" | "seed";
  index?: number;
  detail: string;
}

/**
 * Whether `e` is a clean rejection: a `KubeadmError` whose every `cause` is one too (or none).
 */
export function isCleanRejection(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x !== undefined; depth++) {
    if (!(x instanceof KubeadmError) || depth > 20) return false;
    x = x.cause;
  }
  return true;
}

function describeCrash(e: unknown): string {
  const chain: string[] = [];
  for (let x: unknown = e, depth = 0; x !== undefined && depth < 20; depth++) {
    if (x instanceof Error) {
      const frames = (x.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l)).slice(0, 3)
        .map((l) => l.trim().replace(/file:\/\/\/\S*?\/(core|scripts)\//, "$1/"));
      chain.push(
        `${x.name}: ${x.message.slice(0, 200)}${frames.length ? ` [${frames.join(" < ")}]` : ""}`,
      );
      x = x.cause;
    } else {
      chain.push(`thrown ${typeof x}: ${String(x).slice(0, 100)}`);
      break;
    }
  }
  return chain.join(" <- caused by ");
}

/** The token every cluster-info case is signed with (a test value, not a secret). */
export const FUZZ_TOKEN = { id: "abcdef", secret: "0123456789abcdef" };

/** What the cases of a run share: the corpus and each seed's pin. */
export interface DerContext {
  corpus: Uint8Array[];
  trees: Node[];
  pins: string[];
}

/** Reads the corpus and pins each seed. */
export async function derContext(): Promise<DerContext> {
  const corpus = readSeeds().map((s) => s.der);
  const pins = await Promise.all(
    corpus.map((d) => certificatePin(parseCertificate(d), webCryptoPort)),
  );
  return { corpus, trees: corpus.map(parseTree), pins };
}

/** The cluster-info ConfigMap kubeadm publishes, with `der` as its CA, signed with the token. */
export function clusterInfoWith(der: Uint8Array): Promise<ConfigMap> {
  return signClusterInfo(
    clusterInfoFor("https://10.0.0.1:6443", encodePem("CERTIFICATE", der)),
    [`${FUZZ_TOKEN.id}.${FUZZ_TOKEN.secret}`],
    webCryptoPort,
  );
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** Runs one case against its target. */
export async function runDerCase(c: DerCase, ctx: DerContext): Promise<DerOutcome> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const out = (verdict: DerOutcome["verdict"], detail: string, accepted: Uint8Array[] = []) => ({
    index: c.index,
    target: c.target,
    verdict,
    detail,
    accepted,
    ms: performance.now() - start,
    cpuMs: cpuMsSince(cpu),
  });
  try {
    if (c.target === "der") {
      const cert = parseCertificate(c.der);
      await summarizeCertificate(cert, webCryptoPort);
      return out("accepted", "", [c.der]);
    }
    if (c.target === "pem") {
      const certs = parseCertificatesPEM(c.pem!);
      for (const cert of certs) await summarizeCertificate(cert, webCryptoPort);
      return out("accepted", "", certs.map((x) => x.der));
    }
    const verdict = await checkClusterInfo({
      clusterInfo: await clusterInfoWith(c.der),
      token: `${FUZZ_TOKEN.id}.${FUZZ_TOKEN.secret}`,
      caCertHashes: c.pinned ? [ctx.pins[c.seed]] : [],
      unsafeSkipCAVerification: !c.pinned,
      now: new Date("2026-06-01T00:00:00Z"),
    }, webCryptoPort);
    const internal = verdict.checks.find((ch) => ch.name === "internal");
    if (internal) return out("crash", `checkClusterInfo internal: ${internal.message}`);
    if (verdict.verdict === "verified") return out("accepted", "", [c.der]);
    const failed = verdict.checks.find((ch) => ch.status === "fail");
    return out("rejected", `${failed?.name}: ${verdict.reason}`);
  } catch (e) {
    if (isCleanRejection(e)) return out("rejected", (e as Error).message);
    return out("crash", describeCrash(e));
  }
}

// --- the worker: generates and runs a range of cases, one message per case ---

interface WorkerJob {
  seed: number;
  from: number;
  to: number;
  /** Send each `der` case's bytes back (for Go's parser). */
  withDer: boolean;
}

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<WorkerJob>) => void) | null;
  postMessage(m: unknown, transfer?: Transferable[]): void;
  WorkerGlobalScope?: unknown;
};
if (scope.WorkerGlobalScope !== undefined) {
  const ready = derContext();
  scope.onmessage = async (e) => {
    const ctx = await ready;
    const { seed, from, to, withDer } = e.data;
    for (let i = from; i < to; i++) {
      const c = generateDerCase(seed, i, ctx.corpus, ctx.trees);
      const outcome: DerOutcome = await runDerCase(c, ctx);
      if (withDer && c.target === "der") outcome.der = c.der;
      // The worker's V8 heap, every 1000 cases: what the parsers keep, apart from the allocator.
      const heapMiB = (i + 1) % 1000 === 0 ? Deno.memoryUsage().heapUsed / 1048576 : undefined;
      scope.postMessage({ ...outcome, heapMiB });
    }
    scope.postMessage({ done: to });
  };
}

// --- openssl, the independent judge of what we accept ---

/** Whether `openssl x509` loads the DER certificate. */
export async function opensslAccepts(der: Uint8Array): Promise<{ ok: boolean; stderr: string }> {
  const child = new Deno.Command("openssl", {
    args: ["x509", "-inform", "DER", "-noout"],
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(der).catch(() => {});
  await w.close().catch(() => {});
  const r = await child.output();
  return { ok: r.code === 0, stderr: new TextDecoder().decode(r.stderr).split("\n")[0] };
}

/**
 * Go's `x509.ParseCertificate` (scripts/x509-oracle, built on first use) behind a pipe: one
 * certificate at a time, its error text or `undefined` when Go accepts it.
 */
export class GoParser {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: AsyncIterator<string>;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(bin: string) {
    this.#child = new Deno.Command(bin, { stdin: "piped", stdout: "piped", stderr: "inherit" })
      .spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#lines = this.#child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
      new TransformStream<string, string>(
        {
          buffered: "",
          transform(chunk, ctl) {
            const parts = (this.buffered + chunk).split("\n");
            this.buffered = parts.pop()!;
            for (const line of parts) ctl.enqueue(line);
          },
        } as Transformer<string, string> & { buffered: string },
      ),
    )[Symbol.asyncIterator]();
  }

  /** Builds the oracle if needed and starts it. */
  static async start(): Promise<GoParser> {
    const script = new URL("./x509-oracle", import.meta.url).pathname;
    const r = await new Deno.Command(script, { stderr: "inherit" }).output();
    if (r.code !== 0) throw new Error("scripts/x509-oracle failed");
    return new GoParser(new TextDecoder().decode(r.stdout).trim().split("\n").at(-1)!);
  }

  /** Go's error for `der`, or `undefined` when Go parses it. */
  parse(der: Uint8Array): Promise<string | undefined> {
    const next = this.#queue.then(async () => {
      const frame = new Uint8Array(4 + der.length);
      new DataView(frame.buffer).setUint32(0, der.length);
      frame.set(der, 4);
      await this.#writer.write(frame);
      const { value } = await this.#lines.next();
      if (value === undefined) throw new Error("x509-oracle ended");
      return value === "ok" ? undefined : value.replace(/^err /, "");
    });
    this.#queue = next.catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#child.status;
  }
}

async function sha256Hex(b: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", b.slice()));
  return Array.from(d, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** The process's peak and current resident memory, in MiB (Linux `/proc/self/status`). */
export function memoryMiB(): { peak: number; now: number } {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { peak: kb("VmHWM") / 1024, now: kb("VmRSS") / 1024 };
}

/** Options of {@link runDerFuzz}. */
export interface DerFuzzOptions {
  seed: number;
  from?: number;
  cases: number;
  /** Check every distinct accepted certificate with openssl (`all`), at most N of them, or none. */
  openssl?: "all" | number;
  hangMs?: number;
  killMs?: number;
  maxRssMiB?: number;
  /** Progress lines on stderr. */
  progress?: boolean;
  /** Judge every `der` case with Go's parser too (scripts/x509-oracle). */
  go?: boolean;
}

/** What a run found and measured. */
export interface DerFuzzReport {
  cases: number;
  byTarget: Record<Target, number>;
  accepted: number;
  acceptedDistinct: number;
  rejected: number;
  rejections: Map<string, number>;
  crashes: number;
  hangs: number;
  /** Cases slower than the bound in the run but not when run again alone (a busy machine). */
  slowOnce: number;
  opensslChecked: number;
  opensslAgreed: number;
  /** With `go`: the `der` cases Go judged, by how its verdict compares with ours. */
  go?: {
    bothAccept: number;
    bothReject: number;
    /** Both refused with the same message. */
    sameMessage: number;
    /** Ours accepted, Go refused: Go's messages. */
    onlyGoRejects: Map<string, number>;
    /** Ours refused, Go accepted: our messages. */
    onlyWeReject: Map<string, number>;
  };
  /** Wall time per case (and of the run). */
  ms: { total: number; median: number; p99: number; max: number; maxIndex: number };
  /** CPU time per case. */
  cpuMs: { median: number; p99: number; max: number; maxIndex: number };
  rssMiB: { start: number; peak: number; samples: number[] };
  /** The worker's V8 heap in use, every 1000 cases. */
  heapMiB: number[];
  findings: DerFinding[];
}

/** Runs cases `[from, from + cases)` of `seed` in a worker and judges them. */
export async function runDerFuzz(opts: DerFuzzOptions): Promise<DerFuzzReport> {
  const hangMs = opts.hangMs ?? 2_000;
  const killMs = opts.killMs ?? 60_000;
  const maxRss = opts.maxRssMiB ?? 1024;
  const from = opts.from ?? 0;
  const to = from + opts.cases;
  const findings: DerFinding[] = [];
  const report: DerFuzzReport = {
    cases: 0,
    byTarget: { der: 0, pem: 0, "cluster-info": 0 },
    accepted: 0,
    acceptedDistinct: 0,
    rejected: 0,
    rejections: new Map(),
    crashes: 0,
    hangs: 0,
    slowOnce: 0,
    opensslChecked: 0,
    opensslAgreed: 0,
    go: opts.go
      ? {
        bothAccept: 0,
        bothReject: 0,
        sameMessage: 0,
        onlyGoRejects: new Map(),
        onlyWeReject: new Map(),
      }
      : undefined,
    ms: { total: 0, median: 0, p99: 0, max: 0, maxIndex: -1 },
    cpuMs: { median: 0, p99: 0, max: 0, maxIndex: -1 },
    rssMiB: { start: memoryMiB().now, peak: 0, samples: [] },
    heapMiB: [],
    findings,
  };
  // The seeds themselves: we and openssl must accept every one.
  for (const [i, s] of readSeeds().entries()) {
    try {
      parseCertificate(s.der);
    } catch (e) {
      findings.push({
        kind: "seed",
        detail: `seed ${i} (${s.name}) rejected: ${(e as Error).message}`,
      });
    }
    if (!(await opensslAccepts(s.der)).ok) {
      findings.push({ kind: "seed", detail: `seed ${i} (${s.name}) rejected by openssl` });
    }
  }

  // openssl runs two at a time; between batches the worker waits while more than 64
  // certificates or 16 MiB wait for it, so they do not pile up in memory.
  const seen = new Set<string>();
  let pending = 0;
  let pendingBytes = 0;
  let running = 0;
  const waiting: (() => void)[] = [];
  const limit = opts.openssl ?? "all";
  const crossCheck = async (index: number, der: Uint8Array) => {
    const key = await sha256Hex(der);
    if (seen.has(key)) return;
    seen.add(key);
    report.acceptedDistinct++;
    if (limit !== "all" && report.opensslChecked >= limit) return;
    report.opensslChecked++;
    if (running < 2) running++;
    else await new Promise<void>((r) => waiting.push(r));
    try {
      const r = await opensslAccepts(der);
      if (r.ok) report.opensslAgreed++;
      else {
        findings.push({
          kind: "disagreement",
          index,
          detail: `accepted by us, refused by openssl x509: ${r.stderr}`,
        });
      }
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
  const check = (index: number, der: Uint8Array) => {
    pending++;
    pendingBytes += der.length;
    crossCheck(index, der).finally(() => {
      pending--;
      pendingBytes -= der.length;
    });
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const goParser = opts.go ? await GoParser.start() : undefined;
  const compareWithGo = async (m: DerOutcome) => {
    const goError = await goParser!.parse(m.der!);
    const g = report.go!;
    const bump = (map: Map<string, number>, k: string) => map.set(k, (map.get(k) ?? 0) + 1);
    if (m.verdict === "accepted") {
      if (goError === undefined) g.bothAccept++;
      else bump(g.onlyGoRejects, goError);
    } else if (goError === undefined) bump(g.onlyWeReject, m.detail);
    else {
      g.bothReject++;
      if (goError === m.detail) g.sameMessage++;
    }
  };
  const goChecks: Promise<void>[] = [];
  const times: number[] = [];
  const cpuTimes: number[] = [];
  const slow: DerOutcome[] = [];
  const record = (m: DerOutcome) => {
    report.cases++;
    report.byTarget[m.target]++;
    times.push(m.ms);
    cpuTimes.push(m.cpuMs);
    if (m.ms > report.ms.max) report.ms = { ...report.ms, max: m.ms, maxIndex: m.index };
    if (m.cpuMs > report.cpuMs.max) {
      report.cpuMs = { ...report.cpuMs, max: m.cpuMs, maxIndex: m.index };
    }
    if (m.cpuMs > hangMs) slow.push(m);
    if (m.verdict === "crash") {
      report.crashes++;
      findings.push({ kind: "crash", index: m.index, detail: `${m.target}: ${m.detail}` });
    } else if (m.verdict === "rejected") {
      report.rejected++;
      const reason = m.detail.replace(/\d+/g, "N").slice(0, 120);
      report.rejections.set(reason, (report.rejections.get(reason) ?? 0) + 1);
    } else {
      report.accepted++;
      for (const der of m.accepted) check(m.index, der);
    }
    if (m.heapMiB !== undefined) report.heapMiB.push(Math.round(m.heapMiB));
    if (goParser && m.der && m.verdict !== "crash") goChecks.push(compareWithGo(m));
    if (report.cases % 1000 === 0) {
      const mem = memoryMiB();
      report.rssMiB.samples.push(Math.round(mem.now));
      if (opts.progress) {
        console.error(
          `… ${report.cases} cases, ${report.crashes} crashes, ${report.accepted} accepted, rss ${
            mem.now.toFixed(0)
          } MiB`,
        );
      }
    }
  };

  // Runs cases [start, end) in the worker; returns where to go on from (after a killed case).
  let worker: Worker | undefined;
  const runBatch = (start: number, end: number) =>
    new Promise<number>((resolve) => {
      worker ??= new Worker(import.meta.url, { type: "module" });
      const w = worker;
      let last = performance.now();
      let at = start;
      const finish = (next: number, kill: boolean) => {
        clearInterval(watchdog);
        if (kill) {
          w.terminate();
          worker = undefined;
        }
        resolve(next);
      };
      w.onmessage = (e: MessageEvent<DerOutcome | { done: number }>) => {
        last = performance.now();
        if ("done" in e.data) return finish(end, false);
        record(e.data);
        at = e.data.index + 1;
      };
      w.onerror = (e) => {
        e.preventDefault();
        report.crashes++;
        findings.push({ kind: "crash", index: at, detail: `worker error: ${e.message}` });
        finish(at + 1, true);
      };
      // A silent worker is stuck in a case: kill it and go on from the next one.
      const watchdog = setInterval(() => {
        if (performance.now() - last < killMs) return;
        report.hangs++;
        findings.push({ kind: "hang", index: at, detail: `no result after ${killMs} ms: killed` });
        finish(at + 1, true);
      }, 250);
      w.postMessage(
        { seed: opts.seed, from: start, to: end, withDer: !!opts.go } satisfies WorkerJob,
      );
    });

  const started = performance.now();
  for (let next = from; next < to;) {
    next = await runBatch(next, Math.min(to, next + 100));
    await Promise.all(goChecks.splice(0));
    while (pending > 64 || pendingBytes > 16 << 20) await sleep(10);
  }
  worker?.terminate();
  while (pending > 0) await sleep(10);
  await goParser?.close();
  // A slow case is run again alone: on a busy machine a case can wait for a core.
  const ctx = slow.length ? await derContext() : undefined;
  for (const m of slow) {
    const again = await runDerCase(
      generateDerCase(opts.seed, m.index, ctx!.corpus, ctx!.trees),
      ctx!,
    );
    if (again.cpuMs > hangMs) {
      report.hangs++;
      findings.push({
        kind: "hang",
        index: m.index,
        detail: `${m.target} took ${m.cpuMs.toFixed(0)} ms of CPU, ${
          again.cpuMs.toFixed(0)
        } ms again alone`,
      });
    } else report.slowOnce++;
  }
  report.ms.total = performance.now() - started;
  const quantile = (xs: number[], q: number) =>
    xs.sort((a, b) => a - b)[Math.floor(xs.length * q)] ?? 0;
  report.ms.median = quantile(times, 0.5);
  report.ms.p99 = quantile(times, 0.99);
  report.cpuMs.median = quantile(cpuTimes, 0.5);
  report.cpuMs.p99 = quantile(cpuTimes, 0.99);
  const mem = memoryMiB();
  report.rssMiB.peak = mem.peak;
  if (mem.peak > maxRss) {
    findings.push({
      kind: "memory",
      detail: `peak RSS ${mem.peak.toFixed(0)} MiB > ${maxRss} MiB`,
    });
  }
  return report;
}

function goLines(r: DerFuzzReport): string[] {
  if (!r.go) return [];
  const g = r.go;
  const top = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, n]) =>
      `    ${String(n).padStart(6)}  ${k}`
    );
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return [
    `Go's x509.ParseCertificate on the ${
      g.bothAccept + g.bothReject + sum(g.onlyGoRejects) + sum(g.onlyWeReject)
    } der cases: both accept ${g.bothAccept}, both refuse ${g.bothReject} (same message ${g.sameMessage}), only Go refuses ${
      sum(g.onlyGoRejects)
    }, only we refuse ${sum(g.onlyWeReject)}`,
    ...(g.onlyGoRejects.size ? ["  only Go refuses (Go's message):", ...top(g.onlyGoRejects)] : []),
    ...(g.onlyWeReject.size ? ["  only we refuse (our message):", ...top(g.onlyWeReject)] : []),
  ];
}

const range = (xs: number[]) => (xs.length ? `${Math.min(...xs)}–${Math.max(...xs)}` : "-");

/** The report as text, with each finding's repro. */
export function formatDerReport(r: DerFuzzReport, seed: number): string {
  const lines = [
    `cases: ${r.cases} (der ${r.byTarget.der}, pem ${r.byTarget.pem}, cluster-info ${
      r.byTarget["cluster-info"]
    }) in ${(r.ms.total / 1000).toFixed(1)} s`,
    `accepted: ${r.accepted} (${r.acceptedDistinct} distinct certificates), rejected cleanly: ${r.rejected}, crashes: ${r.crashes}, hangs: ${r.hangs} (${r.slowOnce} more were slow once but not alone)`,
    `openssl x509: ${r.opensslChecked} distinct accepted certificates checked, ${r.opensslAgreed} accepted by openssl too, ${
      r.opensslChecked - r.opensslAgreed
    } refused`,
    `time per case: wall median ${r.ms.median.toFixed(2)} ms, p99 ${r.ms.p99.toFixed(1)} ms, max ${
      r.ms.max.toFixed(0)
    } ms (case ${r.ms.maxIndex}); CPU median ${r.cpuMs.median.toFixed(2)} ms, p99 ${
      r.cpuMs.p99.toFixed(1)
    } ms, max ${r.cpuMs.max.toFixed(0)} ms (case ${r.cpuMs.maxIndex})`,
    `memory: RSS ${r.rssMiB.start.toFixed(0)} MiB at start, peak ${
      r.rssMiB.peak.toFixed(0)
    } MiB; every 1000 cases: RSS ${range(r.rssMiB.samples)} MiB, worker heap in use ${
      range(r.heapMiB)
    } MiB`,
    ...goLines(r),
    "rejections (most frequent):",
    ...[...r.rejections].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, n]) =>
      `  ${String(n).padStart(7)}  ${k}`
    ),
  ];
  if (r.findings.length) {
    lines.push(`findings: ${r.findings.length}`);
    for (const f of r.findings.slice(0, 100)) {
      lines.push(
        `  ${f.kind}${f.index === undefined ? "" : ` case ${f.index}`}: ${f.detail}${
          f.index === undefined
            ? ""
            : `\n    repro: scripts/fuzz-der --seed ${seed} --case ${f.index}`
        }`,
      );
    }
  } else lines.push("findings: 0");
  return lines.join("\n");
}

async function showCase(seed: number, index: number, out?: string): Promise<void> {
  const ctx = await derContext();
  const c = generateDerCase(seed, index, ctx.corpus, ctx.trees);
  console.log(
    `case ${index}: target ${c.target}, seed certificate ${c.seed} (${readSeeds()[c.seed].name})`,
  );
  console.log(`mutations: ${c.mutations.join("; ")}`);
  console.log(`bytes: ${c.der.length}${c.pinned === undefined ? "" : `, pinned: ${c.pinned}`}`);
  const o = await runDerCase(c, ctx);
  console.log(`verdict: ${o.verdict} in ${o.ms.toFixed(1)} ms${o.detail ? `: ${o.detail}` : ""}`);
  for (const [k, der] of o.accepted.entries()) {
    const r = await opensslAccepts(der);
    if (k < 3 || !r.ok) {
      console.log(`openssl x509, certificate ${k}: ${r.ok ? "accepts" : `refuses: ${r.stderr}`}`);
    }
  }
  if (out) {
    await Deno.writeFile(out, c.der);
    console.log(`DER written to ${out}`);
  }
}

// A worker's module is its main module too (import.meta.main): only the process runs the command.
if (import.meta.main && scope.WorkerGlobalScope === undefined) {
  const args = scriptArgs("fuzz-der", {
    seed: { type: "string", default: "1" },
    cases: { type: "string", default: "10000" },
    from: { type: "string", default: "0" },
    case: { type: "string" },
    out: { type: "string" },
    openssl: { type: "string", default: "all" },
    "hang-ms": { type: "string", default: "2000" },
    "kill-ms": { type: "string", default: "60000" },
    "max-rss-mb": { type: "string", default: "1024" },
    "write-seeds": { type: "boolean", default: false },
    go: { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
  });
  const { values } = args;
  const seed = args.integer("seed", 0);
  if (values["write-seeds"]) {
    const seeds = await writeSeeds();
    console.log(`wrote ${seeds.length} seed certificates`);
  } else if (values.case !== undefined) {
    await showCase(seed, args.integer("case", 0), values.out);
  } else {
    const report = await runDerFuzz({
      seed,
      from: args.integer("from", 0),
      cases: args.integer("cases"),
      openssl: values.openssl === "all" ? "all" : args.integer("openssl", 0),
      hangMs: args.integer("hang-ms"),
      killMs: args.integer("kill-ms"),
      maxRssMiB: args.integer("max-rss-mb"),
      progress: !values.quiet,
      go: values.go,
    });
    console.log(formatDerReport(report, seed));
    Deno.exit(report.findings.length ? 1 : 0);
  }
}
