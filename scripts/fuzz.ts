/**
 * Bad-input fuzzer (issue 9). Seeded and reproducible: `--seed S --cases N` generates N cases
 * (scripts/fuzz_cases.ts) against `init phase certs all` and `init phase kubeconfig all` (from
 * node files of a planned cluster, some broken), `config validate`, `join --dry-run`
 * (discovery against the stub control plane of scripts/fuzz_stub.ts) and `discovery-check`,
 * and checks each: no uncaught exception, no error that is not a KubeadmError, no stack trace
 * in the output unless the command line asked for one (`--v=5` and above, as upstream's); an
 * exit status from the documented list (core/errors.ts `exitStatuses`); no
 * file written under the case's root, working or temp directory when the status is not 0; no
 * secret (the tokens' secrets, the certificate key, private key material) in the output.
 *
 * Why in-process: one `deno run` costs about half a second of a core to start and compile, so
 * 10,000 processes on two shared cores would take over an hour. The bulk runs the CLI's real
 * entry, `main` of cli/main.ts (the function the process entry calls), with its streams
 * injected, one case at a time, each in a fresh directory (`--rootfs`, working directory and
 * `TMPDIR`). The process itself may write only under the fuzzer's work directory (Deno
 * permissions set by scripts/fuzz), so a write that escapes fails loudly instead of landing. A
 * subprocess slice (`--subprocess K`, the first K cases) runs the same command lines through
 * the real launcher (scripts/kubeadm) and requires the same exit status.
 *
 * Prints cases, crashes, writes-on-error, leaked secrets, the exit-status histogram and the
 * max and median time per case; each finding with its index and a one-line repro. Exits 1 on
 * any finding.
 *
 * @module
 */
import { scriptArgs } from "./script_args.ts";
import { main } from "../cli/main.ts";
import { buildProgram } from "../cli/program.ts";
import { exitStatuses, KubeadmError } from "../core/errors.ts";
import { verbosityOf } from "../cli/flags.ts";
import { type FuzzCase, generateCase, P, reusedNodeFiles, type Target } from "./fuzz_cases.ts";
import { startStub, type Stub } from "./fuzz_stub.ts";

/** What one run of a case gave. */
export interface Outcome {
  code: number;
  output: string;
  /** What a failed run threw (main's `onError`), if anything. */
  error?: unknown;
  /** Thrown out of `main` itself. */
  escaped?: unknown;
  /** Paths that changed under the case's directories. */
  changed: string[];
}

/** One problem with one case. */
export interface Finding {
  kind: "crash" | "exit-status" | "write-on-error" | "secret" | "subprocess" | "hang";
  detail: string;
}

/** A case running longer than this is a finding: every wait of these commands is bounded. */
export const HANG_MS = 30_000;

const STACK =
  /^\s+at .*(:\d+:\d+\)?|<anonymous>|native)$|file:\/\/\/|ext:[a-z_]+\/|error: Uncaught/m;

/** The secrets of a case: token secrets, certificate keys, private key bodies. */
export function secretsOf(texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const m of t.matchAll(/\b[a-z0-9]{6}\.([a-z0-9]{16})\b/g)) out.add(m[1]);
    for (const m of t.matchAll(/-----BEGIN [A-Z ]*PRIVATE KEY-----\s*([A-Za-z0-9+/=]{40})/g)) {
      out.add(m[1]);
    }
  }
  return [...out];
}

/**
 * Judges one outcome of the command line `argv`; an empty list when the case is fine. A stack
 * trace is a finding unless `argv` asked for it (`--v=5` or more prints a failure's stack).
 */
export function checkOutcome(
  o: Outcome,
  secrets: string[],
  argv: readonly string[] = [],
): Finding[] {
  const f: Finding[] = [];
  if (o.escaped !== undefined) {
    f.push({ kind: "crash", detail: `main threw: ${String(o.escaped)}` });
  }
  if (o.error !== undefined && !(o.error instanceof KubeadmError)) {
    const e = o.error as Error;
    f.push({ kind: "crash", detail: `not a KubeadmError: ${e?.name}: ${e?.message}` });
  }
  if (STACK.test(o.output) && verbosityOf(argv) < 5) {
    f.push({ kind: "crash", detail: `stack trace: ${o.output.match(STACK)?.[0]}` });
  }
  if (!exitStatuses().includes(o.code)) {
    f.push({ kind: "exit-status", detail: `exit status ${o.code} is not documented` });
  }
  if (o.code !== 0 && o.changed.length > 0) {
    f.push({ kind: "write-on-error", detail: `exit ${o.code} but wrote ${o.changed.join(", ")}` });
  }
  if (/PRIVATE KEY-----/.test(o.output)) {
    f.push({ kind: "secret", detail: "private key PEM in the output" });
  }
  for (const s of secrets) {
    if (o.output.includes(s)) {
      f.push({ kind: "secret", detail: `secret ${s.slice(0, 3)}… in the output` });
    }
  }
  return f;
}

/** Every path under `dir` with its size, mode and mtime. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      const st = await Deno.lstat(p);
      out.set(p, `${st.size}/${st.mode}/${st.mtime?.getTime()}`);
      if (e.isDirectory) await walk(p);
    }
  };
  await walk(dir);
  return out;
}

function changedPaths(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [p, v] of after) if (before.get(p) !== v) out.push(p);
  for (const p of before.keys()) if (!after.has(p)) out.push(`-${p}`);
  return out;
}

/** A case with its placeholders filled in for a directory. */
interface Prepared {
  argv: string[];
  dir: string;
  secrets: string[];
}

/** A root file given as one of the stub's files (`P.file`, `P.other`, `P.truncated`). */
function rootFileContent(text: string, stub: Stub): string | undefined {
  const from = (prefix: string, files: Map<string, string>) =>
    text.startsWith(prefix) ? files.get(text.slice(prefix.length)) ?? "" : undefined;
  const truncated = from(P.truncated, stub.files);
  return from(P.file, stub.files) ?? from(P.other, stub.otherFiles) ??
    truncated?.slice(0, Math.floor(truncated.length / 2));
}

async function prepare(c: FuzzCase, stub: Stub, dir: string): Promise<Prepared> {
  const fill = (s: string) =>
    s.replaceAll(P.root, `${dir}/root`).replaceAll(P.dir, dir)
      .replaceAll(P.endpoint, stub.endpoint).replaceAll(P.token, stub.token)
      .replaceAll(P.tokenId, stub.token.split(".")[0])
      .replaceAll(P.hash, stub.caCertHash).replaceAll(P.certKey, stub.certificateKey);
  await Deno.mkdir(`${dir}/root`, { recursive: true });
  await Deno.mkdir(`${dir}/tmp`);
  const texts: string[] = [];
  for (const [name, text] of Object.entries(c.files)) {
    await Deno.writeTextFile(`${dir}/${name}`, fill(text));
    texts.push(fill(text));
  }
  for (const [path, text] of Object.entries(c.rootFiles)) {
    const content = rootFileContent(text, stub) ?? fill(text);
    const full = `${dir}/root${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, content);
    texts.push(content);
  }
  const argv = c.argv.map(fill);
  stub.signFor(c.signFor.map(fill));
  const secrets = secretsOf([...texts, ...argv, stub.token]);
  if (
    argv.some((a) => a.includes(stub.certificateKey)) ||
    texts.some((t) => t.includes(stub.certificateKey))
  ) {
    secrets.push(stub.certificateKey);
  }
  for (const [i, a] of argv.entries()) {
    if (a === "--certificate-key" && argv[i + 1]?.length >= 16) secrets.push(argv[i + 1]);
    if (a.startsWith("--certificate-key=") && a.length >= 34) secrets.push(a.slice(18));
  }
  for (const f of stub.files.values()) if (/PRIVATE KEY/.test(f)) secrets.push(...secretsOf([f]));
  return { argv, dir, secrets };
}

/** Runs a prepared case in-process through `main`. */
async function runInProcess(p: Prepared, live: boolean): Promise<Outcome> {
  let output = "";
  const add = (t: string) => {
    output += t;
    if (live) Deno.stdout.writeSync(new TextEncoder().encode(t));
  };
  let error: unknown;
  let escaped: unknown;
  let code = -1;
  const before = await snapshot(p.dir);
  const cwd = Deno.cwd();
  Deno.chdir(p.dir);
  Deno.env.set("TMPDIR", `${p.dir}/tmp`);
  try {
    code = await main(p.argv, {
      streams: {
        stdout: add,
        stderr: add,
        stdin: () => new Blob([]).stream(),
      },
      onError: (e) => error = e,
    });
  } catch (e) {
    escaped = e;
  } finally {
    Deno.chdir(cwd);
  }
  const changed = changedPaths(before, await snapshot(p.dir));
  return { code, output, error, escaped, changed };
}

/** Runs a prepared case through the launcher (a real process). */
async function runSubprocess(p: Prepared, repo: string): Promise<Outcome> {
  const before = await snapshot(p.dir);
  const r = await new Deno.Command(`${repo}/scripts/kubeadm`, {
    args: p.argv,
    cwd: p.dir,
    env: { TMPDIR: `${p.dir}/tmp` },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  const changed = changedPaths(before, await snapshot(p.dir));
  return { code: r.code, output: dec.decode(r.stdout) + dec.decode(r.stderr), changed };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor((s.length - 1) / 2)];
}

function quote(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`;
}

async function run(): Promise<number> {
  const args = scriptArgs("fuzz", {
    seed: { type: "string", default: "1" },
    cases: { type: "string", default: "1000" },
    from: { type: "string", default: "0" },
    case: { type: "string" },
    subprocess: { type: "string", default: "0" },
    "work-dir": { type: "string" },
    verbose: { type: "boolean", default: false },
  });
  const { values } = args;
  const seed = values.seed!;
  const only = values.case === undefined ? undefined : args.integer("case", 0);
  const from = only ?? args.integer("from", 0);
  const count = only === undefined ? args.integer("cases") : 1;
  const subprocess = args.integer("subprocess", 0);
  const work = values["work-dir"] ?? await Deno.makeTempDir({ prefix: "kts-fuzz-" });
  const repo = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const stub = await startStub();
  const program = await buildProgram();
  const ctx = {
    program,
    clusterInfoYaml: stub.clusterInfoYaml,
    nodeFiles: reusedNodeFiles(stub.files.keys()),
  };
  const times: number[] = [];
  const histogram = new Map<number, number>();
  const byTarget = new Map<Target, number>();
  const targetMs = new Map<Target, number>();
  const counts = {
    crash: 0,
    "exit-status": 0,
    "write-on-error": 0,
    secret: 0,
    subprocess: 0,
    hang: 0,
  };
  let failing = 0;
  let slowest = { ms: 0, index: -1 };
  try {
    for (let i = from; i < from + count; i++) {
      const c = generateCase(seed, i, ctx);
      const dir = `${work}/case-${i}`;
      await Deno.mkdir(dir);
      const p = await prepare(c, stub, dir);
      if (values.verbose || only !== undefined) {
        console.log(`case ${i} (${c.target}): kubeadm ${p.argv.map(quote).join(" ")}`);
      }
      const started = performance.now();
      const watchdog = setTimeout(
        () =>
          console.log(
            `case ${i} still running after ${HANG_MS / 1000}s (repro: scripts/fuzz --seed ${
              quote(seed)
            } --case ${i})`,
          ),
        HANG_MS,
      );
      const o = await runInProcess(p, only !== undefined);
      clearTimeout(watchdog);
      const ms = performance.now() - started;
      times.push(ms);
      if (ms > slowest.ms) slowest = { ms, index: i };
      histogram.set(o.code, (histogram.get(o.code) ?? 0) + 1);
      byTarget.set(c.target, (byTarget.get(c.target) ?? 0) + 1);
      targetMs.set(c.target, (targetMs.get(c.target) ?? 0) + ms);
      const findings = checkOutcome(o, p.secrets, p.argv);
      if (ms > HANG_MS) findings.push({ kind: "hang", detail: `ran ${(ms / 1000).toFixed(0)}s` });
      // A process's arguments cannot hold a NUL byte (the OS refuses to start it), so such a
      // case runs in-process only.
      if (i - from < subprocess && !p.argv.some((a) => a.includes("\0"))) {
        const sdir = `${work}/case-${i}-process`;
        await Deno.mkdir(sdir);
        const sp = await prepare(c, stub, sdir);
        const so = await runSubprocess(sp, repo);
        if (so.code !== o.code) {
          findings.push({
            kind: "subprocess",
            detail: `the launcher exited ${so.code}, in-process ${o.code}: ${
              so.output.slice(0, 300)
            }`,
          });
        }
        findings.push(
          ...checkOutcome(so, sp.secrets, sp.argv).map((f) => ({
            ...f,
            detail: `launcher: ${f.detail}`,
          })),
        );
        await Deno.remove(sdir, { recursive: true });
      }
      if (values.verbose || only !== undefined) {
        console.log(`exit ${o.code} (${ms.toFixed(0)}ms)`);
        if (only === undefined) console.log(o.output);
      }
      for (const f of findings) counts[f.kind]++;
      if (findings.length > 0) {
        failing++;
        console.log(
          `FAIL case ${i} (${c.target}): ${
            findings.map((f) => `${f.kind}: ${f.detail}`).join("; ")
          }`,
        );
        console.log(`  argv: kubeadm ${c.argv.map(quote).join(" ")}`);
        console.log(`  repro: scripts/fuzz --seed ${quote(seed)} --case ${i}`);
      }
      await Deno.remove(dir, { recursive: true });
    }
  } finally {
    await stub.close();
    if (!values["work-dir"]) await Deno.remove(work, { recursive: true });
  }
  const hist = [...histogram].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}:${v}`).join(" ");
  const targets = [...byTarget].map(([k, v]) =>
    `${k}:${v} in ${((targetMs.get(k) ?? 0) / 1000).toFixed(1)}s`
  ).join(", ");
  console.log(
    `seed ${seed}, cases ${count} (from ${from}; ${targets}), subprocess ${
      Math.min(subprocess, count)
    }`,
  );
  console.log(
    `crashes ${counts.crash}, writes-on-error ${
      counts["write-on-error"]
    }, leaked secrets ${counts.secret}, undocumented exit statuses ${
      counts["exit-status"]
    }, subprocess mismatches ${counts.subprocess}, hangs ${counts.hang}`,
  );
  console.log(`exit statuses ${hist}`);
  console.log(
    `time per case: median ${median(times).toFixed(0)}ms, max ${
      slowest.ms.toFixed(0)
    }ms (case ${slowest.index}), total ${(times.reduce((a, b) => a + b, 0) / 1000).toFixed(1)}s`,
  );
  console.log(failing === 0 ? "no findings" : `${failing} failing cases`);
  return failing === 0 ? 0 : 1;
}

if (import.meta.main) {
  Deno.exit(await run());
}
