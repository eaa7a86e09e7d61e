/**
 * The WebAssembly component and its hosts, for the component tests (`tests/wasm/`) and
 * `scripts/bench-wasm`:
 *
 * - {@link componentBuild}: `dist/kubeadm-core.wasm` as `scripts/wasm` builds it, cached
 *   outside the repo under the hash of every input of the build (the sources it bundles, the
 *   WIT, the lock file, the build scripts), with its jco transpilation beside it.
 * - Three ways to make the same calls of the WIT interface, each giving canonical JSON
 *   (`wit_json.mjs`) per call: {@link runDeno} (`wasm/api.ts` in Deno: the reference),
 *   {@link runJco} (the component transpiled by jco, under Node) and {@link runGoHost} (the
 *   component on Wasmtime from Go: `tests/wasm/gohost`, built by `scripts/wasm-go-host`).
 *
 * @module
 */
import { listFiles, repoRoot } from "./repo.ts";
import { api } from "../../wasm/api.ts";
import { camelName, canonical, canonicalText, decodeTagged, encodeTagged } from "./wit_json.mjs";

/** The exported interface. */
export const WIT_INTERFACE = "kubeadm:core/api@0.1.0";

/** One call of a WIT function: its WIT name and its arguments as JavaScript WIT values. */
export interface WitCall {
  fn: string;
  args: unknown[];
  /** Call it this many more times and report the mean (benchmarks). */
  repeat?: number;
}

/** What one call gave. */
export interface CallOutcome {
  /** Canonical JSON text of `{"ok": …}` or `{"err": error-record}`; absent after a trap. */
  result?: string;
  /** The trap's message (the guest's instance is then unusable). */
  trap?: string;
  /** Time of the call, ms. */
  ms: number;
  /** Mean time of the `repeat` further calls, ms. */
  repeatMs?: number;
}

/** What a host reported for a list of calls. */
export interface HostRun {
  /** Compile (or load) and instantiate, ms: jco's module import, or Wasmtime's two steps. */
  loadMs: number;
  /** Wasmtime only: instantiation alone, ms. */
  instantiateMs?: number;
  /** Wasmtime only: the compiled component came from the cache. */
  cached?: boolean;
  /** The runtime (`node v20…`, `wasmtime 39.0.0`). */
  runtime: string;
  outcomes: CallOutcome[];
}

const cacheRoot = Deno.env.get("KUBEADM_TS_CACHE") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/kubeadm-ts`;

/** Every file `scripts/wasm` reads, as paths relative to the repository. */
async function buildInputs(): Promise<string[]> {
  const dirs = [
    "core",
    "library",
    "adapters/offline",
    "adapters/crypto",
    "adapters/web",
    "wasm",
    "wit",
    "scripts/wasm_build",
  ];
  const files = ["mod.ts", "deno.json", "deno.lock", "scripts/wasm", "scripts/npm-tool"];
  files.push("scripts/web_build/bundle_guard.ts");
  for (const d of dirs) {
    for (const f of await listFiles(`${repoRoot}/${d}`, "")) {
      files.push(f.slice(repoRoot.length + 1));
    }
  }
  return files.sort();
}

async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The hash of the build's inputs (names and contents). */
export async function componentInputsHash(): Promise<string> {
  const parts: Uint8Array[] = [];
  for (const f of await buildInputs()) {
    const content = await Deno.readFile(`${repoRoot}/${f}`);
    parts.push(new TextEncoder().encode(`${f}\0${content.length}\0`), content);
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) all.set(p, (at += p.length) - p.length);
  return (await sha256Hex(all)).slice(0, 16);
}

async function run(cmd: string, args: string[], cwd = repoRoot): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed (${out.code}):\n${stderr}`);
  return new TextDecoder().decode(out.stdout);
}

/** A built component: the `.wasm` and its jco transpilation for Node. */
export interface ComponentBuild {
  /** `kubeadm-core.wasm`. */
  wasm: string;
  /** The transpiled component's entry (`kubeadm-core.js`, ES module). */
  transpiled: string;
  /** True when this call built it (false: from the cache). */
  built: boolean;
  /** Build time in seconds when built. */
  buildSeconds?: number;
}

/**
 * The component of the current sources: from the cache when its inputs are unchanged, else
 * built with `scripts/wasm` (and transpiled with jco) into a fresh cache entry; older entries
 * are removed.
 */
export async function componentBuild(): Promise<ComponentBuild> {
  const hash = await componentInputsHash();
  const base = `${cacheRoot}/wasm-component`;
  const dir = `${base}/${hash}`;
  const result = { wasm: `${dir}/kubeadm-core.wasm`, transpiled: `${dir}/jco/kubeadm-core.js` };
  try {
    await Deno.stat(`${dir}/.complete`);
    return { ...result, built: false };
  } catch {
    // not built yet
  }
  await Deno.mkdir(base, { recursive: true });
  const tmp = await Deno.makeTempDir({ dir: base, prefix: ".build-" });
  const start = performance.now();
  try {
    await run(`${repoRoot}/scripts/wasm`, [tmp]);
    await run(`${repoRoot}/scripts/npm-tool`, [
      "--set",
      "wasm",
      "jco",
      "transpile",
      `${tmp}/kubeadm-core.wasm`,
      "-o",
      `${tmp}/jco`,
      "-q",
    ]);
    await Deno.writeTextFile(`${tmp}/jco/package.json`, '{"type":"module"}\n');
    await Deno.writeTextFile(`${tmp}/.complete`, "");
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.rename(tmp, dir);
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw e;
  }
  for await (const e of Deno.readDir(base)) {
    if (e.name !== hash && !e.name.startsWith(".build-")) {
      await Deno.remove(`${base}/${e.name}`, { recursive: true }).catch(() => {});
    }
  }
  return { ...result, built: true, buildSeconds: (performance.now() - start) / 1000 };
}

function outcomeOf(r: { ok?: unknown; err?: unknown; trap?: string }): Pick<
  CallOutcome,
  "result" | "trap"
> {
  if (r.trap !== undefined) return { trap: r.trap };
  return { result: canonicalText("err" in r ? { err: r.err } : { ok: r.ok ?? null }) };
}

/** The calls made with `wasm/api.ts` in Deno: the reference outputs. */
export async function runDeno(calls: readonly WitCall[]): Promise<CallOutcome[]> {
  const out: CallOutcome[] = [];
  const fns = api as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const once = async (c: WitCall) => {
    try {
      return { ok: canonical(await fns[camelName(c.fn)](...c.args)) };
    } catch (e) {
      return { err: canonical(e) };
    }
  };
  for (const c of calls) {
    const start = performance.now();
    const r = await once(c);
    const o: CallOutcome = { ...outcomeOf(r), ms: performance.now() - start };
    if (c.repeat) {
      const t = performance.now();
      for (let i = 0; i < c.repeat; i++) await once(c);
      o.repeatMs = (performance.now() - t) / c.repeat;
    }
    out.push(o);
  }
  return out;
}

/** The calls made on the transpiled component under Node (`jco_runner.mjs`). */
export async function runJco(build: ComponentBuild, calls: readonly WitCall[]): Promise<HostRun> {
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-jco-" });
  try {
    await Deno.writeTextFile(`${dir}/calls.json`, encodeTagged(calls));
    await run("node", [
      `${repoRoot}/tests/support/jco_runner.mjs`,
      build.transpiled,
      `${dir}/calls.json`,
      `${dir}/out.json`,
    ]);
    const out = decodeTagged(await Deno.readTextFile(`${dir}/out.json`));
    return {
      runtime: `node ${out.node}`,
      loadMs: out.importMs,
      outcomes: out.results.map((
        r: { ok?: unknown; err?: unknown; trap?: string; ms: number; repeatMs?: number },
      ) => ({
        ...outcomeOf(
          "trap" in r ? r : "err" in r ? { err: canonical(r.err) } : { ok: canonical(r.ok) },
        ),
        ms: r.ms,
        repeatMs: r.repeatMs,
      })),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The Go host's binary (`scripts/wasm-go-host` builds it once per source change). */
export async function goHostBinary(): Promise<string> {
  const out = await run(`${repoRoot}/scripts/wasm-go-host`, []);
  return out.trim().split("\n").pop()!;
}

/**
 * The calls made on the component on Wasmtime from Go; the compiled component is cached
 * beside the others (keyed by the component's hash and Wasmtime's version).
 */
export async function runGoHost(
  build: ComponentBuild,
  calls: readonly WitCall[],
  opts: { cache?: boolean } = {},
): Promise<HostRun> {
  const host = await goHostBinary();
  const dir = await Deno.makeTempDir({ prefix: "kubeadm-gohost-" });
  try {
    const spec = {
      interface: WIT_INTERFACE,
      calls: calls.map((c) => ({ fn: c.fn, args: canonical(c.args), repeat: c.repeat ?? 0 })),
    };
    await Deno.writeTextFile(`${dir}/calls.json`, JSON.stringify(spec));
    const args = ["-component", build.wasm, "-calls", `${dir}/calls.json`];
    if (opts.cache !== false) args.push("-cache", `${cacheRoot}/wasmtime-compiled`);
    const out = JSON.parse(await run(host, args));
    return {
      runtime: `wasmtime ${out.wasmtime}`,
      loadMs: out.loadMs + out.instantiateMs,
      instantiateMs: out.instantiateMs,
      cached: out.cached,
      outcomes: out.results.map((
        r: {
          result?: { ok?: unknown; err?: unknown };
          trap?: string;
          ms: number;
          repeatMs?: number;
        },
      ) => ({
        ...(r.trap ? { trap: r.trap } : { result: canonicalText(r.result) }),
        ms: r.ms,
        repeatMs: r.repeatMs,
      })),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Where two canonical outcomes first differ (a file path, a key), for readable failures. */
export function firstDifference(expected: string, actual: string): string {
  const walk = (a: unknown, b: unknown, at: string): string | undefined => {
    if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const item = a[i] as { path?: string } | undefined;
        const d = walk(a[i], b[i], `${at}[${item?.path ?? i}]`);
        if (d) return d;
      }
    } else if (a && b && typeof a === "object" && typeof b === "object") {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      for (const k of keys) {
        const d = walk(
          (a as Record<string, unknown>)[k],
          (b as Record<string, unknown>)[k],
          `${at}.${k}`,
        );
        if (d) return d;
      }
    }
    return `${at}: expected ${JSON.stringify(a)?.slice(0, 200)}, got ${
      JSON.stringify(b)?.slice(0, 200)
    }`;
  };
  return walk(JSON.parse(expected), JSON.parse(actual), "") ?? "none";
}

/**
 * Throws unless every call a host made gave exactly the reference's bytes (no trap), naming
 * the call and where it first differs.
 */
export function assertSameOutcomes(
  names: readonly string[],
  reference: readonly CallOutcome[],
  got: readonly CallOutcome[],
): void {
  if (got.length !== reference.length) {
    throw new Error(`${got.length} outcomes for ${reference.length} calls`);
  }
  names.forEach((name, i) => {
    const g = got[i];
    if (g.result === undefined) throw new Error(`${name}: trapped: ${g.trap}`);
    if (g.result !== reference[i].result) {
      throw new Error(
        `${name}: differs from Deno: ${firstDifference(reference[i].result!, g.result)}`,
      );
    }
  });
}
