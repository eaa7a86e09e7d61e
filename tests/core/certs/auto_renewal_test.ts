import assert from "node:assert/strict";
import {
  autoRenewalFiles,
  type AutoRenewalSettings,
  autoRenewalStatus,
  autoRenewalStatusLines,
  installAutoRenewal,
  parseRenewalSchedule,
  parseRenewalWindow,
  removeAutoRenewal,
} from "../../../core/certs/auto_renewal.ts";
import { FlagError } from "../../../core/errors.ts";
import { utf8 } from "../../../core/text/utf8.ts";
import { CapturePrinter, FakeInitSystem } from "../../support/fake_machine.ts";
import { MemoryFileSystem, MemoryNodeOps } from "../../support/memory_fs.ts";
import { runTool } from "../../support/openssl.ts";

const SETTINGS: AutoRenewalSettings = {
  window: "720h0m0s",
  schedule: "daily",
  approveKubeletServing: true,
  command: ["/opt/kube tools/kubeadm"],
};

function node(init: FakeInitSystem | undefined, dryRun = false) {
  const fs = new MemoryFileSystem();
  const ops = new MemoryNodeOps(fs);
  const out = new CapturePrinter();
  return {
    fs,
    out,
    node: { files: fs, removeFile: (p: string) => ops.removeFile(p), init, out, dryRun },
  };
}

Deno.test("parseRenewalWindow() takes Go durations from 1h to below the certificates' validity", () => {
  assert.equal(parseRenewalWindow("720h", "8760h0m0s"), "720h0m0s");
  assert.equal(parseRenewalWindow("90m", "8760h0m0s"), "1h30m0s");
  for (
    const [text, reason] of [
      ["30d", /unknown unit "d" in duration "30d"/],
      ["10m", /at least 1h and shorter than the certificates' validity \(8760h0m0s\)/],
      ["8760h", /shorter than the certificates' validity/],
      ["-1h", /at least 1h/],
    ] as const
  ) {
    assert.throws(() => parseRenewalWindow(text, "8760h0m0s"), (e: unknown) => {
      assert.ok(e instanceof FlagError, text);
      assert.equal(e.field, "--within");
      assert.match(e.message, reason);
      assert.ok(e.hint);
      return true;
    });
  }
  assert.equal(parseRenewalSchedule("weekly"), "weekly");
  assert.throws(
    () => parseRenewalSchedule("*-*-* 02:00"),
    /must be one of hourly, daily, weekly, monthly/,
  );
});

Deno.test("the systemd units pass systemd-analyze verify, and a bad calendar would not", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // ExecStart's command must exist and be executable for systemd to accept the unit.
    const exe = `${dir}/kube tools/kubeadm`;
    await Deno.mkdir(`${dir}/kube tools`);
    await Deno.writeTextFile(exe, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const files = autoRenewalFiles("systemd", { ...SETTINGS, command: [exe] });
    assert.deepEqual(files.map((f) => [f.path, f.mode]), [
      ["/etc/systemd/system/kubeadm-certs-renewal.service", 0o644],
      ["/etc/systemd/system/kubeadm-certs-renewal.timer", 0o644],
    ]);
    const paths = [];
    for (const f of files) {
      const p = `${dir}/${f.path.split("/").pop()}`;
      await Deno.writeTextFile(p, f.data as string);
      paths.push(p);
    }
    const ok = await runTool("systemd-analyze", ["verify", ...paths]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stderr, "", "no warning about any setting");
    const service = files[0].data as string;
    assert.match(
      service,
      new RegExp(
        `^ExecStart="${dir}/kube tools/kubeadm" certs auto-renewal run --within 720h0m0s --approve-kubelet-serving$`,
        "m",
      ),
    );
    assert.match(service, /^Type=oneshot$/m);
    assert.match(service, /^SyslogIdentifier=kubeadm-certs-renewal$/m);
    const timer = files[1].data as string;
    assert.match(timer, /^OnCalendar=daily$/m);
    assert.match(timer, /^Persistent=true$/m);
    assert.match(timer, /^WantedBy=timers.target$/m);
    await Deno.writeTextFile(paths[1], timer.replace("OnCalendar=daily", "OnCalendar=dialy"));
    const bad = await runTool("systemd-analyze", ["verify", ...paths]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /Failed to parse calendar specification/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the OpenRC script runs the renewal and logs its output and exit status", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const exe = `${dir}/kube tools/kubeadm`;
    await Deno.mkdir(`${dir}/kube tools`);
    await Deno.mkdir(`${dir}/bin`);
    await Deno.writeTextFile(exe, '#!/bin/sh\necho "ran: $*"\necho oops >&2\nexit 3\n', {
      mode: 0o755,
    });
    // logger stand-in: what it is given on stdin, with its tag.
    await Deno.writeTextFile(`${dir}/bin/logger`, `#!/bin/sh\nsed "s/^/$2: /" >> ${dir}/syslog\n`, {
      mode: 0o755,
    });
    const [file] = autoRenewalFiles("openrc", { ...SETTINGS, command: [exe], schedule: "weekly" });
    assert.equal(file.path, "/etc/periodic/weekly/kubeadm-certs-renewal");
    assert.equal(file.mode, 0o755);
    const script = `${dir}/script`;
    await Deno.writeTextFile(script, file.data as string, { mode: 0o755 });
    assert.equal((await runTool("sh", ["-n", script])).code, 0);
    const run = await new Deno.Command(script, {
      env: { PATH: `${dir}/bin:/usr/bin:/bin` },
    }).output();
    assert.equal(run.code, 0, utf8(run.stderr));
    assert.equal(
      await Deno.readTextFile(`${dir}/syslog`),
      [
        "kubeadm-certs-renewal: ran: certs auto-renewal run --within 720h0m0s --approve-kubelet-serving",
        "kubeadm-certs-renewal: oops",
        "kubeadm-certs-renewal: exit status 3",
        "",
      ].join("\n"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("installAutoRenewal() writes, reloads and enables once; a second install changes nothing", async () => {
  const init = new FakeInitSystem();
  init.services.delete("kubelet");
  const { fs, out, node: n } = node(init);
  await installAutoRenewal(n, SETTINGS);
  assert.deepEqual(fs.writes.map((w) => w.path), [
    "/etc/systemd/system/kubeadm-certs-renewal.service",
    "/etc/systemd/system/kubeadm-certs-renewal.timer",
  ]);
  assert.equal(init.reloads, 1);
  assert.deepEqual(init.services.get("kubeadm-certs-renewal.timer"), {
    enabled: true,
    active: true,
  });
  assert.match(out.all.join("\n"), /renewed daily.*journalctl -u kubeadm-certs-renewal/s);
  await installAutoRenewal(n, SETTINGS);
  assert.equal(fs.writes.length, 2, "nothing rewritten");
  assert.equal(init.reloads, 1, "no reload");
  // Other settings replace the files.
  await installAutoRenewal(n, { ...SETTINGS, schedule: "hourly", window: "48h0m0s" });
  assert.equal(fs.writes.length, 4);
  assert.match(fs.text("/etc/systemd/system/kubeadm-certs-renewal.timer")!, /OnCalendar=hourly/);

  const status = await autoRenewalStatus(fs, init, "/etc/kubernetes");
  assert.deepEqual(
    { ...status, files: status.files.map((f) => f.state) },
    {
      initSystem: "systemd",
      installed: true,
      files: ["present", "present"],
      schedule: "hourly",
      window: "48h0m0s",
      approveKubeletServing: true,
      command: ["/opt/kube tools/kubeadm"],
      enabled: true,
      active: true,
      nextRun: undefined,
      lastRun: undefined,
      lastResult: undefined,
      kubeletClient: {
        kubeconfig: "/etc/kubernetes/kubelet.conf",
        state: "missing",
        message: "/etc/kubernetes/kubelet.conf: no kubelet client certificate to renew",
      },
    },
  );
  init.properties.set("kubeadm-certs-renewal.timer", {
    NextElapseUSecRealtime: "Mon 2026-11-30 00:41:07 UTC",
    LastTriggerUSec: "Sun 2026-11-29 00:12:01 UTC",
  });
  init.properties.set("kubeadm-certs-renewal.service", { Result: "success" });
  fs.put(
    "/etc/systemd/system/kubeadm-certs-renewal.service",
    fs.text("/etc/systemd/system/kubeadm-certs-renewal.service")! + "Nice=5\n",
  );
  const lines = autoRenewalStatusLines(await autoRenewalStatus(fs, init, "/etc/kubernetes")).join(
    "\n",
  );
  assert.match(lines, /last run: {2}Sun 2026-11-29 00:12:01 UTC \(success\)/);
  assert.match(lines, /next run: {2}Mon 2026-11-30/);
  assert.match(lines, /kubeadm-certs-renewal.service: modified/);
  assert.match(lines, /\/etc\/kubernetes\/kubelet.conf: no kubelet client certificate to renew$/);

  const removed = await removeAutoRenewal(n);
  assert.equal(removed.length, 2);
  assert.equal(init.services.has("kubeadm-certs-renewal.timer"), false);
  assert.equal(fs.text("/etc/systemd/system/kubeadm-certs-renewal.timer"), undefined);
  assert.deepEqual(await removeAutoRenewal(n), [], "removing twice does nothing");
  assert.deepEqual(autoRenewalStatusLines(await autoRenewalStatus(fs, init, "/etc/kubernetes")), [
    "Certificate auto-renewal: not installed",
  ]);
});

Deno.test("installAutoRenewal() on OpenRC: a periodic script, crond enabled, the old period's script removed", async () => {
  const init = new FakeInitSystem("openrc");
  init.services.set("crond", { enabled: false, active: false });
  const { fs, node: n } = node(init);
  await installAutoRenewal(n, SETTINGS);
  assert.deepEqual(init.services.get("crond"), { enabled: true, active: true });
  assert.ok(fs.text("/etc/periodic/daily/kubeadm-certs-renewal"));
  await installAutoRenewal(n, { ...SETTINGS, schedule: "weekly" });
  assert.equal(fs.text("/etc/periodic/daily/kubeadm-certs-renewal"), undefined);
  const status = await autoRenewalStatus(fs, init, "/etc/kubernetes");
  assert.equal(status.schedule, "weekly");
  assert.deepEqual(status.files, [{
    path: "/etc/periodic/weekly/kubeadm-certs-renewal",
    state: "present",
  }]);
  assert.deepEqual(await removeAutoRenewal(n), ["/etc/periodic/weekly/kubeadm-certs-renewal"]);
  assert.deepEqual(init.services.get("crond"), { enabled: true, active: true }, "crond stays");
});

Deno.test("installAutoRenewal() refuses before any write: no init system, OpenRC without crond; a dry run only records", async () => {
  const none = node(undefined);
  await assert.rejects(installAutoRenewal(none.node, SETTINGS), /needs systemd or OpenRC/);
  const openrc = new FakeInitSystem("openrc");
  const noCron = node(openrc);
  await assert.rejects(installAutoRenewal(noCron.node, SETTINGS), /no crond service/);
  assert.equal(noCron.fs.writes.length, 0);
  const init = new FakeInitSystem();
  const dry = node(init, true);
  await installAutoRenewal(dry.node, SETTINGS);
  // A dry run's files port is its recording (the report prints them); nothing is enabled.
  assert.deepEqual(dry.fs.writes.map((w) => [w.path, w.kind]), [
    ["/etc/systemd/system/kubeadm-certs-renewal.service", "service"],
    ["/etc/systemd/system/kubeadm-certs-renewal.timer", "service"],
  ]);
  assert.equal(init.reloads, 0);
  assert.equal(init.services.has("kubeadm-certs-renewal.timer"), false);
  assert.match(
    dry.out.all.join("\n"),
    /\[dryrun\] Would write \/etc\/systemd\/system\/kubeadm-certs-renewal.timer/,
  );
});
