// `kubeadm discovery-check` on a cluster-info file: verdict text and JSON, exit statuses, and
// the token secret never printed.
import assert from "node:assert/strict";
import { createProgram } from "../../cli/program.ts";
import { registerDiscoveryCheck, runDiscoveryCheck } from "../../cli/commands/discovery_check.ts";
import { normaliseArgv } from "../../cli/flags.ts";
import { fakeCluster, TOKEN } from "../core/phases/join/support.ts";
import { DiscoveryError, FlagError } from "../../core/errors.ts";

async function clusterInfoFile(): Promise<{ path: string; pin: string }> {
  const cluster = await fakeCluster();
  const cm = cluster.api.get("ConfigMap", "kube-public", "cluster-info");
  const path = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(path, JSON.stringify(cm));
  return { path, pin: cluster.pin };
}

Deno.test("verified: text output and exit status 0", async () => {
  const { path, pin } = await clusterInfoFile();
  try {
    const lines: string[] = [];
    const code = await runDiscoveryCheck({
      clusterInfo: path,
      token: TOKEN,
      discoveryTokenCaCertHash: [pin],
    }, (l) => lines.push(l));
    assert.equal(code, 0);
    assert.match(lines[0], /^VERIFIED: the cluster-info kubeconfig is signed with token "abcdef"/);
    assert.ok(lines.some((l) => l === `  [ok] ca-pin: CA public key ${pin} is pinned`));
    assert.doesNotMatch(lines.join("\n"), /0123456789abcdef/);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("rejected: JSON verdict and a non-zero exit status", async () => {
  const { path } = await clusterInfoFile();
  try {
    const lines: string[] = [];
    const code = await runDiscoveryCheck({
      clusterInfo: path,
      token: "abcdef.ffffffffffffffff",
      discoveryTokenCaCertHash: [`sha256:${"1".repeat(64)}`],
      output: "json",
    }, (l) => lines.push(l));
    assert.equal(code, 1);
    const verdict = JSON.parse(lines.join("\n"));
    assert.equal(verdict.verdict, "rejected");
    assert.equal(
      verdict.reason,
      "failed to verify JWS signature of received cluster info object, can't trust this API Server",
    );
    assert.doesNotMatch(lines.join("\n"), /ffffffffffffffff/);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("the command: required flags, bad URLs, a rejection ends with an error", async () => {
  const { path } = await clusterInfoFile();
  const program = createProgram(registerDiscoveryCheck);
  const parse = (args: string[]) => program.parseAsync(normaliseArgv(args), { from: "user" });
  try {
    await assert.rejects(() => parse(["discovery-check", "--token", TOKEN]), FlagError);
    await assert.rejects(
      () => parse(["discovery-check", "--cluster-info", "http://x/y", "--token", TOKEN]),
      /if a URL is used, the scheme must be https/,
    );
    const original = Deno.stdout.writeSync;
    Deno.stdout.writeSync = (b: Uint8Array) => b.length;
    try {
      await assert.rejects(
        () =>
          parse([
            "discovery-check",
            "--cluster-info",
            path,
            "--token",
            TOKEN,
            "--discovery-token-unsafe-skip-ca-verification=false",
          ]),
        DiscoveryError,
      );
    } finally {
      Deno.stdout.writeSync = original;
    }
  } finally {
    await Deno.remove(path);
  }
});
