// The pause binary of our local registry.k8s.io/pause image (scripts/pause.c, built by
// scripts/node-images): it stops cleanly on SIGTERM/SIGINT and, as PID 1 of a PID namespace
// (where a Pod sandbox runs it), reaps the orphans it adopts.
import assert from "node:assert/strict";
import { run } from "../support/commands.ts";
import { repoRoot } from "../support/repo.ts";

async function pauseBinary(): Promise<string> {
  const r = await run([`${repoRoot}/scripts/node-images`, "--pause-bin"]);
  assert.equal(r.code, 0, `scripts/node-images --pause-bin: ${r.stderr}`);
  return r.stdout.trim().split("\n").pop()!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function exitWithin(child: Deno.ChildProcess, ms: number): Promise<Deno.CommandStatus> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no exit within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([child.status, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Host PIDs of the children (zombies included) of process `pid`, from /proc/<pid>/stat. */
async function childrenOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    let stat: string;
    try {
      stat = await Deno.readTextFile(`/proc/${e.name}/stat`);
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === pid) out.push(Number(e.name));
  }
  return out;
}

async function waitUntil(what: string, ms: number, ok: () => Promise<boolean>) {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

Deno.test("pause -v prints its version", async () => {
  const r = await run([await pauseBinary(), "-v"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^pause \S+\n$/);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`pause exits 0 on ${signal}`, async () => {
    const child = new Deno.Command(await pauseBinary(), { stderr: "null" }).spawn();
    await sleep(100);
    child.kill(signal);
    const status = await exitWithin(child, 2000);
    assert.equal(status.code, 0);
    assert.equal(status.signal, null);
  });
}

Deno.test("pause as PID 1 of a PID namespace reaps adopted orphans and stops on SIGTERM", async () => {
  const bin = await pauseBinary();
  // unshare forks pause as PID 1 of a new PID namespace and exits with its status.
  const ns = new Deno.Command("unshare", {
    args: ["--pid", "--fork", "--kill-child", bin],
    stderr: "piped",
  }).spawn();
  try {
    let pausePid = 0;
    await waitUntil("pause to start", 5000, async () => {
      pausePid = (await childrenOf(ns.pid))[0] ?? 0;
      if (pausePid === 0) return false;
      return (await Deno.readLink(`/proc/${pausePid}/exe`)) === bin;
    });

    // A shell in the namespace starts a short sleep and exits at once: the sleep is orphaned,
    // adopted by PID 1 (pause), and becomes a zombie there unless pause reaps it.
    const orphanMaker = await new Deno.Command("nsenter", {
      args: ["--target", String(pausePid), "--pid", "--", "sh", "-c", "sleep 0.4 & exit 0"],
      // Not piped: output() would wait for the sleep to close the pipe.
      stdout: "null",
      stderr: "null",
    }).output();
    assert.equal(orphanMaker.code, 0);
    const adopted = await childrenOf(pausePid);
    assert.equal(adopted.length, 1, `pause adopted ${adopted.length} orphans`);
    await waitUntil("pause to reap the orphan", 3000, async () => {
      return (await childrenOf(pausePid)).length === 0;
    });

    Deno.kill(pausePid, "SIGTERM");
    const status = await exitWithin(ns, 2000);
    assert.equal(status.code, 0, "unshare reports pause's exit status");
  } finally {
    try {
      ns.kill("SIGKILL");
    } catch { /* already gone */ }
    await ns.stderr.cancel();
    await ns.status;
  }
});
