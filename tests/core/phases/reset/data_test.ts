// buildResetData: precedence of flags, ResetConfiguration and cluster values; validation.
import assert from "node:assert/strict";
import { FlagError, ValidationError } from "../../../../core/errors.ts";
import { resetFixture } from "./support.ts";

Deno.test("defaults", () => {
  const { data } = resetFixture({ inputs: {} });
  assert.equal(data.certificatesDir, "/etc/kubernetes/pki");
  assert.equal(data.criSocket, "unix:///var/run/containerd/containerd.sock");
  assert.equal(data.dryRun, false);
  assert.equal(data.force, false);
  assert.equal(data.cleanupTmpDir, false);
  assert.deepEqual(data.unmountFlags, []);
  assert.deepEqual(data.skipPhases, []);
});

Deno.test("flags win over the ResetConfiguration, which wins over the cluster", () => {
  const config = {
    certificatesDir: "/srv/pki",
    criSocket: "unix:///run/crio/crio.sock",
    dryRun: true,
    force: true,
    cleanupTmpDir: true,
    skipPhases: ["cleanup-node"],
    unmountFlags: ["MNT_DETACH"],
    ignorePreflightErrors: ["IsPrivilegedUser"],
  };
  const cluster = { certificatesDir: "/cluster/pki", criSocket: "unix:///cluster.sock" };
  const fromConfig = resetFixture({ inputs: {}, config, cluster }).data;
  assert.equal(fromConfig.certificatesDir, "/srv/pki");
  assert.equal(fromConfig.criSocket, "unix:///run/crio/crio.sock");
  assert.equal(fromConfig.dryRun && fromConfig.force && fromConfig.cleanupTmpDir, true);
  assert.deepEqual(fromConfig.skipPhases, ["cleanup-node"]);
  assert.deepEqual(fromConfig.unmountFlags, ["MNT_DETACH"]);
  assert.ok(fromConfig.ignore.has("isprivilegeduser"));

  const fromFlags = resetFixture({
    inputs: {
      certificatesDir: "/flag/pki",
      criSocket: "unix:///flag.sock",
      dryRun: false,
      force: false,
      cleanupTmpDir: false,
      skipPhases: ["preflight"],
    },
    config,
    cluster,
  }).data;
  assert.equal(fromFlags.certificatesDir, "/flag/pki");
  assert.equal(fromFlags.criSocket, "unix:///flag.sock");
  assert.equal(fromFlags.dryRun || fromFlags.force || fromFlags.cleanupTmpDir, false);
  assert.deepEqual(fromFlags.skipPhases, ["preflight"]);

  const fromCluster = resetFixture({ inputs: {}, cluster }).data;
  assert.equal(fromCluster.certificatesDir, "/cluster/pki");
  assert.equal(fromCluster.criSocket, "unix:///cluster.sock");
});

Deno.test("dangerous certificate directories are refused before anything runs", () => {
  for (const certificatesDir of ["/", "", "pki", "/etc/kubernetes/pki/../..", "/etc", "/var/lib"]) {
    assert.throws(() => resetFixture({ inputs: { certificatesDir } }), FlagError, certificatesDir);
  }
  assert.throws(
    () => resetFixture({ inputs: {}, config: { certificatesDir: "/" } }),
    (e: unknown) => e instanceof FlagError && e.field === "certificatesDir",
  );
});

Deno.test("unknown unmount flags and ignore names are rejected", () => {
  assert.throws(
    () => resetFixture({ config: { unmountFlags: ["MNT_DETACH", "MNT_LAZY"] } }),
    (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.match(
        e.message,
        /^unmountFlags: Invalid value: "index 1": unknown unmount flag MNT_LAZY$/,
      );
      return true;
    },
  );
  assert.throws(
    () => resetFixture({ inputs: { ignorePreflightErrors: ["isroot"] } }),
    /valid names/,
  );
  assert.throws(
    () => resetFixture({ inputs: { ignorePreflightErrors: ["all", "Swap"] } }),
    /don't specify individual checks if 'all' is used/,
  );
});
