/**
 * The machine's real-node lock (`/tmp/kts-realnode.lock`, HELPERS.md): one real-node cluster at
 * a time. A run takes it with flock(2) for as long as its cluster lives — unless the process it
 * runs under holds it already (`flock /tmp/kts-realnode.lock scripts/conformance …`, the way
 * every real-node run is started by hand): flock(2) locks belong to the open file, so a second
 * open of the same file by the child would wait for its own parent forever.
 *
 * @module
 */

/** A file's device (`st_dev`, glibc's encoding) as `/proc/locks` prints it: `major:minor`. */
export function deviceId(dev: number | bigint): string {
  const d = BigInt(dev);
  const major = ((d >> 8n) & 0xfffn) | ((d >> 32n) & ~0xfffn);
  const minor = (d & 0xffn) | ((d >> 12n) & ~0xffn);
  return `${major.toString(16).padStart(2, "0")}:${minor.toString(16).padStart(2, "0")}`;
}

/**
 * The processes holding a flock(2) lock on the file `device:inode` (`deviceId`, `st_ino`), from
 * the text of `/proc/locks` (`1: FLOCK  ADVISORY  WRITE 25729 fe:00:9978068 0 EOF`; the waiting
 * ones, `-> FLOCK …`, hold nothing).
 */
export function flockHolders(procLocks: string, device: string, inode: number | bigint): number[] {
  const want = `${device}:${BigInt(inode)}`;
  const out: number[] = [];
  for (const line of procLocks.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6 || f[1] !== "FLOCK") continue; // "->" lines have FLOCK third
    const pid = Number(f[4]);
    const [maj, min, ino] = f[5].split(":");
    if (ino === undefined || !/^[0-9]+$/.test(ino)) continue;
    if (`${maj}:${min}:${BigInt(ino)}` === want && Number.isInteger(pid) && pid > 0) out.push(pid);
  }
  return out;
}

/** The parent of `pid`, from `/proc/<pid>/stat` (`pid (comm) state ppid …`); 0 when gone. */
async function parentOf(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(rest[1] ?? 0) || 0;
}

/** This process's ancestors, its parent first, up to (not including) pid 0. */
export async function ancestorPids(): Promise<number[]> {
  const out: number[] = [];
  for (let pid = Deno.ppid; pid > 0 && !out.includes(pid) && out.length < 64;) {
    out.push(pid);
    pid = await parentOf(pid);
  }
  return out;
}

/** A held real-node lock. */
export interface RealNodeLock {
  /** The process holding it when this run goes on under it; undefined when this run took it. */
  heldBy?: number;
  /** Releases it (a lock held by an ancestor stays its). */
  close(): void;
}

/**
 * Takes the real-node lock at `path` (waiting while another run holds it), or goes on under it
 * when an ancestor of this process holds it already. `log` says which.
 */
export async function takeRealNodeLock(
  path: string,
  log: (line: string) => void = () => {},
): Promise<RealNodeLock> {
  const file = await Deno.open(path, { create: true, write: true });
  try {
    const st = await file.stat();
    const holders = flockHolders(
      await Deno.readTextFile("/proc/locks").catch(() => ""),
      deviceId(st.dev),
      st.ino ?? 0,
    );
    const ancestors = await ancestorPids();
    const heldBy = holders.find((p) => ancestors.includes(p));
    if (heldBy !== undefined) {
      log(`${path} is held by process ${heldBy}, which this run runs under: going on under it`);
      return { heldBy, close: () => file.close() };
    }
    log(`taking ${path} (waits while another real-node run holds it)`);
    await file.lock(true);
    return { close: () => file.close() };
  } catch (e) {
    file.close();
    throw e;
  }
}
