// The test-only fault injection (adapters/deno/fault_injection.ts): inert unless armed; armed, it
// kills or stops the process at the named point (the n-th time it is reached), saying so.
import assert from "node:assert/strict";
import { FAULT_INJECT_ENV } from "../../../adapters/deno/fault_injection.ts";

const MODULE = new URL("../../../adapters/deno/fault_injection.ts", import.meta.url).href;

/** A process passing points `a`, `b`, `b`, `c` (printing each), with `value` armed. */
function pass(value: string | undefined): Deno.ChildProcess {
  const code = `import { faultPoint } from ${JSON.stringify(MODULE)};
for (const p of ["a", "b", "b", "c"]) { console.log(p); faultPoint(p); }
console.log("done");`;
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", code],
    env: value === undefined ? {} : { [FAULT_INJECT_ENV]: value },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function outcome(p: Deno.ChildProcess) {
  const o = await p.output();
  const dec = new TextDecoder();
  return {
    signal: o.signal,
    code: o.code,
    stdout: dec.decode(o.stdout),
    stderr: dec.decode(o.stderr),
  };
}

Deno.test("unset, the points do nothing", async () => {
  const o = await outcome(pass(undefined));
  assert.equal(o.code, 0);
  assert.equal(o.stdout, "a\nb\nb\nc\ndone\n");
  assert.equal(o.stderr, "");
});

Deno.test("kill@<point>#<n>: SIGKILLed the n-th time the point is reached, said on stderr as armed", async () => {
  const o = await outcome(pass("kill@b#2"));
  assert.equal(o.signal, "SIGKILL");
  assert.equal(o.stdout, "a\nb\nb\n");
  assert.equal(
    o.stderr,
    `kubeadm-ts: fault injection armed (${FAULT_INJECT_ENV}): kill at b#2\n` +
      "kubeadm-ts: fault injection: kill at b#2\n",
  );
});

Deno.test("stop@<point>: stopped there; a SIGCONT lets it go on", async () => {
  const p = pass("stop@c");
  for (let i = 0;; i++) {
    const stat = await Deno.readTextFile(`/proc/${p.pid}/stat`);
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("T")) break;
    assert.ok(i < 200, "never stopped");
    await new Promise((r) => setTimeout(r, 50));
  }
  Deno.kill(p.pid, "SIGCONT");
  const o = await outcome(p);
  assert.equal(o.code, 0);
  assert.equal(o.stdout, "a\nb\nb\nc\ndone\n");
  assert.match(o.stderr, /fault injection: stop at c\n$/);
});

Deno.test("a value that does not parse fails naming the variable", async () => {
  const o = await outcome(pass("explode@b"));
  assert.notEqual(o.code, 0);
  assert.match(
    o.stderr,
    new RegExp(`${FAULT_INJECT_ENV}="explode@b": expected <kill\\|stop>@<point>`),
  );
});

Deno.test("container:stop:<name>: killed right after the runtime stopped a container of that name", async () => {
  const runtime = new URL("../../../adapters/deno/container_runtime.ts", import.meta.url).href;
  const code = `import { CriSocketRuntime } from ${JSON.stringify(runtime)};
const client = {
  listContainers: () => Promise.resolve([
    { id: "c1", metadata: { name: "kube-apiserver", attempt: 0 }, state: "CONTAINER_RUNNING", createdAt: 0n },
    { id: "c2", metadata: { name: "etcd", attempt: 0 }, state: "CONTAINER_RUNNING", createdAt: 0n },
  ]),
  stopContainer: (id) => { console.log("stopped " + id); return Promise.resolve(); },
  close() {},
};
const rt = new CriSocketRuntime("unix:///run/cri.sock", { open: () => Promise.resolve(client) });
await rt.listPodContainers("kube-system", "etcd-cp1");
await rt.stopContainer("c1", 30);
await rt.stopContainer("c2", 30);
console.log("done");`;
  const o = await outcome(
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", code],
      env: { [FAULT_INJECT_ENV]: "kill@container:stop:etcd" },
      stdout: "piped",
      stderr: "piped",
    }).spawn(),
  );
  assert.equal(o.signal, "SIGKILL", o.stderr);
  assert.equal(o.stdout, "stopped c1\nstopped c2\n");
  assert.match(o.stderr, /kubeadm-ts: fault injection: kill at container:stop:etcd\n$/);
});
