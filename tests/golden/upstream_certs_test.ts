// Golden comparison of the day-2 certificate commands: upstream kubeadm v1.37.2 and ours run
// on copies of the same node files (made by upstream's `init phase certs all` and
// `kubeconfig all`) and must agree: `check-expiration` output (times aside), certificates
// renewed by both equal field by field (serial, validity and key aside), `generate-csr` file
// set and CSR contents, `kubeconfig user`, and bad input (the same error, non-zero exit, and
// none of our files changed). Every renewed certificate is also checked with openssl.
import assert from "node:assert/strict";
import type { Command } from "commander";
import { buildProgram } from "../../cli/program.ts";
import { PERSISTENT_FLAGS } from "../../cli/flags.ts";
import { GOLDEN_DEFAULT_CONFIG } from "../support/config.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { run, type RunResult } from "../support/commands.ts";
import { listFiles, repoRoot } from "../support/repo.ts";
import { openssl } from "../support/openssl.ts";
import {
  assertPairedAndSigned,
  certView,
  keyView,
  kubeconfigView,
  validitySeconds,
} from "../support/pki_views.ts";
import { certSpec, KUBEADM_CERTS } from "../../core/certs/certlist.ts";

const CONFIGS: Record<string, string> = {
  "defaults (RSA-2048)": GOLDEN_DEFAULT_CONFIG,
  "customised (ECDSA-P256, endpoint, SANs)": `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 192.0.2.20
  bindPort: 7443
nodeRegistration:
  name: cp-two
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
clusterName: golden
encryptionAlgorithm: ECDSA-P256
controlPlaneEndpoint: api.example.test
networking:
  serviceSubnet: 10.100.0.0/16
  dnsDomain: golden.local
apiServer:
  certSANs: [Extra.Example.Test, 198.51.100.7, "*.wild.example.test"]
etcd:
  local:
    serverCertSANs: [etcd.example.test]
    peerCertSANs: [10.9.9.9]
`,
};
const ECDSA = "customised (ECDSA-P256, endpoint, SANs)";

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn });

/** Upstream chroots into `--rootfs`, so its `--config` is inside the root. */
function upstream(root: string, args: string[]): Promise<RunResult> {
  return k8sBinDir().then((bin) =>
    run([`${bin}/kubeadm`, ...args.map((a) => a === "@cfg" ? "/cfg.yaml" : a), "--rootfs", root])
  );
}

function ours(root: string, args: string[]): Promise<RunResult> {
  return run([
    `${repoRoot}/scripts/kubeadm`,
    ...args.map((a) => a === "@cfg" ? `${root}/cfg.yaml` : a),
    "--rootfs",
    root,
  ]);
}

/**
 * A node's files as upstream's `init` phases make them, with admin.conf pointing at a port
 * nothing listens on, so reading the cluster configuration fails at once for both tools.
 */
async function baseNode(config: string): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "kts-golden-certs-" });
  await Deno.writeTextFile(`${root}/cfg.yaml`, config);
  for (const phase of [["certs", "all"], ["kubeconfig", "all"]]) {
    const r = await upstream(root, ["init", "phase", ...phase, "--config", "@cfg"]);
    assert.equal(r.code, 0, `upstream init phase ${phase.join(" ")}: ${r.stderr}`);
  }
  const admin = `${root}/etc/kubernetes/admin.conf`;
  const text = await Deno.readTextFile(admin);
  await Deno.writeTextFile(admin, text.replace(/server: \S+/, "server: https://127.0.0.1:1"));
  return root;
}

async function copyTree(from: string): Promise<string> {
  const to = await Deno.makeTempDir({ prefix: "kts-golden-certs-" });
  const r = await run(["cp", "-a", `${from}/.`, to]);
  assert.equal(r.code, 0, r.stderr);
  return to;
}

/** Every file under the root: path → mode and content. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of await listFiles(root, "")) {
    const st = await Deno.stat(f);
    out.set(
      f.slice(root.length),
      `${(st.mode! & 0o7777).toString(8)} ${await Deno.readTextFile(f)}`,
    );
  }
  return out;
}

async function withRoots(
  roots: string[],
  fn: () => Promise<void>,
): Promise<void> {
  try {
    await fn();
  } finally {
    for (const r of roots) await Deno.remove(r, { recursive: true });
  }
}

/** The check-expiration table with the RESIDUAL TIME column blanked. */
function maskResidual(text: string): string {
  return text.replace(/(UTC\s+)(\S+)(\s+)/g, (_m, a, r, b) => `${a}${"~".repeat(r.length)}${b}`);
}

/** Structured output with `residualTime` values blanked. */
function maskResidualField(text: string): string {
  return text.replace(/("?residualTime"?:\s*)-?\d+/g, "$1~");
}

/** Upstream's error text: the `error: ` line without the stack-trace hint. */
function upstreamError(r: RunResult): string {
  const line = r.stderr.split("\n").find((l) => l.startsWith("error: "));
  assert.ok(line, `upstream printed an error: ${r.stderr}`);
  return line.slice("error: ".length);
}

/** The CA base name of each leaf (`etcd/peer` → `etcd/ca`). */
const CA_OF: Record<string, string> = Object.fromEntries(
  KUBEADM_CERTS.filter((s) => s.caName).map((s) => [s.baseName, certSpec(s.caName!).baseName]),
);

/** Splits a kubeconfig's embedded client certificate and key into files for openssl. */
async function kubeconfigPair(path: string, dir: string): Promise<{ cert: string; key: string }> {
  const text = await Deno.readTextFile(path);
  const data = (k: string) => atob(text.match(new RegExp(`${k}: (\\S+)`))![1]);
  const base = `${dir}/${path.split("/").pop()}`;
  await Deno.writeTextFile(`${base}.crt`, data("client-certificate-data"));
  await Deno.writeTextFile(`${base}.key`, data("client-key-data"));
  return { cert: `${base}.crt`, key: `${base}.key` };
}

/** A key or kubeconfig has the same openssl view in both trees; says which it was. */
async function assertSameKeyOrKubeconfig(
  rel: string,
  our: string,
  up: string,
): Promise<"key" | "kubeconfig" | undefined> {
  if (rel.endsWith(".key")) {
    assert.equal(await keyView(`${our}${rel}`), await keyView(`${up}${rel}`), rel);
    return "key";
  }
  if (rel.endsWith(".conf")) {
    assert.deepEqual(
      await kubeconfigView(`${our}${rel}`),
      await kubeconfigView(`${up}${rel}`),
      rel,
    );
    return "kubeconfig";
  }
  return undefined;
}

function subject(cert: string): Promise<string> {
  return openssl(["x509", "-in", cert, "-noout", "-subject", "-nameopt", "RFC2253"]);
}

for (const [name, config] of Object.entries(CONFIGS)) {
  test(`certs check-expiration matches upstream kubeadm v1.37.2: ${name}`, async () => {
    const root = await baseNode(config);
    await withRoots([root], async () => {
      const cases = async (label: string) => {
        const u = await upstream(root, ["certs", "check-expiration"]);
        const o = await ours(root, ["certs", "check-expiration"]);
        assert.equal(u.code, 0, `${label} upstream: ${u.stderr}`);
        assert.equal(o.code, 0, `${label} ours: ${o.stderr}`);
        assert.equal(maskResidual(o.stdout), maskResidual(u.stdout), `${label}: text`);
        for (const format of ["json", "yaml", "kyaml"]) {
          const uj = await upstream(root, ["certs", "check-expiration", "-o", format]);
          const oj = await ours(root, ["certs", "check-expiration", "-o", format]);
          assert.equal(oj.code, 0, oj.stderr);
          assert.equal(
            maskResidualField(oj.stdout),
            maskResidualField(uj.stdout),
            `${label}: ${format}`,
          );
        }
      };
      await cases("all present");
      // Missing files and an external etcd CA (no etcd/ca.key, valid leaves).
      await Deno.remove(`${root}/etc/kubernetes/pki/front-proxy-client.crt`);
      await Deno.remove(`${root}/etc/kubernetes/scheduler.conf`);
      await Deno.remove(`${root}/etc/kubernetes/pki/etcd/ca.key`);
      await cases("missing and external");
      // A CA certificate that is gone while its leaves remain: the same error, exit 1.
      await Deno.remove(`${root}/etc/kubernetes/pki/etcd/ca.crt`);
      const u = await upstream(root, ["certs", "check-expiration"]);
      const o = await ours(root, ["certs", "check-expiration"]);
      assert.equal(u.code, 1);
      assert.equal(o.code, 1);
      assert.ok(o.stderr.includes(upstreamError(u)), `${o.stderr} vs ${u.stderr}`);
    });
  });

  test(`certs renew all matches upstream kubeadm v1.37.2 field by field: ${name}`, async () => {
    const base = await baseNode(config);
    const up = await copyTree(base);
    const our = await copyTree(base);
    const tmp = await Deno.makeTempDir();
    await withRoots([base, up, our, tmp], async () => {
      const u = await upstream(up, ["certs", "renew", "all"]);
      const o = await ours(our, ["certs", "renew", "all"]);
      assert.equal(u.code, 0, u.stderr);
      assert.equal(o.code, 0, o.stderr);
      assert.equal(o.stdout, u.stdout, "same messages");
      const [upFiles, ourFiles, baseFiles] = await Promise.all([up, our, base].map(snapshot));
      assert.deepEqual(
        [...ourFiles.entries()].map(([p, v]) => [p, v.split(" ")[0]]),
        [...upFiles.entries()].map(([p, v]) => [p, v.split(" ")[0]]),
        "same files, same modes",
      );
      for (const rel of upFiles.keys()) {
        const changed = baseFiles.get(rel) !== upFiles.get(rel);
        assert.equal(baseFiles.get(rel) !== ourFiles.get(rel), changed, `${rel} changed by both`);
        if (!changed) continue;
        if (rel.endsWith(".crt")) {
          assert.equal(await certView(`${our}${rel}`), await certView(`${up}${rel}`), rel);
          assert.equal(
            await validitySeconds(`${our}${rel}`),
            await validitySeconds(`${up}${rel}`),
            `${rel} validity`,
          );
          assert.notEqual(await certView(`${our}${rel}`), "", rel);
          const baseName = rel.replace("/etc/kubernetes/pki/", "").replace(/\.crt$/, "");
          await assertPairedAndSigned(
            `${our}${rel}`,
            `${our}${rel.replace(/\.crt$/, ".key")}`,
            `${our}/etc/kubernetes/pki/${CA_OF[baseName]}.crt`,
          );
          assert.equal(
            await subject(`${our}${rel}`),
            await subject(`${base}${rel}`),
            `${rel} keeps its subject`,
          );
        } else if (await assertSameKeyOrKubeconfig(rel, our, up) === "key") {
          continue;
        } else if (rel.endsWith(".conf")) {
          const pair = await kubeconfigPair(`${our}${rel}`, tmp);
          await assertPairedAndSigned(pair.cert, pair.key, `${our}/etc/kubernetes/pki/ca.crt`);
          const before = await kubeconfigPair(`${base}${rel}`, `${tmp}`).then((p) =>
            subject(p.cert)
          );
          assert.equal(await subject(pair.cert), before, `${rel} keeps CN/O`);
        } else {
          assert.fail(`${rel} changed but is neither a certificate, a key nor a kubeconfig`);
        }
      }
      // Every renewal target changed: 7 certificates with their keys, 4 kubeconfigs.
      const changed = [...upFiles.keys()].filter((r) => baseFiles.get(r) !== upFiles.get(r));
      assert.equal(changed.length, 18, changed.join(" "));
    });
  });
}

test("certs renew <name>: upstream's lines, then the static Pods to restart", async () => {
  const base = await baseNode(CONFIGS[ECDSA]);
  const up = await copyTree(base);
  await withRoots([base, up], async () => {
    for (
      const [target, pods] of [["etcd-peer", "etcd static Pod, so that it"], ["admin.conf", ""]]
    ) {
      const u = await upstream(up, ["certs", "renew", target]);
      const o = await ours(base, ["certs", "renew", target]);
      assert.equal(u.code, 0, u.stderr);
      assert.equal(o.code, 0, o.stderr);
      assert.ok(o.stdout.startsWith(u.stdout), `${o.stdout} starts with ${u.stdout}`);
      const extra = o.stdout.slice(u.stdout.length);
      if (pods) assert.match(extra, new RegExp(`^\\nYou must restart the ${pods} can use`));
      else assert.equal(extra, "");
    }
  });
});

test("certs renew refuses bad input like upstream, naming the file and changing nothing", async () => {
  const base = await baseNode(CONFIGS[ECDSA]);
  await withRoots([base], async () => {
    const cases: {
      name: string;
      break: (root: string) => Promise<void>;
      args: string[];
      exit: number;
      names?: string;
      reasonDiffers?: boolean;
      /** A deliberate difference: each tool's own message. */
      ours?: RegExp;
      upstream?: RegExp;
      /** Our hint line. */
      hint?: RegExp;
    }[] = [
      {
        name: "unknown certificate name",
        break: () => Promise.resolve(),
        args: ["certs", "renew", "apiserver-bogus"],
        exit: 1,
      },
      {
        name: "mismatched CA key",
        break: async (root) => {
          await run([
            "openssl",
            "ecparam",
            "-name",
            "prime256v1",
            "-genkey",
            "-noout",
            "-out",
            `${root}/etc/kubernetes/pki/ca.key`,
          ]);
        },
        args: ["certs", "renew", "all"],
        exit: 1,
        names: "/etc/kubernetes/pki/ca.key",
        // Refused when the CA is loaded, naming both files (README, differences from upstream).
        ours:
          /^error: the private key file \/etc\/kubernetes\/pki\/ca\.key does not match the certificate \/etc\/kubernetes\/pki\/ca\.crt$/m,
        upstream:
          /^error: failed to renew certificate admin\.conf: unable to sign certificate: x509: provided PrivateKey doesn't match parent's PublicKey$/m,
        // A running cluster trusts its CA: restore the key, never regenerate the pair.
        hint:
          /^hint: restore the key \/etc\/kubernetes\/pki\/ca\.crt was issued for from a backup of \/etc\/kubernetes\/pki or from another control-plane node; do not remove or regenerate the ca certificate authority: /m,
      },
      {
        name: "missing CA key whose leaves do not verify",
        break: async (root) => {
          await Deno.remove(`${root}/etc/kubernetes/pki/etcd/ca.key`);
          await Deno.remove(`${root}/etc/kubernetes/pki/etcd/peer.key`);
        },
        args: ["certs", "renew", "etcd-server"],
        exit: 1,
        names: "/etc/kubernetes/pki/etcd/peer.key",
      },
      {
        name: "unreadable kubeconfig",
        break: async (root) => {
          await Deno.writeTextFile(`${root}/etc/kubernetes/controller-manager.conf`, "kind: [");
        },
        args: ["certs", "renew", "controller-manager.conf"],
        exit: 1,
        names: "/etc/kubernetes/controller-manager.conf",
        // go-yaml's parser words the YAML problem its own way: compare up to the reason.
        reasonDiffers: true,
      },
      {
        name: "external CA (no key, valid leaves): reported, not renewed",
        break: async (root) => {
          await Deno.remove(`${root}/etc/kubernetes/pki/front-proxy-ca.key`);
        },
        args: ["certs", "renew", "front-proxy-client"],
        exit: 0,
      },
    ];
    for (const c of cases) {
      const up = await copyTree(base);
      const our = await copyTree(base);
      await withRoots([up, our], async () => {
        await c.break(up);
        // The same broken files for both (the mismatched key is random).
        await run(["rm", "-rf", our]);
        await run(["cp", "-a", up, our]);
        const before = await snapshot(our);
        const u = await upstream(up, c.args);
        const o = await ours(our, c.args);
        assert.equal(u.code, c.exit, `${c.name}: upstream ${u.stderr}`);
        assert.equal(o.code, c.exit, `${c.name}: ours ${o.stderr}`);
        assert.deepEqual(await snapshot(our), before, `${c.name}: no file changed`);
        if (c.exit === 0) {
          assert.equal(o.stdout, u.stdout, c.name);
        } else if (c.name === "unknown certificate name") {
          // Both in cobra's words.
          assert.match(u.stderr, /unknown command "apiserver-bogus" for "kubeadm certs renew"/);
          assert.match(o.stderr, /unknown command "apiserver-bogus" for "kubeadm certs renew"/);
        } else if (c.ours && c.upstream) {
          assert.match(u.stderr, c.upstream, c.name);
          assert.match(o.stderr, c.ours, c.name);
        } else {
          const message = upstreamError(u);
          const want = c.reasonDiffers
            ? message.slice(0, message.indexOf(c.names!) + c.names!.length + 2)
            : message;
          assert.ok(o.stderr.includes(want), `${c.name}: ${o.stderr} vs ${u.stderr}`);
          assert.ok(o.stderr.includes(c.names!), `${c.name}: names ${c.names}`);
        }
        if (c.hint) assert.match(o.stderr, c.hint, `${c.name}: hint`);
        // No refusal of `certs renew` may advise removing or regenerating the cluster's CA.
        assert.doesNotMatch(o.stderr, /have them generated|remove both files|init phase certs/);
      });
    }
  });
});

test("certs generate-csr matches upstream kubeadm v1.37.2: files, modes, CSRs, kubeconfigs", async () => {
  const up = await Deno.makeTempDir({ prefix: "kts-golden-csr-" });
  const our = await Deno.makeTempDir({ prefix: "kts-golden-csr-" });
  await withRoots([up, our], async () => {
    for (const r of [up, our]) await Deno.writeTextFile(`${r}/cfg.yaml`, CONFIGS[ECDSA]);
    const u = await upstream(up, ["certs", "generate-csr", "--config", "@cfg"]);
    const o = await ours(our, ["certs", "generate-csr", "--config", "@cfg"]);
    assert.equal(u.code, 0, u.stderr);
    assert.equal(o.code, 0, o.stderr);
    // Upstream lists a directory's entries in Go map order: compare them as sets.
    const groups = (t: string) =>
      t.trim().split(/\n(?=generating)/).map((g) => {
        const [head, ...names] = g.split("\n");
        return [head, names.sort()];
      });
    assert.deepEqual(groups(o.stdout), groups(u.stdout));
    const [upFiles, ourFiles] = await Promise.all([up, our].map(snapshot));
    assert.deepEqual(
      [...ourFiles.entries()].map(([p, v]) => [p, v.split(" ")[0]]).sort(),
      [...upFiles.entries()].map(([p, v]) => [p, v.split(" ")[0]]).sort(),
      "same files, same modes",
    );
    for (const rel of upFiles.keys()) {
      if (rel.endsWith(".csr")) {
        const view = async (p: string) =>
          (await openssl(["req", "-in", p, "-noout", "-text", "-nameopt", "RFC2253"]))
            .split("\n")
            .filter((l) => !/^\s+([0-9a-f]{2}:)+[0-9a-f]{0,2}\s*$/.test(l))
            .join("\n");
        assert.equal(await view(`${our}${rel}`), await view(`${up}${rel}`), rel);
        const verify = await run(["openssl", "req", "-in", `${our}${rel}`, "-noout", "-verify"]);
        assert.equal(verify.code, 0, `${rel}: ${verify.stderr}`);
      } else {
        await assertSameKeyOrKubeconfig(rel, our, up);
      }
    }
    // Run again: both refuse to overwrite, naming the first file in the way.
    const u2 = await upstream(up, ["certs", "generate-csr", "--config", "@cfg"]);
    const o2 = await ours(our, ["certs", "generate-csr", "--config", "@cfg"]);
    assert.equal(u2.code, 1);
    assert.equal(o2.code, 1);
    assert.match(upstreamError(u2), /^file already exists: key or CSR \/etc\/kubernetes\/pki\//);
    assert.match(o2.stderr, /^error: file already exists: key or CSR \/etc\/kubernetes\/pki\//m);
  });
});

test("kubeconfig user matches upstream kubeadm v1.37.2 (token and client certificate)", async () => {
  const root = await baseNode(CONFIGS[ECDSA]);
  const tmp = await Deno.makeTempDir();
  await withRoots([root, tmp], async () => {
    const token = "kubeconfig user --client-name bot --token abc.def --config @cfg".split(" ");
    const u = await upstream(root, token);
    const o = await ours(root, token);
    assert.equal(u.code, 0, u.stderr);
    assert.equal(o.code, 0, o.stderr);
    assert.equal(o.stdout, u.stdout, "token kubeconfig byte for byte");
    const cert =
      "kubeconfig user --client-name jane --org team-b,team-a --validity-period 48h --config @cfg"
        .split(" ");
    const uc = await upstream(root, cert);
    const oc = await ours(root, cert);
    assert.equal(oc.code, 0, oc.stderr);
    await Deno.writeTextFile(`${tmp}/up.conf`, uc.stdout);
    await Deno.writeTextFile(`${tmp}/ours.conf`, oc.stdout);
    assert.deepEqual(
      await kubeconfigView(`${tmp}/ours.conf`),
      await kubeconfigView(`${tmp}/up.conf`),
    );
    const pair = await kubeconfigPair(`${tmp}/ours.conf`, tmp);
    await assertPairedAndSigned(pair.cert, pair.key, `${root}/etc/kubernetes/pki/ca.crt`);
    assert.equal(await validitySeconds(pair.cert) > 0, true);
    const upPair = await kubeconfigPair(`${tmp}/up.conf`, `${tmp}`);
    const end = async (p: string) =>
      Date.parse((await openssl(["x509", "-in", p, "-noout", "-enddate"])).split("=")[1]);
    assert.ok(
      Math.abs(await end(pair.cert) - await end(upPair.cert)) < 120_000,
      "NotAfter now+48h",
    );
    assert.ok(oc.stdout.endsWith("\n\n") && uc.stdout.endsWith("\n\n"), "Println's extra newline");
  });
});

/** Upstream's local flags of a command, from `--help` (cobra prints each on one line). */
async function upstreamFlags(path: string[]): Promise<Map<string, string>> {
  const r = await run([`${await k8sBinDir()}/kubeadm`, ...path, "--help"]);
  assert.equal(r.code, 0, r.stderr);
  const section = r.stdout.split("\nFlags:\n")[1].split("\n\nGlobal Flags:")[0];
  const flags = new Map<string, string>();
  for (const line of section.split("\n")) {
    const m = line.match(/^\s+(?:-\w, )?--([\w-]+)(?: \w+)?\s{2,}(.*)$/);
    assert.ok(m, `upstream flag line: ${line}`);
    if (m[1] !== "help") flags.set(m[1], m[2]);
  }
  return flags;
}

/** Upstream's sub-commands of a command, from `--help`. */
async function upstreamSubcommands(path: string[]): Promise<string[]> {
  const r = await run([`${await k8sBinDir()}/kubeadm`, ...path, "--help"]);
  assert.equal(r.code, 0, r.stderr);
  const section = r.stdout.split("\nAvailable Commands:\n")[1].split("\n\n")[0];
  return section.split("\n").map((l) => l.trim().split(/\s+/)[0]).filter((n) => n !== "help");
}

/** Our whole command tree, as the CLI builds it. */
const program = await buildProgram();

/** Our command at `path`, as the CLI builds it. */
function ourCommand(path: string[]): Command {
  let cmd = program;
  for (const name of path) {
    const next = cmd.commands.find((c) => c.name() === name);
    assert.ok(next, `kubeadm ${path.join(" ")}`);
    cmd = next;
  }
  return cmd;
}

/** Our local flags of a command (the global ones left out), with their help. */
function ourFlags(path: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (const o of ourCommand(path).options) {
    const name = o.long!.replace(/^--/, "");
    if (o.hidden || (PERSISTENT_FLAGS as readonly string[]).includes(name)) continue;
    flags.set(name, o.description);
  }
  return flags;
}

test("certs and kubeconfig commands take upstream's flags, help texts and defaults from the registry", async () => {
  // Deliberate differences (README): our --dry-run, --restart and --fail-if-expiring-within.
  const extra: Record<string, string[]> = {
    renew: ["dry-run", "restart"],
    "check-expiration": ["fail-if-expiring-within"],
  };
  const renewNames = await upstreamSubcommands(["certs", "renew"]);
  assert.deepEqual(
    ourCommand(["certs", "renew"]).commands.map((c) => c.name()).sort(),
    [...renewNames].sort(),
  );
  const paths = [
    ["certs", "certificate-key"],
    ["certs", "check-expiration"],
    ["certs", "generate-csr"],
    ...renewNames.map((n) => ["certs", "renew", n]),
    ["kubeconfig", "user"],
  ];
  for (const path of paths) {
    const want = await upstreamFlags(path);
    const have = ourFlags(path);
    for (const name of extra[path.at(-1)!] ?? extra[path.at(-2)!] ?? []) {
      assert.ok(have.delete(name), `${path.join(" ")}: --${name}`);
    }
    assert.deepEqual(
      Object.fromEntries(have),
      Object.fromEntries(want),
      `kubeadm ${path.join(" ")}: flags and help`,
    );
  }
});
