/**
 * Test-only fault injection: named points in the Deno adapters (and the CLI's phase runner)
 * where a test can have kubeadm-ts killed or stopped, deterministically, to check that a command
 * killed there converges when run again (tests/e2e/faults_*).
 *
 * Inert unless the environment variable `KUBEADM_TS_FAULT_INJECT` is set, to
 * `<action>@<point>[#<n>]`: when the run reaches `<point>` for the `n`-th time (default the
 * first), the process
 * - `kill`: SIGKILLs itself (as `kill -9` from outside at exactly that point would);
 * - `stop`: SIGSTOPs itself (a SIGCONT resumes it), for a test to do something to the cluster
 *   while kubeadm stands there.
 *
 * Either way it says so on stderr first (`kubeadm-ts: fault injection: kill at <point>[#<n>]`,
 * the point as armed), and an armed run says so when it starts to check the first point, so a
 * stray variable never acts silently. A value that does not parse is an error naming the variable.
 *
 * Points (`<point>`):
 * - `phase:<path>`: before a workflow phase runs (`phase:certs/ca`, `phase:control-plane-join/etcd`);
 * - `write:<node path>`: inside an atomic file write, the temp file written, not yet renamed;
 * - `wrote:<node path>`: right after that rename;
 * - `removed:<node path>`, `moved:<node path>` (the destination): right after the node's file
 *   operations of that name (the static Pod swap of `upgrade`);
 * - `etcd:member-add`, `etcd:member-promote`, `etcd:member-remove`: right after the etcd call
 *   succeeded, before kubeadm uses its answer;
 * - `service:<stop|restart>:<unit>`: right after the init system did it;
 * - `container:stop:<name>`: right after the container runtime stopped a container of that
 *   name in its Pod (`kube-apiserver`, `etcd`: a restart after a certificate renewal), before
 *   the kubelet's new one is waited for.
 *
 * @module
 */

/** The environment variable that arms fault injection (tests only). */
export const FAULT_INJECT_ENV = "KUBEADM_TS_FAULT_INJECT";

interface Armed {
  action: "kill" | "stop";
  point: string;
  nth: number;
  seen: number;
}

let armed: Armed | null | undefined;

function parse(value: string): Armed {
  const m = /^(kill|stop)@(.+?)(?:#([1-9]\d*))?$/.exec(value);
  if (!m) {
    throw new Error(
      `${FAULT_INJECT_ENV}=${
        JSON.stringify(value)
      }: expected <kill|stop>@<point>[#<n>] (a test-only setting; unset it)`,
    );
  }
  return { action: m[1] as Armed["action"], point: m[2], nth: Number(m[3] ?? 1), seen: 0 };
}

/** The armed point as it was given: `<point>`, or `<point>#<n>` past the first time. */
function armedPoint(a: Armed): string {
  return a.nth === 1 ? a.point : `${a.point}#${a.nth}`;
}

function current(): Armed | null {
  if (armed === undefined) {
    let value: string | undefined;
    try {
      value = Deno.env.get(FAULT_INJECT_ENV);
    } catch {
      value = undefined; // no env permission: not armed
    }
    armed = value ? parse(value) : null;
    if (armed) {
      console.error(
        `kubeadm-ts: fault injection armed (${FAULT_INJECT_ENV}): ${armed.action} at ${
          armedPoint(armed)
        }`,
      );
    }
  }
  return armed;
}

/** Whether fault injection is armed in this process (callers may skip building point names). */
export function faultInjectionArmed(): boolean {
  return current() !== null;
}

/** Marks that the run reached `point`; acts when it is the armed point (see the module). */
export function faultPoint(point: string): void {
  const a = current();
  if (a === null || a.point !== point || ++a.seen !== a.nth) return;
  console.error(`kubeadm-ts: fault injection: ${a.action} at ${armedPoint(a)}`);
  Deno.kill(Deno.pid, a.action === "kill" ? "SIGKILL" : "SIGSTOP");
}
