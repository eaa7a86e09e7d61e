/**
 * A directory/symlink swapper racing a removal (containment tests of reset): on its own
 * thread, it atomically exchanges a directory inside the root with a symlink that points out
 * of it (`renameat2(RENAME_EXCHANGE)` through libc), over and over, and puts back whatever the
 * removal took away, so that a remover that checks a path and then uses it is led outside.
 *
 * The same module is the controller ({@link startSwapRacer}, main thread) and the worker.
 *
 * @module
 */

/** What the worker is told. */
interface RacerJob {
  /** The directory inside the root that gets swapped. */
  victim: string;
  /** A symlink (to `outside`) beside it, swapped in. */
  swap: string;
  /** The directory outside the root. */
  outside: string;
  /** [0]: exchanges done; [1]: set to 1 to stop. */
  state: SharedArrayBuffer;
}

/** A running racer. */
export interface SwapRacer {
  /** Exchanges done so far. */
  readonly flips: () => number;
  /** Stops the racer and waits for its thread to end. */
  stop(): Promise<void>;
}

const RENAME_EXCHANGE = 2;
const AT_FDCWD = -100;

function cString(s: string): Uint8Array<ArrayBuffer> {
  const bytes = new TextEncoder().encode(`${s}\0`);
  const out = new Uint8Array(bytes.length);
  out.set(bytes);
  return out;
}

function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch {
    return undefined;
  }
}

/** The worker's loop. */
function race(job: RacerJob): void {
  const libc = Deno.dlopen("libc.so.6", {
    renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
  });
  const state = new Int32Array(job.state);
  const victim = cString(job.victim);
  const swap = cString(job.swap);
  try {
    while (Atomics.load(state, 1) === 0) {
      if (libc.symbols.renameat2(AT_FDCWD, victim, AT_FDCWD, swap, RENAME_EXCHANGE) === 0) {
        Atomics.add(state, 0, 1);
        continue;
      }
      // One side was removed: put a directory or the link back where it was.
      if (lstatOrUndefined(job.victim) !== undefined) continue;
      try {
        if (lstatOrUndefined(job.swap)?.isSymlink) Deno.mkdirSync(job.victim);
        else Deno.symlinkSync(job.outside, job.victim);
      } catch { /* the remover got there first: try again */ }
    }
  } finally {
    libc.close();
  }
}

/**
 * Starts swapping `victim` (a directory) with `swap` (a symlink to `outside`) and resolves
 * once it has swapped them `warmup` times.
 */
export async function startSwapRacer(
  victim: string,
  swap: string,
  outside: string,
  warmup = 50,
): Promise<SwapRacer> {
  const state = new SharedArrayBuffer(8);
  const counters = new Int32Array(state);
  const worker = new Worker(import.meta.url, { type: "module" });
  const done = new Promise<void>((resolve, reject) => {
    worker.onmessage = () => resolve();
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(`swap racer: ${e.message}`));
    };
  });
  worker.postMessage({ victim, swap, outside, state } satisfies RacerJob);
  const stop = async () => {
    Atomics.store(counters, 1, 1);
    try {
      await done;
    } finally {
      worker.terminate();
    }
  };
  const deadline = Date.now() + 10_000;
  while (Atomics.load(counters, 0) < warmup) {
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`swap racer: fewer than ${warmup} swaps of ${victim} in 10s`);
    }
    await Promise.race([done, new Promise((r) => setTimeout(r, 5))]);
  }
  return { flips: () => Atomics.load(counters, 0), stop };
}

// In the worker: run the job, then say so.
const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<RacerJob>) => void) | null;
  postMessage(m: unknown): void;
  WorkerGlobalScope?: unknown;
};
if (scope.WorkerGlobalScope !== undefined) {
  scope.onmessage = (e) => {
    race(e.data);
    scope.postMessage("done");
  };
}
