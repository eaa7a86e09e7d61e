/**
 * Running commands from tests: a command's output, the kubeadm launcher the tests run, and a
 * poll with a deadline.
 *
 * @module
 */
import type { NetNamespace } from "./netns.ts";
import { repoRoot } from "./repo.ts";

/** Result of running a command. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command (optionally inside a namespace) and captures its output. */
export async function run(
  argv: string[],
  opts: { ns?: NetNamespace; stdin?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const full = opts.ns ? [...opts.ns.exec, ...argv] : argv;
  const child = new Deno.Command(full[0], {
    args: full.slice(1),
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: opts.env,
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * The kubeadm launcher the nodes run: `scripts/kubeadm`, or `$KUBEADM_TS_LAUNCHER` (another
 * build of the CLI with the same command line).
 */
export function kubeadmLauncher(): string {
  return Deno.env.get("KUBEADM_TS_LAUNCHER") ?? `${repoRoot}/scripts/kubeadm`;
}

/** A process started with {@link spawnGroup}. */
export interface GroupProcess {
  /** The process group's ID (the host PID of its leader). */
  pgid: number;
  /** Its output once it has ended. */
  output: Promise<Deno.CommandOutput>;
  /** SIGKILLs its whole process group (the command and everything it started). */
  killGroup(): void;
  /** Sends `signal` to its whole process group. */
  signalGroup(signal: Deno.Signal): void;
}

/**
 * Starts a command leading a process group of its own (`setsid`), output piped, to be killed
 * as one with everything it started.
 */
export function spawnGroup(
  argv: string[],
  opts: { env?: Record<string, string>; clearEnv?: boolean } = {},
): GroupProcess {
  const child = new Deno.Command("setsid", {
    args: argv,
    env: opts.env,
    clearEnv: opts.clearEnv,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const signalGroup = (signal: Deno.Signal) => {
    try {
      Deno.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  return {
    pgid: child.pid,
    output: child.output(),
    killGroup: () => signalGroup("SIGKILL"),
    signalGroup,
  };
}

/** How much one second of wall time is worth now: cores ÷ the 1-minute load, at most 1. */
async function machineShare(): Promise<number> {
  const load = Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
  const cores = navigator.hardwareConcurrency;
  return load > cores ? cores / load : 1;
}

/**
 * Polls `fn` until it returns a truthy value or its budget, `timeoutMs` of the machine's time,
 * is spent. The budget follows the machine: while it runs more than it has cores for (a load
 * average above its core count, as on a busy CI machine) each second of waiting counts for
 * cores ÷ load of a second, so the cluster gets the time it needs to do the same work; a wait
 * never lasts more than 4 × `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const start = Date.now();
  let spent = 0;
  let last: unknown;
  for (let at = start; spent < timeoutMs && at - start < 4 * timeoutMs;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 500));
    const now = Date.now();
    spent += (now - at) * await machineShare();
    at = now;
  }
  throw new Error(
    `timed out waiting for ${what} (${Math.round((Date.now() - start) / 1000)} s${
      spent < (Date.now() - start) * 0.95 ? `, ${Math.round(spent / 1000)} s of the machine's` : ""
    })${last ? `: ${last}` : ""}`,
  );
}
