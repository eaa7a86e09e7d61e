// What reset refuses to empty.
import assert from "node:assert/strict";
import {
  assertSafeCleanupDir,
  cleanPath,
  cleanupDirProblem,
} from "../../../../core/phases/reset/safety.ts";
import { FlagError } from "../../../../core/errors.ts";

Deno.test("dangerous directories are refused with a reason", () => {
  const cases: [string, RegExp][] = [
    ["", /empty/],
    ["   ", /empty/],
    ["etc/kubernetes/pki", /absolute/],
    ["./pki", /absolute/],
    ["/", /root directory/],
    ["//", /root directory/],
    ["/etc", /top-level/],
    ["/home/", /top-level/],
    ["/etc/kubernetes/../..", /'\.' or '\.\.'/],
    ["/etc/kubernetes/pki/..", /'\.' or '\.\.'/],
    ["/etc/./kubernetes", /'\.' or '\.\.'/],
    ["/var/lib", /system directory/],
    ["/usr/local/", /system directory/],
    ["/etc/kubernetes", /system directory/],
  ];
  for (const [path, why] of cases) {
    assert.match(cleanupDirProblem(path) ?? "(accepted)", why, JSON.stringify(path));
  }
});

Deno.test("kubeadm's own directories are accepted", () => {
  for (
    const path of [
      "/etc/kubernetes/pki",
      "/etc/kubernetes/manifests",
      "/var/lib/kubelet",
      "/var/lib/etcd",
      "/etc/kubernetes/tmp",
      "/srv/k8s/pki",
    ]
  ) {
    assert.equal(cleanupDirProblem(path), undefined, path);
  }
  assert.equal(cleanPath("//etc//kubernetes/pki/"), "/etc/kubernetes/pki");
});

Deno.test("assertSafeCleanupDir throws a FlagError naming the field", () => {
  assert.throws(() => assertSafeCleanupDir("/", "--cert-dir"), (e: unknown) => {
    assert.ok(e instanceof FlagError);
    assert.equal(e.field, "--cert-dir");
    assert.equal(e.value, "/");
    assert.equal(e.exitCode, 3);
    assert.match(e.message, /^unsafe directory to clean "\/": refusing/);
    return true;
  });
  assert.equal(assertSafeCleanupDir("/etc/kubernetes/pki/", "--cert-dir"), "/etc/kubernetes/pki");
});
