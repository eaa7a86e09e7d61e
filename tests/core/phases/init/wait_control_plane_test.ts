import assert from "node:assert/strict";
import type { HealthProbe, HealthResult } from "../../../../core/ports/http.ts";
import { runWaitControlPlane } from "../../../../core/phases/init/wait_control_plane.ts";
import {
  controlPlaneHealthTargets as targetsOf,
  readControlPlanePods,
} from "../../../../core/controlplane/health.ts";
import type { InitData } from "../../../../core/phases/init/data.ts";

/** The health targets init's wait checks: from the manifests where they set them. */
async function controlPlaneHealthTargets(data: InitData) {
  const pods = await readControlPlanePods(data.files, data.manifestDir, false);
  return targetsOf(pods, data.cfg.init.localAPIEndpoint);
}
import { FakeClock } from "../../../support/fake_clock.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { MemoryFileSystem } from "../../../support/memory_fs.ts";

const KUBELET = "http://127.0.0.1:10248/healthz";
const APISERVER = "https://192.168.0.10:6443/livez";
const KCM = "https://127.0.0.1:10257/healthz";
const SCHEDULER = "https://127.0.0.1:10259/livez";

/** A probe answering per URL from a script, recording every call. */
function scriptedProbe(
  clock: FakeClock,
  answer: (url: string, elapsedMs: number) => HealthResult,
): HealthProbe & { calls: { url: string; insecure?: boolean }[]; closed: number } {
  const start = clock.ms;
  const calls: { url: string; insecure?: boolean }[] = [];
  const probe = {
    calls,
    closed: 0,
    get(url: string, options?: { insecureSkipTLSVerify?: boolean }) {
      calls.push({ url, insecure: options?.insecureSkipTLSVerify });
      return Promise.resolve(answer(url, clock.ms - start));
    },
    close() {
      probe.closed++;
      return Promise.resolve();
    },
  };
  return probe;
}

function setup(answer: (url: string, elapsedMs: number) => HealthResult) {
  const clock = new FakeClock();
  const health = scriptedProbe(clock, answer);
  const fx = initDataFixture({ health });
  fx.data.clock = clock;
  fx.data.sleep = clock.sleep;
  return { ...fx, clock, health };
}

Deno.test("wait-control-plane: kubelet, then all three components, with upstream's lines", async () => {
  const { data, out, health } = setup((url, ms) => {
    if (url === APISERVER && ms < 1500) return { error: "connection refused" };
    return { status: 200 };
  });
  await runWaitControlPlane(data);
  assert.deepEqual(out.lines, [
    '[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory "/etc/kubernetes/manifests"',
    `[kubelet-check] Waiting for a healthy kubelet at ${KUBELET}. This can take up to 4m0s`,
    "[kubelet-check] The kubelet is healthy after 0s",
    "[control-plane-check] Waiting for healthy control plane components. This can take up to 4m0s",
    `[control-plane-check] Checking kube-apiserver at ${APISERVER}`,
    `[control-plane-check] Checking kube-controller-manager at ${KCM}`,
    `[control-plane-check] Checking kube-scheduler at ${SCHEDULER}`,
    "[control-plane-check] kube-controller-manager is healthy after 0s",
    "[control-plane-check] kube-scheduler is healthy after 0s",
    "[control-plane-check] kube-apiserver is healthy after 1.5s",
  ]);
  // The kubelet is plain HTTP; the components' self-signed endpoints are probed insecurely.
  assert.deepEqual(health.calls[0], { url: KUBELET, insecure: false });
  assert.ok(health.calls.slice(1).every((c) => c.insecure === true));
  // Healthy components are not probed again.
  assert.equal(health.calls.filter((c) => c.url === KCM).length, 1);
  // Probed every 100ms: at 0, 0.1s, …, 1.5s.
  assert.equal(health.calls.filter((c) => c.url === APISERVER).length, 16);
  // Each of the two waits closed the probe's kept connections when it ended.
  assert.equal(health.closed, 2);
});

Deno.test("wait-control-plane: a timeout names every component that never became healthy", async () => {
  const { data, out, clock, health } = setup((url) => {
    if (url === KCM) {
      return { error: `Get "${KCM}": dial tcp 127.0.0.1:10257: connect: connection refused` };
    }
    if (url === SCHEDULER) return { status: 500 };
    return { status: 200 };
  });
  const start = clock.ms;
  await assert.rejects(() => runWaitControlPlane(data), (e: Error & { hint?: string }) => {
    assert.equal(
      e.message,
      "couldn't initialize a Kubernetes cluster: control plane components kube-controller-manager, kube-scheduler did not become healthy within 4m0s",
    );
    assert.match(
      e.hint!,
      /kube-controller-manager check failed at https:\/\/127\.0\.0\.1:10257\/healthz: Get .*connection refused/,
    );
    assert.match(
      e.hint!,
      /kube-scheduler check failed at https:\/\/127\.0\.0\.1:10259\/livez with status: 500/,
    );
    return true;
  });
  // Bounded by timeouts.controlPlaneComponentHealthCheck (4m), polled every 100ms.
  assert.ok(clock.ms - start <= 4 * 60_000 && clock.ms - start > 4 * 60_000 - 1000);
  // A wait that fails closes the probe too.
  assert.equal(health.closed, 2);
  assert.ok(clock.sleeps.every((ms) => ms === 100));
  // Progress every 10s names what is still pending.
  const progress = out.lines.filter((l) => l.includes("Still waiting"));
  assert.equal(
    progress[0],
    "[control-plane-check] Still waiting for kube-controller-manager, kube-scheduler (10s elapsed)",
  );
  assert.equal(progress.length, 23);
  assert.ok(out.lines.includes("[control-plane-check] kube-apiserver is healthy after 0s"));
  assert.ok(
    out.lines.includes("[control-plane-check] kube-scheduler is not healthy after 4m0s"),
  );
  // Upstream's troubleshooting text, with the CRI socket.
  assert.ok(out.lines.includes("Unfortunately, an error has occurred, likely caused by:"));
  assert.ok(
    out.lines.includes(
      "\t- 'crictl --runtime-endpoint unix:///var/run/containerd/containerd.sock ps -a | grep kube | grep -v pause'",
    ),
  );
});

Deno.test("wait-control-plane: the kubelet timeout comes from timeouts.kubeletHealthCheck", async () => {
  const { data, out, health } = setup(() => ({ error: "connection refused" }));
  data.cfg.init.timeouts.kubeletHealthCheck = "20s";
  await assert.rejects(
    () => runWaitControlPlane(data),
    /^KubeadmError: couldn't initialize a Kubernetes cluster: the kubelet did not become healthy at http:\/\/127\.0\.0\.1:10248\/healthz within 20s$/,
  );
  assert.ok(out.lines.includes(
    `[kubelet-check] Waiting for a healthy kubelet at ${KUBELET}. This can take up to 20s`,
  ));
  assert.ok(out.lines.includes("[kubelet-check] Still waiting for the kubelet (10s elapsed)"));
  assert.ok(out.lines.includes("[kubelet-check] The kubelet is not healthy after 20s"));
  assert.ok(out.lines.includes(
    `\tThe HTTP call equal to 'curl -sSL ${KUBELET}' returned error: connection refused`,
  ));
  assert.ok(health.calls.every((c) => c.url === KUBELET), "components are not checked");
});

Deno.test("wait-control-plane: endpoints come from the manifests' flags", async () => {
  const files = new MemoryFileSystem({
    "/etc/kubernetes/manifests/kube-apiserver.yaml":
      "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command:\n    - kube-apiserver\n    - --advertise-address=10.1.2.3\n    - --secure-port=7443\n",
    "/etc/kubernetes/manifests/kube-scheduler.yaml":
      "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command:\n    - kube-scheduler\n    - --bind-address=0.0.0.0\n    - --secure-port=12345\n",
    "/etc/kubernetes/manifests/kube-controller-manager.yaml": "not: [valid",
  });
  const { data } = initDataFixture({ files });
  assert.deepEqual((await controlPlaneHealthTargets(data)).map((t) => t.url), [
    "https://10.1.2.3:7443/livez",
    KCM,
    "https://0.0.0.0:12345/livez",
  ]);
  data.cfg.init.localAPIEndpoint = { advertiseAddress: "fd00::10", bindPort: 6443 };
  files.remove("/etc/kubernetes/manifests/kube-apiserver.yaml");
  assert.equal((await controlPlaneHealthTargets(data))[0].url, "https://[fd00::10]:6443/livez");
});

Deno.test("wait-control-plane --dry-run reports the planned files and waits for nothing", async () => {
  const { data, out, health } = setup(() => ({ status: 500 }));
  data.dryRun = true;
  let reported = 0;
  data.reportDryRunFiles = () => Promise.resolve(void reported++);
  await runWaitControlPlane(data);
  assert.equal(reported, 1);
  assert.deepEqual(health.calls, []);
  assert.deepEqual(out.lines, [
    '[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory "/etc/kubernetes/manifests"',
    `[dryrun] Would make sure the kubelet returns 'ok' at ${KUBELET}`,
  ]);
});
