// `--rootfs` containment through the command line (issue 9, finding 2): the repro, a
// symlink inside the root pointing out of it, no longer makes `init phase certs ca` write the
// CA key outside the root.
import assert from "node:assert/strict";
import { kubeadmLauncher, run } from "../support/commands.ts";

for (const kind of ["absolute", "relative"]) {
  Deno.test(`init phase certs ca --rootfs: ${kind === "absolute" ? "an" : "a"} ${kind} link out of the root does not take ca.key out`, async () => {
    const base = await Deno.makeTempDir({ prefix: "kts-rootfs-cli-" });
    const root = `${base}/root`;
    const outside = `${base}/outside`;
    try {
      await Deno.mkdir(`${root}/etc`, { recursive: true });
      await Deno.mkdir(outside);
      await Deno.symlink(
        kind === "absolute" ? outside : `${"../".repeat(12)}${outside.slice(1)}`,
        `${root}/etc/kubernetes`,
      );
      const r = await run([kubeadmLauncher(), "init", "phase", "certs", "ca", "--rootfs", root]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual([...Deno.readDirSync(outside)], [], "nothing outside the root");
      // The link resolves inside the root, as under upstream's chroot.
      const st = await Deno.stat(`${root}${outside}/pki/ca.key`);
      assert.equal(st.mode! & 0o777, 0o600);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  });
}
