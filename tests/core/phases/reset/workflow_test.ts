// The reset workflow on a fake control-plane node: prompts, output, what is removed.
import assert from "node:assert/strict";
import { resetWorkflow, runReset } from "../../../../core/phases/reset/workflow.ts";
import { RESET_CLEANUP_NOTES } from "../../../../core/phases/reset/data.ts";
import { RESET_PROMPT } from "../../../../core/phases/reset/preflight.ts";
import { resolveSkipPhases } from "../../../../core/workflow/runner.ts";
import { KubeadmError, PhaseError, PreflightError } from "../../../../core/errors.ts";
import { resetFixture } from "./support.ts";

const KUBECONFIGS =
  "[/etc/kubernetes/admin.conf /etc/kubernetes/super-admin.conf /etc/kubernetes/kubelet.conf " +
  "/etc/kubernetes/bootstrap-kubelet.conf /etc/kubernetes/controller-manager.conf " +
  "/etc/kubernetes/scheduler.conf]";

Deno.test("a forced reset of a control-plane node without cluster access", async () => {
  const f = resetFixture({ inputs: { force: true } });
  f.host.mounts = [
    "/proc",
    "/var/lib/kubelet",
    "/var/lib/kubelet/pods/a/volumes/x",
    "/var/lib/kubelet/pods/b/volumes/y",
  ];
  f.host.runtime.pods = ["p1", "p2"];
  f.host.etcd.members = [
    { id: "1", name: "cp-1", peerURLs: ["https://192.168.0.10:2380"], clientURLs: [] },
    { id: "2", name: "cp-2", peerURLs: ["https://192.168.0.11:2380"], clientURLs: [] },
  ];
  await runReset(f.data);
  assert.deepEqual(f.out.all, [
    "[preflight] Running pre-flight checks",
    "E: [reset] No kubeadm config, using etcd pod spec to get data directory",
    "[reset] Deleted contents of the etcd data directory: /var/lib/etcd",
    "[reset] Stopping the kubelet service",
    '[reset] Unmounting mounted directories in "/var/lib/kubelet"',
    "[reset] Deleting contents of directories: [/etc/kubernetes/manifests /var/lib/kubelet /etc/kubernetes/pki]",
    `[reset] Deleting files: ${KUBECONFIGS}`,
    ...RESET_CLEANUP_NOTES,
  ]);
  assert.deepEqual(f.prompts, []);
  // this node's member went, through the endpoints found in the manifest, with the
  // apiserver-etcd-client certificate
  assert.deepEqual(f.host.etcd.removed, ["1"]);
  assert.deepEqual(f.host.etcd.clients[0].endpoints, [
    "https://192.168.0.10:2379",
    "https://192.168.0.11:2379",
  ]);
  assert.deepEqual(f.host.etcd.clients[0].tls, {
    caPem: "PEM etcd-ca",
    certPem: "PEM apiserver-etcd-client.crt",
    keyPem: "PEM apiserver-etcd-client.key",
  });
  assert.deepEqual(f.host.init!.stopped, ["kubelet"]);
  // innermost mounts first; the kubelet dir itself and unrelated mounts are left alone
  assert.deepEqual(f.host.unmounted.map((u) => u.path), [
    "/var/lib/kubelet/pods/b/volumes/y",
    "/var/lib/kubelet/pods/a/volumes/x",
  ]);
  assert.deepEqual(f.host.runtime.removed, ["p1", "p2"]);
  assert.deepEqual(f.host.cleaned, [
    "/var/lib/etcd",
    "/etc/kubernetes/manifests",
    "/var/lib/kubelet",
    "/etc/kubernetes/pki",
  ]);
  // everything kubeadm wrote is gone; the stranger's file and the tmp dir survive
  assert.deepEqual([...f.host.files.files.keys()].sort(), [
    "/etc/kubernetes/keep-me.txt",
    "/etc/kubernetes/tmp/kubeadm-backup/x",
  ]);
});

Deno.test("the confirmation prompt: y and yes proceed, anything else or no input stops", async () => {
  for (const answer of ["y", "Y", "yes", " YES "]) {
    const f = resetFixture({ inputs: {}, answers: [answer] });
    await runReset(f.data);
    assert.deepEqual(f.prompts, [RESET_PROMPT]);
    assert.equal(
      f.out.stderr[0],
      "[reset] WARNING: Changes made to this host by 'kubeadm init' or 'kubeadm join' will be reverted.",
    );
    assert.ok(f.host.cleaned.length > 0, answer);
  }
  for (const answer of ["n", "", "yep", undefined]) {
    const f = resetFixture({ inputs: {}, answers: [answer] });
    await assert.rejects(() => runReset(f.data), (e: unknown) => {
      assert.ok(e instanceof PhaseError);
      assert.equal(
        e.message,
        "error execution phase preflight: won't proceed; the user didn't answer (Y|y) in order to continue",
      );
      return true;
    });
    assert.deepEqual(f.host.actions, [], String(answer));
    assert.deepEqual(f.host.init!.stopped, []);
  }
});

Deno.test("--dry-run prints what would happen and changes nothing", async () => {
  const f = resetFixture({ inputs: { dryRun: true, cleanupTmpDir: true } });
  f.host.mounts = ["/var/lib/kubelet/pods/a/volumes/x"];
  f.host.etcd.members = [
    { id: "1", name: "cp-1", peerURLs: ["https://192.168.0.10:2380"], clientURLs: [] },
  ];
  const before = new Map(f.host.files.files);
  await runReset(f.data);
  assert.deepEqual(f.out.all.slice(0, 9), [
    "[preflight] Running pre-flight checks",
    "E: [reset] No kubeadm config, using etcd pod spec to get data directory",
    "[dryrun] Would remove the etcd member on this node from the etcd cluster",
    "[dryrun] Would delete contents of the etcd data directory: /var/lib/etcd",
    "[dryrun] Would stop the kubelet service",
    '[dryrun] Would unmount mounted directories in "/var/lib/kubelet"',
    "[dryrun] Would remove Kubernetes-managed containers",
    "[dryrun] Would delete contents of directories: [/etc/kubernetes/manifests /etc/kubernetes/pki /etc/kubernetes/tmp]",
    `[dryrun] Would delete files: ${KUBECONFIGS}`,
  ]);
  assert.deepEqual(f.prompts, []);
  assert.deepEqual(f.host.actions, []);
  assert.deepEqual(f.host.init!.stopped, []);
  assert.deepEqual(f.host.etcd.removed, []);
  assert.deepEqual(new Map(f.host.files.files), before);
});

Deno.test("dry-run as an unprivileged user reports the root check but goes on", async () => {
  const f = resetFixture({ inputs: { dryRun: true } });
  f.preflight.uidValue = 1000;
  await runReset(f.data);
  assert.ok(
    f.out.stderr.includes(
      "[preflight] dry-run: [ERROR IsPrivilegedUser]: user is not running as root",
    ),
  );
  const g = resetFixture({ inputs: { force: true } });
  g.preflight.uidValue = 1000;
  await assert.rejects(() => runReset(g.data), (e: unknown) => {
    assert.ok(e instanceof PhaseError && e.exitCode === 2 && e.cause instanceof PreflightError);
    return true;
  });
  assert.deepEqual(g.host.actions, []);
  const h = resetFixture({ inputs: { force: true, ignorePreflightErrors: ["IsPrivilegedUser"] } });
  h.preflight.uidValue = 1000;
  await runReset(h.data);
  assert.ok(h.out.stderr.includes("\t[WARNING IsPrivilegedUser]: user is not running as root"));
});

Deno.test("a non-default certificate directory is warned about and emptied; --cleanup-tmp-dir", async () => {
  const f = resetFixture({
    inputs: { force: true, certificatesDir: "/srv/k8s/pki", cleanupTmpDir: true },
  });
  f.host.files.put("/srv/k8s/pki/ca.crt", "x");
  await runReset(f.data);
  assert.ok(
    f.out.stderr.includes(
      '[reset] WARNING: Cleaning a non-default certificates directory: "/srv/k8s/pki"',
    ),
  );
  assert.ok(f.out.stdout.includes(
    "[reset] Deleting contents of directories: [/etc/kubernetes/manifests /var/lib/kubelet /srv/k8s/pki /etc/kubernetes/tmp]",
  ));
  assert.ok(!f.host.files.files.has("/srv/k8s/pki/ca.crt"));
  assert.ok(!f.host.files.files.has("/etc/kubernetes/tmp/kubeadm-backup/x"));
  // the default pki dir was not named, so it keeps its files
  assert.ok(f.host.files.files.has("/etc/kubernetes/pki/ca.crt"));
});

Deno.test("unmount failures abort reset before anything is deleted", async () => {
  const f = resetFixture({ inputs: { force: true }, config: { unmountFlags: ["MNT_DETACH"] } });
  f.host.mounts = ["/var/lib/kubelet/pods/a", "/var/lib/kubelet/pods/b"];
  f.host.unmountErrors.set("/var/lib/kubelet/pods/a", "target is busy");
  f.host.unmountErrors.set("/var/lib/kubelet/pods/b", "not mounted");
  await assert.rejects(() => runReset(f.data, { skip: ["remove-etcd-member"] }), (e: unknown) => {
    assert.ok(e instanceof PhaseError);
    assert.equal(
      e.message,
      'error execution phase cleanup-node: encountered the following errors while unmounting directories in "/var/lib/kubelet/": ' +
        '[failed to unmount "/var/lib/kubelet/pods/b": not mounted, failed to unmount "/var/lib/kubelet/pods/a": target is busy]',
    );
    return true;
  });
  assert.deepEqual(f.host.unmounted.map((u) => u.flags), [["MNT_DETACH"], ["MNT_DETACH"]]);
  assert.deepEqual(f.host.cleaned, []);
  assert.deepEqual(f.host.removedFiles, []);
});

Deno.test("a mount already gone with its shared peer (EINVAL) is skipped with upstream's warning", async () => {
  const f = resetFixture({ inputs: { force: true } });
  f.host.mounts = ["/var/lib/kubelet/pods/a", "/var/lib/kubelet/pods/a"];
  f.host.notMounted.add("/var/lib/kubelet/pods/a");
  await runReset(f.data, { skip: ["remove-etcd-member"] });
  assert.deepEqual(
    f.out.stderr.filter((l) => l.includes("EINVAL")),
    [
      '[reset] Ignoring EINVAL error while unmounting "/var/lib/kubelet/pods/a"',
      '[reset] Ignoring EINVAL error while unmounting "/var/lib/kubelet/pods/a"',
    ],
  );
  assert.ok(f.host.cleaned.length > 0, "reset goes on");
});

Deno.test("kubelet, containers and a missing kubelet dir only warn", async () => {
  const f = resetFixture({ inputs: { force: true } });
  f.host.init!.stopError = new Error("exit status 5");
  f.host.runtime.connectError = new Error(
    "dial unix /run/x.sock: connect: no such file or directory",
  );
  for (const p of [...f.host.files.files.keys()]) {
    if (p.startsWith("/var/lib/kubelet/")) f.host.files.files.delete(p);
  }
  await runReset(f.data, { skip: ["remove-etcd-member"] });
  assert.deepEqual(f.out.stderr, [
    "[reset] The kubelet service could not be stopped by kubeadm: [exit status 5]",
    "[reset] Please ensure kubelet is stopped manually",
    '[reset] Skipping unmount of directories in "/var/lib/kubelet": lstat /var/lib/kubelet: no such file or directory',
    "[reset] Failed to remove containers: dial unix /run/x.sock: connect: no such file or directory",
  ]);
  assert.ok(f.out.stdout.includes(
    "[reset] Deleting contents of directories: [/etc/kubernetes/manifests /etc/kubernetes/pki]",
  ));
  const g = resetFixture({ inputs: { force: true } });
  g.host.init = undefined;
  await runReset(g.data, { only: "cleanup-node" });
  assert.deepEqual(g.out.stderr.slice(0, 2), [
    "[reset] The kubelet service could not be stopped by kubeadm. Unable to detect a supported init system!",
    "[reset] Please ensure kubelet is stopped manually",
  ]);
  // a single phase does not print the closing notes
  assert.ok(!g.out.stdout.includes(RESET_CLEANUP_NOTES[1]));
});

Deno.test("a kubelet dir resolving to a dangerous place is neither unmounted nor emptied", async () => {
  const f = resetFixture({ inputs: { force: true } });
  f.host.links.set("/var/lib/kubelet", "/var/lib");
  f.host.mounts = ["/var/lib/docker/overlay"];
  await runReset(f.data, { only: "cleanup-node" });
  assert.deepEqual(f.host.unmounted, []);
  assert.ok(!f.host.cleaned.includes("/var/lib"));
  assert.ok(
    f.out.stderr.some((l) => l.includes("refusing to delete the contents of a system directory")),
  );
});

Deno.test("remove-etcd-member: last member is kept; failures warn but data is still cleaned", async () => {
  const last = resetFixture({ inputs: { force: true } });
  last.host.files.put(
    "/etc/kubernetes/manifests/etcd.yaml",
    new TextDecoder().decode((await last.host.files.read("/etc/kubernetes/manifests/etcd.yaml"))!)
      .replace(",cp-2=https://192.168.0.11:2380", ""),
  );
  last.host.etcd.members = [
    { id: "1", name: "cp-1", peerURLs: ["https://192.168.0.10:2380"], clientURLs: [] },
  ];
  await runReset(last.data, { only: "remove-etcd-member" });
  assert.deepEqual(last.host.etcd.removed, []);
  assert.deepEqual(last.host.cleaned, ["/var/lib/etcd"]);

  const down = resetFixture({ inputs: { force: true } });
  down.host.etcd.failure = new Error("no etcd endpoint answered");
  await runReset(down.data, { only: "remove-etcd-member" });
  assert.deepEqual(down.out.stderr, [
    "[reset] No kubeadm config, using etcd pod spec to get data directory",
    "[reset] Failed to remove etcd member: no etcd endpoint answered, please manually remove this etcd member using etcdctl",
  ]);
  assert.deepEqual(down.out.stdout, [
    "[reset] Deleted contents of the etcd data directory: /var/lib/etcd",
  ]);

  const gone = resetFixture({ inputs: { force: true } });
  gone.host.etcd.members = [
    { id: "2", name: "cp-2", peerURLs: ["https://192.168.0.11:2380"], clientURLs: [] },
    { id: "3", name: "cp-3", peerURLs: ["https://192.168.0.12:2380"], clientURLs: [] },
  ];
  await runReset(gone.data, { only: "remove-etcd-member" });
  assert.deepEqual(gone.host.etcd.removed, []);
  assert.deepEqual(gone.out.stderr.length, 1);
});

Deno.test("remove-etcd-member: cluster configuration decides the peer URL and data dir", async () => {
  const f = resetFixture({
    inputs: { force: true },
    cluster: {
      etcd: { local: { dataDir: "/data/etcd" } },
      localAPIEndpoint: { advertiseAddress: "192.168.0.10", bindPort: 6443 },
      etcdEndpoints: ["https://192.168.0.11:2379"],
    },
  });
  f.host.files.put("/data/etcd/member/wal/0", "x");
  f.host.etcd.members = [
    { id: "1", name: "cp-1", peerURLs: ["https://192.168.0.10:2380"], clientURLs: [] },
    { id: "2", name: "cp-2", peerURLs: ["https://192.168.0.11:2380"], clientURLs: [] },
  ];
  await runReset(f.data, { only: "remove-etcd-member" });
  assert.deepEqual(f.out.stderr, []);
  assert.deepEqual(f.host.etcd.clients[0].endpoints, ["https://192.168.0.11:2379"]);
  assert.deepEqual(f.host.etcd.removed, ["1"]);
  assert.deepEqual(f.out.stdout, [
    "[reset] Deleted contents of the etcd data directory: /data/etcd",
  ]);
});

Deno.test("etcd data written again before the containers went is emptied again; else not", async () => {
  // The etcd container runs until cleanup-node removes it: etcd, removed from its cluster,
  // exits and the kubelet restarts it on the emptied directory, which it writes again.
  const f = resetFixture({ inputs: { force: true } });
  f.host.runtime.pods = ["etcd-pod"];
  f.host.etcd.members = [
    { id: "1", name: "cp-1", peerURLs: ["https://192.168.0.10:2380"], clientURLs: [] },
    { id: "2", name: "cp-2", peerURLs: ["https://192.168.0.11:2380"], clientURLs: [] },
  ];
  const removePods = f.host.runtime.removePods.bind(f.host.runtime);
  f.host.runtime.removePods = (ids) => {
    f.host.files.put("/var/lib/etcd/member/snap/0.tmp", "restarted etcd");
    return removePods(ids);
  };
  await runReset(f.data);
  assert.deepEqual(f.host.cleaned.filter((d) => d === "/var/lib/etcd").length, 2);
  assert.equal(await f.host.files.list("/var/lib/etcd/member"), undefined);
  assert.deepEqual(
    f.out.stdout.filter((l) => l.includes("etcd data directory")),
    Array(2).fill("[reset] Deleted contents of the etcd data directory: /var/lib/etcd"),
  );

  // Nothing written since: emptied once, as upstream.
  const quiet = resetFixture({ inputs: { force: true } });
  quiet.host.etcd.members = f.host.etcd.members;
  await runReset(quiet.data);
  assert.deepEqual(quiet.host.cleaned.filter((d) => d === "/var/lib/etcd").length, 1);
});

Deno.test("remove-etcd-member: worker, external etcd, broken manifest", async () => {
  const worker = resetFixture({ inputs: { force: true }, seed: false });
  await runReset(worker.data, { only: "remove-etcd-member" });
  assert.deepEqual(worker.out.stdout, []);
  assert.deepEqual(worker.host.actions, []);

  const broken = resetFixture({ inputs: { force: true } });
  broken.host.files.put("/etc/kubernetes/manifests/etcd.yaml", "kind: Pod\nspec: {}\n");
  await runReset(broken.data, { only: "remove-etcd-member" });
  assert.deepEqual(broken.out.stdout, [
    "[reset] No etcd config found. Assuming external etcd",
    "[reset] Please, manually reset etcd to prevent further issues",
  ]);
  assert.deepEqual(broken.host.actions, []);

  const external = resetFixture({
    inputs: { force: true },
    cluster: { etcd: { external: { endpoints: ["https://e:2379"] } } },
  });
  await runReset(external.data, { only: "remove-etcd-member" });
  assert.equal(external.out.stdout[0], "[reset] No etcd config found. Assuming external etcd");
  assert.deepEqual(external.host.etcd.clients, []);
});

Deno.test("remove-etcd-member refuses a dangerous data directory from the manifest", async () => {
  const f = resetFixture({ inputs: { force: true } });
  f.host.files.put(
    "/etc/kubernetes/manifests/etcd.yaml",
    "kind: Pod\nspec:\n  volumes:\n  - name: etcd-data\n    hostPath:\n      path: /var/lib\n",
  );
  await runReset(f.data, { only: "remove-etcd-member" });
  assert.deepEqual(f.host.cleaned, []);
  assert.match(
    f.out.stderr.at(-1)!,
    /^\[reset\] Not deleting the contents of the etcd data directory "\/var\/lib": refusing/,
  );
});

Deno.test("phases, aliases and --skip-phases", () => {
  const wf = resetWorkflow();
  assert.deepEqual(wf.phases.map((p) => p.name), [
    "preflight",
    "remove-etcd-member",
    "cleanup-node",
  ]);
  assert.deepEqual(resolveSkipPhases(wf, ["pre-flight", "cleanupnode"]), [
    "preflight",
    "cleanup-node",
  ]);
  assert.throws(() => resolveSkipPhases(wf, ["update-cluster-status"]), /does not exist/);
});

Deno.test("skipping preflight skips the prompt; KubeadmError from the prompt keeps exit 1", async () => {
  const f = resetFixture({ inputs: {}, answers: [] });
  await runReset(f.data, { skip: ["preflight"] });
  assert.deepEqual(f.prompts, []);
  const g = resetFixture({ inputs: {}, answers: ["no"] });
  await assert.rejects(() => runReset(g.data), (e: unknown) => {
    assert.ok(e instanceof PhaseError && e.cause instanceof KubeadmError && e.exitCode === 1);
    return true;
  });
});

Deno.test("reset removes the certificate auto-renewal schedule (timer disabled, units gone)", async () => {
  const f = resetFixture({ inputs: { force: true } });
  const unit = "/etc/systemd/system/kubeadm-certs-renewal";
  f.host.files.put(`${unit}.service`, "[Service]\n");
  f.host.files.put(`${unit}.timer`, "[Timer]\n");
  f.host.init!.services.set("kubeadm-certs-renewal.timer", { enabled: true, active: true });
  await runReset(f.data);
  assert.equal(f.host.files.files.has(`${unit}.service`), false);
  assert.equal(f.host.files.files.has(`${unit}.timer`), false);
  assert.equal(f.host.init!.services.has("kubeadm-certs-renewal.timer"), false);
  assert.ok(
    f.out.all.includes(
      `[certs/auto-renewal] Removed the certificate auto-renewal: ${unit}.service, ${unit}.timer`,
    ),
  );
  const dry = resetFixture({ inputs: { force: true, dryRun: true } });
  dry.host.files.put(`${unit}.timer`, "[Timer]\n");
  await runReset(dry.data);
  assert.ok(dry.host.files.files.has(`${unit}.timer`));
  assert.ok(
    dry.out.all.includes(`[dryrun] Would remove the certificate auto-renewal: ${unit}.timer`),
  );
});

Deno.test("a join killed after adding its etcd learner: reset still removes the member (k/kubeadm#3269)", async () => {
  // No etcd manifest yet; the kube-apiserver manifest names the advertise address; the
  // cluster's etcd Pods give its members' client URLs.
  const f = resetFixture({ cluster: { etcdEndpoints: ["https://192.168.0.11:2379"] } });
  f.host.files.files.delete("/etc/kubernetes/manifests/etcd.yaml");
  f.host.files.put(
    "/etc/kubernetes/manifests/kube-apiserver.yaml",
    "kind: Pod\nspec:\n  containers:\n  - command:\n    - kube-apiserver\n    - --advertise-address=192.168.0.10\n",
  );
  f.host.etcd.members = [
    { id: "1", name: "", peerURLs: ["https://192.168.0.10:2380"], clientURLs: [], isLearner: true },
    {
      id: "2",
      name: "cp-2",
      peerURLs: ["https://192.168.0.11:2380"],
      clientURLs: ["https://192.168.0.11:2379"],
    },
  ];
  await runReset(f.data, { only: "remove-etcd-member" });
  assert.deepEqual(f.host.etcd.removed, ["1"]);
  assert.deepEqual(f.host.etcd.clients[0].endpoints, ["https://192.168.0.11:2379"]);
});
