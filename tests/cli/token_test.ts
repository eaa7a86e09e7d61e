// `kubeadm token create|list|delete` through the launcher, against the fake API server served
// over mutual TLS (the real Deno transport, a kubeconfig with embedded credentials).
import assert from "node:assert/strict";
import type { Secret } from "kubernetes-types/core/v1.d.ts";
import { tokenToSecret } from "../../core/bootstraptoken/secret.ts";
import { opensslSpkiSha256 } from "../support/openssl.ts";
import { fakeClusterKubeconfig, fakeClusterTls, withFakeCluster } from "../support/fake_cluster.ts";
import { repoRoot } from "../support/repo.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { klogMessages } from "../support/klog_lines.ts";
import { redactSecrets } from "../../core/errors.ts";

const tls = await fakeClusterTls();
const withCluster = withFakeCluster;
const kubeconfig = fakeClusterKubeconfig;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function kubeadm(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const out = await new Deno.Command(`${repoRoot}/scripts/kubeadm`, {
    args,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

const decode = (s: Secret, k: string) => atob(s.data![k]);

Deno.test("token create: stores the Secret, prints the token; an existing id is refused", async () => {
  await withCluster(async ({ api, kc }) => {
    const r = await kubeadm([
      "token",
      "create",
      "abcdef.0123456789abcdef",
      "--description",
      "for CI",
      "--ttl",
      "2h",
      "--kubeconfig",
      kc,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "abcdef.0123456789abcdef\n");
    const s = api.get<Secret>("Secret", "kube-system", "bootstrap-token-abcdef")!;
    assert.equal(s.type, "bootstrap.kubernetes.io/token");
    assert.equal(decode(s, "description"), "for CI");
    assert.equal(decode(s, "usage-bootstrap-authentication"), "true");
    assert.equal(decode(s, "auth-extra-groups"), "system:bootstrappers:kubeadm:default-node-token");
    const ttl = Date.parse(decode(s, "expiration")) - Date.now();
    assert.ok(ttl > 7_100_000 && ttl <= 7_200_000, `expiration ~2h ahead, got ${ttl}ms`);

    const again = await kubeadm(["token", "create", "abcdef.0123456789abcdef", "--kubeconfig", kc]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /a token with id "abcdef" already exists/);
    assert.doesNotMatch(again.stderr, /0123456789abcdef/);
  });
});

Deno.test("token create --print-join-command: one line with the CA pin (and the control-plane form)", async () => {
  await withCluster(async ({ server, kc }) => {
    const pin = `sha256:${await opensslSpkiSha256(tls.caCert)}`;
    const hostPort = server.url.replace("https://", "");
    const worker = await kubeadm([
      "token",
      "create",
      "qwerty.0123456789abcdef",
      "--print-join-command",
      "--kubeconfig",
      kc,
    ]);
    assert.equal(worker.code, 0, worker.stderr);
    assert.equal(
      worker.stdout,
      `kubeadm join ${hostPort} --token qwerty.0123456789abcdef --discovery-token-ca-cert-hash ${pin} \n`,
    );
    const key = "b".repeat(64);
    const cp = await kubeadm([
      "token",
      "create",
      "--print-join-command",
      `--certificate-key=${key}`,
      "--kubeconfig",
      kc,
    ]);
    assert.equal(cp.code, 0, cp.stderr);
    assert.match(
      cp.stdout,
      new RegExp(
        `^kubeadm join ${hostPort} --token [a-z0-9]{6}\\.[a-z0-9]{16} --discovery-token-ca-cert-hash ${pin} --control-plane --certificate-key ${key}\\n$`,
      ),
    );
  });
});

Deno.test("token create --config creates every bootstrapTokens entry and prints the first", async () => {
  await withCluster(async ({ api, kc, dir }) => {
    const config = `${dir}/kubeadm.yaml`;
    await Deno.writeTextFile(
      config,
      `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 192.0.2.10
bootstrapTokens:
- token: aaaaaa.0123456789abcdef
  description: first
- token: bbbbbb.0123456789abcdef
  ttl: "0"
`,
    );
    const r = await kubeadm(["token", "create", "--config", config, "--kubeconfig", kc]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "aaaaaa.0123456789abcdef\n");
    assert.equal(
      decode(api.get<Secret>("Secret", "kube-system", "bootstrap-token-aaaaaa")!, "description"),
      "first",
    );
    const second = api.get<Secret>("Secret", "kube-system", "bootstrap-token-bbbbbb")!;
    assert.equal(second.data!.expiration, undefined, "ttl 0 never expires");
    const mixed = await kubeadm(["token", "create", "--config", config, "--ttl", "1h"]);
    assert.notEqual(mixed.code, 0);
    assert.match(mixed.stderr, /can not mix '--config' with arguments \[ttl\]/);
  });
});

Deno.test("token create --v=5: upstream's [token] lines in its order, never a token's secret", async () => {
  await withCluster(async ({ kc, dir }) => {
    const secret = "0123456789abcdef";
    const created = await kubeadm([
      "token",
      "create",
      `cccccc.${secret}`,
      "--print-join-command",
      "--kubeconfig",
      kc,
      "--v=5",
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, new RegExp(`--token cccccc\\.${secret} `));
    assert.deepEqual(klogMessages(created.stderr), [
      "[token] validating mixed arguments",
      "[token] getting Clientsets from kubeconfig file",
      "[token] loading configurations",
      "[token] creating token",
    ]);
    const config = `${dir}/tokens.yaml`;
    await Deno.writeTextFile(
      config,
      `apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nbootstrapTokens:\n- token: dddddd.${secret}\n---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.37.2\n`,
    );
    const fromConfig = await kubeadm([
      "token",
      "create",
      "--config",
      config,
      "--kubeconfig",
      kc,
      "--v=5",
    ]);
    assert.equal(fromConfig.code, 0, fromConfig.stderr);
    assert.equal(fromConfig.stdout, `dddddd.${secret}\n`);
    assert.deepEqual(klogMessages(fromConfig.stderr), [
      "[token] validating mixed arguments",
      "[token] getting Clientsets from kubeconfig file",
      "[token] loading configurations",
      `loading configuration from ${JSON.stringify(config)}`,
      'the value of KubeletConfiguration.cgroupDriver is empty; setting it to "systemd"',
      "[token] creating token",
    ]);
    for (const r of [created, fromConfig]) assert.doesNotMatch(r.stderr, new RegExp(secret));
    const deleted = await kubeadm([
      "token",
      "delete",
      `cccccc.${secret}`,
      "--kubeconfig",
      kc,
      "--v=5",
    ]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(klogMessages(deleted.stderr), [
      "[token] parsing token",
      '[token] deleting token "cccccc"',
    ]);
    assert.doesNotMatch(deleted.stderr, new RegExp(secret));
  });
});

Deno.test("token create --certificate-key without --print-join-command is refused before any call", async () => {
  const r = await kubeadm([
    "token",
    "create",
    "--certificate-key",
    "c".repeat(64),
    "--kubeconfig",
    "/nonexistent/admin.conf",
  ]);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    "error: cannot use --certificate-key without --print-join-command\nTo see the stack trace of this error execute with --v=5 or higher\n",
  );
  assert.equal(r.stdout, "");
});

/** The two tokens the `token list` tests list: one expiring with usages and groups, one not. */
function putListedTokens(api: { put(o: Secret): void }): void {
  const now = new Date();
  api.put(tokenToSecret({
    token: "abcdef.0123456789abcdef",
    ttl: "24h",
    usages: ["signing", "authentication"],
    groups: ["system:bootstrappers:kubeadm:default-node-token"],
  }, now));
  api.put(tokenToSecret({ token: "zzzzzz.0123456789abcdef", description: "forever" }, now));
}

Deno.test("token list: upstream's table, json and yaml; undecodable Secrets reported and skipped", async () => {
  await withCluster(async ({ api, kc }) => {
    putListedTokens(api);
    api.put({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "bootstrap-token-broken", namespace: "kube-system" },
      type: "bootstrap.kubernetes.io/token",
      data: {},
    } as Secret);
    api.put({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "other", namespace: "kube-system" },
      type: "Opaque",
    } as Secret);

    const text = await kubeadm(["token", "list", "--kubeconfig", kc]);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.split("\n");
    assert.equal(
      lines[0],
      "TOKEN                     TTL         EXPIRES                USAGES                   DESCRIPTION                                                EXTRA GROUPS",
    );
    assert.match(
      lines[1],
      /^abcdef\.0123456789abcdef {3}23h {9}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {3}authentication,signing {3}<none> {53}system:bootstrappers:kubeadm:default-node-token$/,
    );
    assert.match(
      lines[2],
      /^zzzzzz\.0123456789abcdef {3}<forever> {3}<never> {3}<none> {19}forever {52}<none>$/,
    );
    assert.equal(lines.length, 4);
    // Upstream prints the decoding error without a newline.
    assert.equal(
      text.stderr,
      "bootstrap Token Secret has no token-id data: bootstrap-token-broken",
    );

    const json = await kubeadm(["token", "list", "-o", "json", "--kubeconfig", kc]);
    assert.equal(json.code, 0);
    const objects = json.stdout.split(/\n(?=\{)/).map((s) => JSON.parse(s));
    assert.deepEqual(objects.map((o) => [o.kind, o.apiVersion, o.token]), [
      ["BootstrapToken", "output.kubeadm.k8s.io/v1alpha3", "abcdef.0123456789abcdef"],
      ["BootstrapToken", "output.kubeadm.k8s.io/v1alpha3", "zzzzzz.0123456789abcdef"],
    ]);
    const yaml = await kubeadm(["token", "list", "--output=yaml", "--kubeconfig", kc]);
    assert.equal(yaml.code, 0);
    assert.equal(yaml.stdout.split("---\n").length, 2);
    assert.match(
      yaml.stdout,
      /^apiVersion: output\.kubeadm\.k8s\.io\/v1alpha3\ndescription: forever\n/m,
    );
    const kyaml = await kubeadm(["token", "list", "-o", "kyaml", "--kubeconfig", kc]);
    assert.equal(kyaml.code, 0, kyaml.stderr);
    assert.deepEqual(kyaml.stdout.match(/^ {2}token: "[^"]+",$/gm), [
      '  token: "abcdef.0123456789abcdef",',
      '  token: "zzzzzz.0123456789abcdef",',
    ]);
    assert.equal(kyaml.stdout.split(/^---$/m).length, 3);
  });
});

Deno.test("token list -o <template formats>: one object per token, as upstream kubeadm v1.37.2 prints them", async () => {
  await withCluster(async ({ api, kc }) => {
    putListedTokens(api);
    const upstreamKubeadm = `${await k8sBinDir()}/kubeadm`;
    const cases: { output: string; strict?: boolean; code: number }[] = [
      {
        output: 'go-template={{.token}} {{range .usages}}{{.}},{{end}}{{.expires}}{{"\\n"}}',
        code: 0,
      },
      { output: 'jsonpath={.token}{" "}{.description}{"\\n"}', code: 0 },
      { output: "jsonpath-as-json={.usages}", code: 0 },
      // Upstream's JSONPath printer keeps a range's state from one token to the next: the
      // second token fails.
      { output: "jsonpath={range .usages[*]}{@} {end}", code: 1 },
      { output: "go-template={{.description}}", strict: true, code: 1 },
    ];
    for (const c of cases) {
      const args = ["token", "list", "--kubeconfig", kc, "-o", c.output];
      if (c.strict) args.push("--allow-missing-template-keys=false");
      const ours = await kubeadm(args);
      const out = await new Deno.Command(upstreamKubeadm, {
        args,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const dec = new TextDecoder();
      assert.equal(ours.code, c.code, `${c.output}: ${ours.stderr}`);
      assert.equal(ours.code, out.code, c.output);
      assert.equal(ours.stdout, dec.decode(out.stdout), c.output);
      // Upstream names the token in its error; ours redacts its secret.
      assert.equal(ours.stderr, redactSecrets(dec.decode(out.stderr)), c.output);
      if (c.code !== 0) {
        assert.match(ours.stderr, /^error: unable to print token [a-z0-9]{6}\.<redacted>: /);
      }
    }
  });
});

Deno.test("token delete: by id or full token, stops at the first failure; --dry-run deletes nothing", async () => {
  await withCluster(async ({ api, kc }) => {
    for (const t of ["abcdef.0123456789abcdef", "zzzzzz.0123456789abcdef"]) {
      api.put(tokenToSecret({ token: t, ttl: "1h" }, new Date()));
    }
    const dry = await kubeadm(["token", "delete", "abcdef", "--dry-run", "--kubeconfig", kc]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(
      dry.stdout,
      '[dryrun] Would perform action DELETE on resource "secrets" in API group "core/v1"\n' +
        '[dryrun] Resource name "bootstrap-token-abcdef", namespace "kube-system"\n' +
        'bootstrap token "abcdef" deleted\n',
    );
    assert.ok(api.get("Secret", "kube-system", "bootstrap-token-abcdef"));

    const r = await kubeadm([
      "token",
      "delete",
      "abcdef",
      "zzzzzz.0123456789abcdef",
      "qqqqqq",
      "--kubeconfig",
      kc,
    ]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      'bootstrap token "abcdef" deleted\nbootstrap token "zzzzzz" deleted\n',
    );
    assert.match(r.stderr, /^error: failed to delete bootstrap token "qqqqqq": .*not found/);
    assert.equal(api.get("Secret", "kube-system", "bootstrap-token-abcdef"), undefined);
  });
});

Deno.test("token commands find <rootfs>/etc/kubernetes/admin.conf when nothing else exists", async () => {
  await withCluster(async ({ api, server, dir }) => {
    const rootfs = `${dir}/node`;
    await Deno.mkdir(`${rootfs}/etc/kubernetes`, { recursive: true });
    await Deno.writeTextFile(`${rootfs}/etc/kubernetes/admin.conf`, await kubeconfig(server.url));
    api.put(tokenToSecret({ token: "abcdef.0123456789abcdef" }, new Date()));
    const r = await kubeadm(["token", "list", "--rootfs", rootfs], {
      HOME: `${dir}/home`,
      KUBECONFIG: "",
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^abcdef\.0123456789abcdef {3}<forever>/m);
    const missing = await kubeadm(["token", "list", "--rootfs", `${dir}/empty`], {
      HOME: `${dir}/home`,
      KUBECONFIG: "",
    });
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /failed to load admin kubeconfig: open .*\/home\/\.kube\/config: no such file/,
    );
  });
});

Deno.test("token without a sub-command, or with an unknown one, fails", async () => {
  const none = await kubeadm(["token"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /subcommand is required/);
  assert.match(none.stdout, /Available Commands:\n {2}create /);
  const bad = await kubeadm(["token", "frobnicate"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /unknown command "frobnicate" for "kubeadm token"/);
});
