// A control-plane join's wait for its components: the kube-apiserver, read through the API
// client, is probed within the time the wait has left, like the other components.
import assert from "node:assert/strict";
import { waitForControlPlaneComponents } from "../../../../core/controlplane/health.ts";
import { controlPlaneProbe } from "../../../../core/phases/join/wait_control_plane.ts";
import { RecordingPrinter } from "../../../support/recording_printer.ts";
import { silentApiClient } from "../../../support/silent_peer.ts";

Deno.test("a silent kube-apiserver keeps the wait within its timeout", async () => {
  const { clock, peer, client } = silentApiClient();
  const url = "https://10.0.0.2:6443/livez";
  const probe = controlPlaneProbe(client, url, {
    get: () => Promise.reject(new Error("only the API server is probed")),
  });
  const start = clock.ms;
  const outcome = await waitForControlPlaneComponents(
    { health: probe, clock, sleep: clock.sleep, out: new RecordingPrinter() },
    [{ name: "kube-apiserver", url, insecure: true }],
    4_000,
  );
  assert.equal(clock.ms - start, 4_000, "not the transport's 30s");
  assert.deepEqual(outcome.pending.map((t) => t.name), ["kube-apiserver"]);
  assert.match(
    outcome.errors.get("kube-apiserver")!,
    /^kube-apiserver check failed at https:\/\/10\.0\.0\.2:6443\/livez: unable to get endpoint \/livez: Get "https:\/\/10\.0\.0\.1:6443\/livez": timeout after 4000ms$/,
  );
  assert.deepEqual(peer.limits, [4_000]);
});
