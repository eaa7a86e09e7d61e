// The core in real headless Chromium: upstream's vectors against dist/kubeadm-core.js, and the
// offline verifier page dist/verify.html opened from file:// and driven like a user would.
import assert from "node:assert/strict";
import * as core from "../../web/core_entry.ts";
import { Chromium } from "../support/chromium.ts";
import { openssl, opensslSpkiSha256 } from "../support/openssl.ts";
import { vectors } from "../support/vectors.ts";
import { buildWeb, serveBuild, type WebBuild } from "../support/web_build.ts";

const TOKEN = "abcdef.k8ssecretvalue42";
const SECRET = "k8ssecretvalue42";

Deno.test("the bundle passes every vector in headless Chromium", async () => {
  const build = await buildWeb();
  await Deno.writeTextFile(
    `${build.dir}/index.html`,
    `<!doctype html><meta charset="utf-8"><title>vectors</title><script type="module">
import * as api from "./kubeadm-core.js";
import { runVectors } from "./vectors.mjs";
window.vectorResults = await runVectors(api);
</script>`,
  );
  const server = serveBuild(build.dir);
  const browser = await Chromium.launch();
  try {
    await browser.goto(`http://127.0.0.1:${server.addr.port}/`);
    const results = await browser.waitFor<{ name: string; ok: boolean; error?: string }[]>(
      "window.vectorResults",
      60_000,
    );
    assert.deepEqual(results.map((r) => r.name), vectors.map((v) => v.name), "every vector ran");
    assert.deepEqual(results.filter((r) => !r.ok), [], "failures in Chromium");
    const ua = await browser.evaluate<string>("navigator.userAgent");
    assert.match(ua, /Chrome\/\d+/);
  } finally {
    await browser.close();
    await server.shutdown();
    await build.cleanup();
  }
});

/** A fresh self-signed CA made by openssl (independent of the core's PKI code). */
async function opensslCa(dir: string) {
  await openssl([
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    `${dir}/ca.key`,
    "-out",
    `${dir}/ca.crt`,
    "-subj",
    "/CN=kubernetes",
    "-days",
    "3650",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign",
  ]);
  const pem = await Deno.readTextFile(`${dir}/ca.crt`);
  const pin = `sha256:${await opensslSpkiSha256(pem)}`;
  const dates = await openssl(["x509", "-noout", "-startdate", "-enddate", "-in", `${dir}/ca.crt`]);
  const date = (k: string) =>
    new Date(/=(.*)$/m.exec(dates.split("\n").find((l) => l.startsWith(k))!)![1]).toISOString()
      .replace(/\.\d+Z$/, "Z");
  return { pem, pin, notBefore: date("notBefore"), notAfter: date("notAfter") };
}

/** cluster-info as `kubectl get cm cluster-info -n kube-public -o yaml` prints it. */
function kubectlYaml(kubeconfig: string, signature: string): string {
  const indented = kubeconfig.trimEnd().split("\n").map((l) => `    ${l}`).join("\n");
  return `apiVersion: v1
data:
  jws-kubeconfig-abcdef: ${signature}
  kubeconfig: |
${indented}
kind: ConfigMap
metadata:
  creationTimestamp: "2025-06-01T10:00:00Z"
  name: cluster-info
  namespace: kube-public
  resourceVersion: "321"
  uid: 0b5e3c8e-8d7e-4f0a-9a43-2f1d2b7d9e11
`;
}

function clusterInfoKubeconfig(caPem: string, server: string): string {
  return `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: ${core.encodeKubeconfigData(caPem)}
    server: ${server}
  name: ""
contexts: null
current-context: ""
kind: Config
preferences: {}
users: null
`;
}

interface PageVerdict {
  verdict: string;
  reason: string;
  subject: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
  pin: string;
  pinned: string;
  failed: string[];
  json: { verdict: string; checks: { name: string; status: string }[] };
}

async function verifyInPage(
  browser: Chromium,
  fields: { clusterInfo?: string; token: string; hashes: string; unsafe?: boolean },
): Promise<PageVerdict> {
  await browser.evaluate(`(() => {
    const set = (id, v) => { document.getElementById(id).value = v; };
    ${
    fields.clusterInfo === undefined
      ? ""
      : `set("cluster-info", ${JSON.stringify(fields.clusterInfo)});`
  }
    set("token", ${JSON.stringify(fields.token)});
    set("hashes", ${JSON.stringify(fields.hashes)});
    document.getElementById("unsafe").checked = ${Boolean(fields.unsafe)};
    document.getElementById("result").dataset.state = "";
    document.getElementById("verify").click();
  })()`);
  await browser.waitFor(`document.getElementById("result").dataset.state === "done"`);
  return await browser.evaluate<PageVerdict>(`(() => {
    const text = (id) => document.getElementById(id).textContent;
    return {
      verdict: document.getElementById("verdict").dataset.verdict,
      reason: text("reason"),
      subject: text("ca-subject"),
      issuer: text("ca-issuer"),
      notBefore: text("ca-not-before"),
      notAfter: text("ca-not-after"),
      pin: text("ca-pin"),
      pinned: text("ca-pinned"),
      failed: [...document.querySelectorAll('#checks li[data-status="fail"]')].map((li) => li.dataset.check),
      json: JSON.parse(text("verdict-json")),
    };
  })()`);
}

Deno.test("dist/verify.html from file:// verifies a real cluster-info and rejects tampering", async () => {
  const build: WebBuild = await buildWeb();
  const work = await Deno.makeTempDir({ prefix: "kubeadm-verify-" });
  const browser = await Chromium.launch();
  try {
    const ca = await opensslCa(work);
    const kubeconfig = clusterInfoKubeconfig(ca.pem, "https://10.0.0.10:6443");
    const signature = await core.computeDetachedSignature(kubeconfig, "abcdef", SECRET);
    const yaml = kubectlYaml(kubeconfig, signature);

    await browser.goto(`file://${build.verifyHtml}`);
    await browser.waitFor(`document.documentElement.dataset.ready === "true"`);
    assert.equal(await browser.evaluate("window.isSecureContext"), true, "WebCrypto available");
    assert.equal(await browser.evaluate(`document.getElementById("build-note").hidden`), true);
    const unlabeled = await browser.evaluate<string[]>(
      `[...document.querySelectorAll("input, textarea")].filter((e) => e.labels.length === 0).map((e) => e.id)`,
    );
    assert.deepEqual(unlabeled, [], "every field has a label");

    // Verified: the YAML loaded through the file input, the hash as openssl computes it.
    await Deno.writeTextFile(`${work}/cluster-info.yaml`, yaml);
    await browser.setInputFiles("#cluster-info-file", [`${work}/cluster-info.yaml`]);
    await browser.waitFor(`document.getElementById("cluster-info-file").dataset.loaded`);
    assert.equal(await browser.evaluate(`document.getElementById("cluster-info").value`), yaml);
    let v = await verifyInPage(browser, { token: TOKEN, hashes: `  ${ca.pin}\n` });
    assert.equal(v.verdict, "verified", v.reason);
    assert.match(v.reason, /signed with token "abcdef" and its CA public key sha256:/);
    assert.equal(v.subject, "CN=kubernetes");
    assert.equal(v.issuer, "CN=kubernetes");
    assert.equal(v.pin, ca.pin);
    assert.equal(v.pinned, "yes");
    assert.equal(v.notBefore, ca.notBefore);
    assert.equal(v.notAfter, ca.notAfter);
    assert.deepEqual(v.failed, []);
    assert.equal(v.json.verdict, "verified");

    // The same ConfigMap as JSON (kubectl -o json), with a second, unrelated hash.
    const cm = core.parseClusterInfo(yaml);
    v = await verifyInPage(browser, {
      clusterInfo: JSON.stringify(cm, null, 4),
      token: TOKEN,
      hashes: `sha256:${"0".repeat(64)}, ${ca.pin}`,
    });
    assert.equal(v.verdict, "verified", v.reason);

    // Tampered kubeconfig (another API server), signature left as it was.
    const tampered = kubectlYaml(
      clusterInfoKubeconfig(ca.pem, "https://10.6.6.6:6443"),
      signature,
    );
    v = await verifyInPage(browser, { clusterInfo: tampered, token: TOKEN, hashes: ca.pin });
    assert.equal(v.verdict, "rejected");
    assert.equal(
      v.reason,
      "failed to verify JWS signature of received cluster info object, can't trust this API Server",
    );
    assert.deepEqual(v.failed, ["signature"]);

    // Wrong hash.
    const wrong = `sha256:${"ab".repeat(32)}`;
    v = await verifyInPage(browser, { clusterInfo: yaml, token: TOKEN, hashes: wrong });
    assert.equal(v.verdict, "rejected");
    assert.equal(
      v.reason,
      `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${ca.pin}" are pinned`,
    );
    assert.deepEqual(v.failed, ["ca-pin"]);
    assert.equal(v.pin, ca.pin, "the CA's real pin is shown for comparison");
    assert.equal(v.pinned, "no");

    // Wrong token secret; then no hash at all unless the unsafe box is ticked.
    v = await verifyInPage(browser, {
      clusterInfo: yaml,
      token: "abcdef.ffffffffffffffff",
      hashes: ca.pin,
    });
    assert.deepEqual([v.verdict, v.failed], ["rejected", ["signature"]]);
    v = await verifyInPage(browser, { clusterInfo: yaml, token: TOKEN, hashes: "" });
    assert.deepEqual([v.verdict, v.failed], ["rejected", ["ca-cert-hashes"]]);
    v = await verifyInPage(browser, { clusterInfo: yaml, token: TOKEN, hashes: "", unsafe: true });
    assert.equal(v.verdict, "verified");
    assert.match(v.reason, /NOT verified/);

    const html = await browser.evaluate<string>("document.documentElement.outerHTML");
    assert.ok(!html.includes(SECRET), "the token secret is not written into the page");
    assert.deepEqual(browser.console.filter((l) => l.startsWith("uncaught")), []);
  } finally {
    await browser.close();
    await Deno.remove(work, { recursive: true });
    await build.cleanup();
  }
});
