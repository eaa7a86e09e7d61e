/**
 * Cloudflare's workerd (npm `workerd`, via `scripts/npm-tool`) serving one Worker on a loopback
 * port: the Worker's ES modules are embedded in a generated config, the process is ours to
 * stop, and its CPU time can be read from `/proc` (for benchmarks).
 *
 * @module
 */
import { repoRoot } from "./repo.ts";

/** A running workerd. */
export interface Workerd {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  pid: number;
  /** CPU time (user + system) the process has used, in milliseconds. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Reads a process's user + system CPU time from `/proc/<pid>/stat`, in milliseconds. */
export async function processCpuMs(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the command: state is field 3, utime 14, stime 15 (1-based in proc(5)).
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * 10; // USER_HZ is 100 on Linux
}

/**
 * Starts workerd with one Worker made of `modules` (name → file; the first is the main
 * module) and waits until it answers.
 */
export async function startWorkerd(modules: Record<string, string>, dir: string): Promise<Workerd> {
  const port = freePort();
  const list = Object.entries(modules).map(([name, path]) =>
    `(name = ${JSON.stringify(name)}, esModule = embed ${JSON.stringify(path)})`
  ).join(", ");
  const config = `${dir}/workerd.capnp`;
  await Deno.writeTextFile(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${list} ],
  compatibilityDate = "2025-09-01",
);
`,
  );
  const child = new Deno.Command(`${repoRoot}/scripts/npm-tool`, {
    args: ["workerd", "serve", config],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr: string[] = [];
  (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr.push(chunk);
    }
  })();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await (await fetch(url)).body?.cancel();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`workerd did not start: ${stderr.join("")}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // scripts/npm-tool execs workerd, so the child is workerd itself.
  return {
    url,
    pid: child.pid,
    cpuMs: () => processCpuMs(child.pid),
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
