// Bad configuration files through the command line (issue 9, finding 10): a YAML alias bomb is
// a config error naming the file, with the config-error exit status (3) like any other invalid
// config, for every command that reads --config; an advertiseAddress error names the config
// field it came from.
import assert from "node:assert/strict";
import { kubeadmLauncher, run } from "../support/control_plane.ts";

function aliasBomb(kind: string): string {
  const lines = [`apiVersion: kubeadm.k8s.io/v1beta4`, `kind: ${kind}`];
  lines.push('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]');
  let prev = "a";
  for (const n of "bcdefghi") {
    lines.push(`${n}: &${n} [${Array(9).fill(`*${prev}`).join(",")}]`);
    prev = n;
  }
  return `${lines.join("\n")}\n`;
}

async function withFile<T>(text: string, fn: (path: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "kts-config-errors-" });
  try {
    const path = `${dir}/bomb.yaml`;
    await Deno.writeTextFile(path, text);
    return await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (
  const [cmd, kind] of [
    [["config", "validate"], "InitConfiguration"],
    [["init", "phase", "certs", "ca", "--dry-run"], "InitConfiguration"],
    [["join", "--dry-run"], "JoinConfiguration"],
  ] as const
) {
  Deno.test(`kubeadm ${cmd.join(" ")} --config <alias bomb>: config error naming the file, exit 3`, async () => {
    await withFile(aliasBomb(kind), async (path) => {
      const r = await run([kubeadmLauncher(), ...cmd, "--config", path]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`${path.replaceAll(".", "\\.")}: invalid YAML in document 1: .*aliases`),
      );
      assert.doesNotMatch(r.stderr, /at \S+\.ts:\d+/, "no stack trace");
    });
  });
}

Deno.test("init --config with a bad localAPIEndpoint.advertiseAddress names the field", async () => {
  await withFile(
    "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nlocalAPIEndpoint:\n  advertiseAddress: notanip\n",
    async (path) => {
      const r = await run([kubeadmLauncher(), "config", "validate", "--config", path]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        /couldn't use "notanip" as "localAPIEndpoint\.advertiseAddress", must be ipv4 or ipv6 address/,
      );
    },
  );
});
