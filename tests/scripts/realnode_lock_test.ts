// The real-node lock (tests/support/realnode_lock.ts): a run started under `flock <lock> …`
// goes on under its parent's lock instead of waiting for it forever; one started beside another
// holder waits; /proc/locks is read as the kernel writes it.
import assert from "node:assert/strict";
import { deviceId, flockHolders } from "../support/realnode_lock.ts";
import { repoRoot } from "../support/repo.ts";

Deno.test("realnode lock: /proc/locks' flock holders of one file, device as the kernel prints it", () => {
  assert.equal(deviceId(0xfe00), "fe:00");
  assert.equal(deviceId(0x803), "08:03");
  // glibc's makedev(259, 1000): minor's high bits above the major.
  assert.equal(deviceId((259 << 8) | (1000 & 0xff) | ((1000 & ~0xff) << 12)), "103:3e8");
  const locks = [
    "1: FLOCK  ADVISORY  WRITE 26052 fe:00:9994752 0 EOF",
    "2: POSIX  ADVISORY  READ 25732 fe:00:9978068 1073741826 1073742335",
    "3: FLOCK  ADVISORY  WRITE 25729 fe:00:9978068 0 EOF",
    "3: -> FLOCK  ADVISORY  WRITE 31000 fe:00:9978068 0 EOF",
    "4: FLOCK  ADVISORY  WRITE 4242 08:03:9978068 0 EOF",
    "",
  ].join("\n");
  assert.deepEqual(flockHolders(locks, "fe:00", 9978068), [25729]);
  assert.deepEqual(flockHolders(locks, "08:03", 9978068n), [4242]);
  assert.deepEqual(flockHolders(locks, "fe:00", 1), []);
  assert.deepEqual(flockHolders("", "fe:00", 9978068), []);
});

/** Runs a Deno program taking the lock at `path`, under `prefix` (e.g. `flock <path>`). */
async function takeIn(prefix: string[], path: string, timeoutMs: number) {
  const program = `import { takeRealNodeLock } from ${
    JSON.stringify(`${repoRoot}/tests/support/realnode_lock.ts`)
  };
const lock = await takeRealNodeLock(${JSON.stringify(path)}, (l) => console.log(l));
console.log(lock.heldBy === undefined ? "took it" : "under it");
lock.close();`;
  const child = new Deno.Command(prefix[0] ?? Deno.execPath(), {
    args: [...prefix.slice(1), ...(prefix.length > 0 ? [Deno.execPath()] : []), "eval", program],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const out = await child.output();
  clearTimeout(timer);
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
}

Deno.test("realnode lock: under `flock <lock>` it goes on, beside another holder it waits", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kts-realnode-lock-" });
  const path = `${dir}/lock`;
  try {
    // Nobody holds it: taken.
    const free = await takeIn([], path, 20_000);
    assert.equal(free.code, 0, free.stdout);
    assert.match(free.stdout, /^took it$/m);

    // Started by `flock <lock> …`: its parent holds it; a second flock(2) would wait forever.
    const under = await takeIn(["flock", path], path, 20_000);
    assert.equal(under.code, 0, under.stdout);
    assert.match(under.stdout, /is held by process [0-9]+, which this run runs under/);
    assert.match(under.stdout, /^under it$/m);

    // Held by a process that is not its ancestor: it waits (killed here after 3 s).
    const holder = new Deno.Command("flock", { args: [path, "sleep", "30"] }).spawn();
    try {
      await waitHeld(path);
      const beside = await takeIn([], path, 3_000);
      assert.notEqual(beside.code, 0, beside.stdout);
      assert.match(beside.stdout, /^taking .* \(waits while another real-node run holds it\)$/m);
      assert.doesNotMatch(beside.stdout, /took it|under it/);
    } finally {
      holder.kill("SIGKILL");
      await holder.status;
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Waits until some process holds a flock on `path`. */
async function waitHeld(path: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const st = await Deno.stat(path).catch(() => undefined);
    if (st) {
      const holders = flockHolders(
        await Deno.readTextFile("/proc/locks"),
        deviceId(st.dev),
        st.ino ?? 0,
      );
      if (holders.length > 0) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nobody took ${path}`);
}
