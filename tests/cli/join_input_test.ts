// `kubeadm join` refuses bad input before any network call (issue 9, finding 4): a malformed
// --discovery-token-ca-cert-hash (or caCertHashes entry) is a validation error (exit 3)
// naming the flag or field, and the API server endpoint is never contacted.
import assert from "node:assert/strict";
import { kubeadmLauncher, run } from "../support/commands.ts";
import { joinConfigurationYaml } from "../support/config.ts";
import { countingListener } from "../support/counting_listener.ts";

const TOKEN = "abcdef.0123456789abcdef";

async function join(args: string[], files: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "kts-join-input-" });
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    await Deno.mkdir(`${dir}/root`);
    const started = Date.now();
    const r = await run(
      [
        kubeadmLauncher(),
        "join",
        ...args.map((a) => a.replaceAll("$DIR", dir)),
        "--dry-run",
        "--rootfs",
        `${dir}/root`,
      ],
      { env: { TMPDIR: dir } },
    );
    const written = [...Deno.readDirSync(`${dir}/root`)].map((e) => e.name);
    return { ...r, elapsedMs: Date.now() - started, written };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a malformed --discovery-token-ca-cert-hash fails at once, naming the flag, with no request", async () => {
  const api = countingListener();
  try {
    const r = await join([
      api.endpoint,
      "--token",
      TOKEN,
      "--discovery-token-ca-cert-hash",
      "sha256:zz",
    ]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(
      r.stderr,
      /--discovery-token-ca-cert-hash: invalid hash "sha256:zz", expected a 32 byte SHA-256 hash, found 1 bytes/,
    );
    assert.equal(api.state.connections, 0);
    assert.ok(r.elapsedMs < 10_000, `took ${r.elapsedMs}ms`);
    assert.deepEqual(r.written, []);
  } finally {
    api.close();
  }
});

Deno.test("a malformed caCertHashes entry in --config fails at once, naming the field", async () => {
  const api = countingListener();
  try {
    const r = await join(["--config", "$DIR/join.yaml"], {
      "join.yaml": joinConfigurationYaml({
        endpoint: api.endpoint,
        token: TOKEN,
        caCertHashes: ["md5:0123"],
      }),
    });
    assert.equal(r.code, 3, r.stderr);
    assert.match(
      r.stderr,
      /discovery\.bootstrapToken\.caCertHashes\[0\]: unknown hash format "md5"\. Known format\(s\) are: sha256/,
    );
    assert.equal(api.state.connections, 0);
    assert.deepEqual(r.written, []);
  } finally {
    api.close();
  }
});

Deno.test("join --certificate-auto-renewal without --control-plane is refused at once, naming the flag", async () => {
  const api = countingListener();
  try {
    const r = await join([
      api.endpoint,
      "--token",
      TOKEN,
      "--discovery-token-unsafe-skip-ca-verification",
      "--certificate-auto-renewal",
    ]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(
      r.stderr,
      /^error: --certificate-auto-renewal installs a schedule .* adds a worker$/m,
    );
    assert.match(r.stderr, /^hint: give it with --control-plane/m);
    assert.equal(api.state.connections, 0);
    assert.deepEqual(r.written, []);
  } finally {
    api.close();
  }
});
