// The certs-auto-renewal phase of init and join (beyond upstream): where it runs, skipped unless
// asked, the schedule planCertificateAutoRenewal plans (installed once, idempotent, recorded in a
// dry run), and the refusals of --certificate-auto-renewal, naming the flag.
import assert from "node:assert/strict";
import { initWorkflow } from "../../../../core/phases/init/workflow.ts";
import { joinWorkflow } from "../../../../core/phases/join/workflow.ts";
import { runWorkflow } from "../../../../core/workflow/runner.ts";
import {
  AUTO_RENEWAL_FLAG,
  checkAutoRenewalRequest,
  installRequestedAutoRenewal,
  requestedAutoRenewalSettings,
} from "../../../../core/certs/auto_renewal.ts";
import { FlagError, KubeadmError } from "../../../../core/errors.ts";
import { planCertificateAutoRenewal } from "../../../../library/renewal.ts";
import { initDataFixture } from "../../../support/init_data_fixture.ts";
import { FakeMachine } from "../../../support/fake_machine.ts";

const COMMAND = ["/usr/local/bin/kubeadm"];
const TIMER = "kubeadm-certs-renewal.timer";

Deno.test("certs-auto-renewal runs at the end of init (before the join command) and of join", () => {
  const init = initWorkflow().phases.map((p) => p.name);
  assert.deepEqual(init.slice(-3), ["addon", "certs-auto-renewal", "show-join-command"]);
  assert.equal(joinWorkflow().phases.at(-1)?.name, "certs-auto-renewal");
});

Deno.test("certs-auto-renewal: skipped unless asked; installs planCertificateAutoRenewal's files once", async () => {
  const machine = new FakeMachine();
  const { data, files, out } = initDataFixture({ machine });
  await runWorkflow(initWorkflow(), data, { only: "certs-auto-renewal" });
  assert.equal(files.writes.length, 0, "not asked: nothing written");

  data.certificateAutoRenewal = { command: COMMAND };
  await runWorkflow(initWorkflow(), data, { only: "certs-auto-renewal" });
  const plan = planCertificateAutoRenewal({ initSystem: "systemd", command: COMMAND });
  assert.deepEqual(
    files.writes.map((f) => ({ path: f.path, mode: f.mode, content: f.data })),
    plan.files,
  );
  assert.deepEqual(machine.init!.services.get(TIMER), { enabled: true, active: true });
  assert.equal(plan.enable, TIMER);
  assert.match(out.lines.join("\n"), /renewed daily, and what uses them restarted/);
  // Idempotent: a second run writes nothing and reloads nothing.
  const reloads = machine.init!.reloads;
  await runWorkflow(initWorkflow(), data, { only: "certs-auto-renewal" });
  assert.equal(files.writes.length, 2);
  assert.equal(machine.init!.reloads, reloads);
});

Deno.test("certs-auto-renewal in a dry run records the files and enables nothing", async () => {
  const machine = new FakeMachine();
  const { data, files, out } = initDataFixture({ machine, dryRun: true });
  data.certificateAutoRenewal = { command: COMMAND };
  await runWorkflow(initWorkflow(), data, { only: "certs-auto-renewal" });
  assert.deepEqual(files.writes.map((f) => [f.path, f.kind]), [
    ["/etc/systemd/system/kubeadm-certs-renewal.service", "service"],
    ["/etc/systemd/system/kubeadm-certs-renewal.timer", "service"],
  ]);
  assert.equal(machine.init!.services.has(TIMER), false);
  assert.equal(machine.init!.reloads, 0);
  assert.ok(out.lines.includes(`[dryrun] Would enable and start ${TIMER}`));
});

Deno.test("--certificate-auto-renewal is refused on a worker, for another root, and with a short validity", async () => {
  const refusedNaming = (fn: () => unknown, reason: RegExp) =>
    assert.throws(fn, (e: unknown) => {
      assert.ok(e instanceof FlagError);
      assert.equal(e.field, AUTO_RENEWAL_FLAG);
      assert.match(e.message, reason);
      assert.ok(e.hint);
      return true;
    });
  refusedNaming(() => checkAutoRenewalRequest({ controlPlane: false }), /this join adds a worker/);
  refusedNaming(
    () => checkAutoRenewalRequest({ controlPlane: true, foreignRoot: "/images/node1" }),
    /--rootfs names another root \(\/images\/node1\)/,
  );
  checkAutoRenewalRequest({ controlPlane: true });
  refusedNaming(
    () => requestedAutoRenewalSettings({ command: COMMAND }, "500h0m0s"),
    /not shorter than the cluster's certificateValidityPeriod \(500h0m0s\)/,
  );
  assert.deepEqual(requestedAutoRenewalSettings({ command: COMMAND }, undefined), {
    window: "720h0m0s",
    schedule: "daily",
    approveKubeletServing: false,
    command: COMMAND,
  });
  // A plan has no node: the phase says where the files are instead.
  const { data } = initDataFixture();
  await assert.rejects(
    installRequestedAutoRenewal({
      request: { command: COMMAND },
      certificateValidityPeriod: undefined,
      node: undefined,
      files: data.files,
      out: data.out,
      dryRun: false,
    }),
    (e: unknown) => e instanceof KubeadmError && /planCertificateAutoRenewal/.test(e.hint ?? ""),
  );
});
