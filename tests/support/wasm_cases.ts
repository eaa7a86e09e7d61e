/**
 * The calls every host of the WebAssembly component makes (`tests/wasm/*_test.ts`): every WIT
 * function with accepted and refused inputs, each with what its output must show. The inputs
 * are built here with the library; the expected outputs are never written down: they are
 * what `wasm/api.ts` gives in Deno, which the checks below hold to kubeadm's behaviour, and
 * every host must give the same bytes.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  clusterInfoFor,
  encodePrivateKeyPEM,
  generateKeyPair,
  seededRandom,
  signClusterInfo,
  toKubeYaml,
  webCryptoPort,
  withBootstrapSignatures,
} from "../../mod.ts";
import { encodeCertificatePEM } from "../../core/pki/cert.ts";
import { newCertificateAuthority } from "./test_pki.ts";
import * as api from "../../wasm/api.ts";
import type * as Wit from "../../wasm/wit.d.ts";
import {
  DISCOVERY_CA_CERT,
  DISCOVERY_CA_HASH,
  DISCOVERY_TOKEN,
  EXPECTED_KUBECONFIG,
  PIN_TEST_CERT,
  PIN_TEST_CERT2,
  PIN_TEST_CERT2_HASH,
  PIN_TEST_CERT_HASH,
} from "./upstream_discovery_data.ts";
import { signedClusterInfo } from "./vectors.ts";
import * as lib from "../../web/core_entry.ts";
import { SCENARIO_CONFIG, SCENARIO_HOST, SCENARIO_SEED, SCENARIO_TIME } from "./plan_scenario.ts";
import type { WitCall } from "./wasm.ts";

/** A call and what its (reference) outcome must show. */
export interface ComponentCase {
  name: string;
  call: WitCall;
  /** Checks the parsed canonical outcome `{ok}` or `{err}` (throws when wrong). */
  check(outcome: { ok?: unknown; err?: Record<string, string> }): void;
}

const utf8 = new TextEncoder();
/** A seed of the scenario (the host's entropy in a real call). */
export const seed = (name: string): Uint8Array => utf8.encode(`${SCENARIO_SEED}/${name}`);
const NOW = BigInt(Date.parse(SCENARIO_TIME));

/** The WIT `host` of a node. */
export function witHost(hostname: string, advertiseAddress: string): Wit.Host {
  return { hostname, advertiseAddress, existingDirs: [], proxyEnv: [], systemdResolved: false };
}

/** The WIT `plan-inputs` of a node of the scenario. */
export function planInputs(
  name: string,
  host: Wit.Host,
  extra: Partial<Wit.PlanInputs> = {},
): Wit.PlanInputs {
  return { host, seed: seed(name), now: NOW, existingFiles: [], keys: [], ...extra };
}

/** The scenario's first control plane: ECDSA, uploaded certificates, a control-plane endpoint. */
export const CONTROL_PLANE_REQUEST: Wit.ControlPlaneRequest = {
  config: SCENARIO_CONFIG,
  uploadCerts: true,
  inputs: planInputs("cp", witHost(SCENARIO_HOST.hostname, SCENARIO_HOST.advertiseAddress)),
};

/** A join request of the scenario. */
export function joinRequest(
  cluster: Wit.Cluster,
  name: string,
  address: string,
  extra: Partial<Wit.JoinRequest> = {},
): Wit.JoinRequest {
  return {
    cluster,
    unsafeSkipCaVerification: false,
    inputs: planInputs(name, witHost(name, address)),
    ...extra,
  };
}

const failedCheck = (v: Wit.Verdict) => v.checks.find((c) => c.status === "fail")?.name;

function verdictOf(o: { ok?: unknown }): Wit.Verdict {
  assert.ok(o.ok, `expected a verdict, got ${JSON.stringify(o)}`);
  const v = o.ok as Record<string, unknown>;
  return {
    ...v,
    verified: v.verified as boolean,
    checks: v.checks as Wit.VerdictCheck[],
    reason: v.reason as string,
  } as unknown as Wit.Verdict;
}

function verdictCase(
  name: string,
  request: Wit.ClusterInfoCheck,
  want: { verified: boolean; failed?: string; reason?: string; warning?: string },
): ComponentCase {
  return {
    name: `check-cluster-info: ${name}`,
    call: { fn: "check-cluster-info", args: [request] },
    check: (o) => {
      const v = verdictOf(o);
      assert.equal(v.verified, want.verified, `${name}: ${v.reason}`);
      assert.equal(failedCheck(v), want.failed, name);
      if (want.reason) assert.ok(v.reason.includes(want.reason), `${name}: ${v.reason}`);
      if (want.warning) {
        assert.equal(v.checks.find((c) => c.name === want.warning)?.status, "warning", name);
      }
      assert.ok(!JSON.stringify(o).includes(request.token.split(".")[1] ?? "\0"), "no secret");
    },
  };
}

function errCase(
  name: string,
  call: WitCall,
  want: { code: string; field?: string; message: RegExp },
): ComponentCase {
  return {
    name,
    call,
    check: (o) => {
      assert.ok(o.err, `${name}: expected an error, got ${JSON.stringify(o).slice(0, 300)}`);
      assert.equal(o.err.code, want.code, `${name}: ${o.err.message}`);
      if (want.field) assert.equal(o.err.field, want.field, name);
      assert.match(o.err.message, want.message, name);
    },
  };
}

function okCase(name: string, call: WitCall, check: (ok: unknown) => void): ComponentCase {
  return {
    name,
    call,
    check: (o) => {
      assert.ok(!o.err, `${name}: ${JSON.stringify(o.err)}`);
      check(o.ok);
    },
  };
}

type Files = { path: string; content: Uint8Array }[];
const fileText = (files: unknown, path: string) =>
  atob((files as { path: string; content: string }[]).find((f) => f.path === path)!.content);
const paths = (files: unknown) => (files as Files).map((f) => f.path);

/**
 * Every case, in order. Join and cloud-init cases take the control-plane plan as input, so it
 * is made first (with `wasm/api.ts` in Deno).
 */
export async function componentCases(): Promise<ComponentCase[]> {
  const cp = await api.planControlPlane(CONTROL_PLANE_REQUEST);
  const worker = await api.planWorker(joinRequest({ tag: "plan", val: cp }, "w1", "192.0.2.21"));
  const objects = cp.objects.map((o) => JSON.parse(o));
  const clusterInfo = (await withBootstrapSignatures(objects)).find((o) =>
    o.metadata?.name === "cluster-info"
  )!;
  const base = { token: DISCOVERY_TOKEN, caCertHashes: [DISCOVERY_CA_HASH], now: NOW };
  const upstream = await signedClusterInfo(lib);
  const twoClusters = await signedClusterInfo(
    lib,
    EXPECTED_KUBECONFIG.replace(
      "clusters:\n",
      `clusters:\n- cluster:\n    certificate-authority-data: ${
        btoa(PIN_TEST_CERT)
      }\n    server: https://10.6.6.6\n  name: ""\n`,
    ),
  );
  const tampered = structuredClone(upstream);
  tampered.data!.kubeconfig = EXPECTED_KUBECONFIG.replace("https://127.0.0.1", "https://10.6.6.6");
  const caFiles = cp.files.filter((f) =>
    f.path === "/etc/kubernetes/pki/ca.crt" || f.path === "/etc/kubernetes/pki/ca.key"
  );
  const caKeyText = new TextDecoder().decode(caFiles.find((f) => f.path.endsWith(".key"))!.content);
  // An RSA CA made with WebCrypto (the CLI's port), valid at the scenario's time.
  const rsaKey = await generateKeyPair("RSA-2048");
  const rsaCa = await newCertificateAuthority(
    { commonName: "kubernetes", notBefore: new Date(SCENARIO_TIME) },
    rsaKey,
    seededRandom("rsa ca"),
    webCryptoPort,
  );
  const rsaCaFiles: Wit.File[] = [
    {
      path: "/etc/kubernetes/pki/ca.crt",
      mode: 0o644,
      content: utf8.encode(encodeCertificatePEM(rsaCa.cert)),
    },
    {
      path: "/etc/kubernetes/pki/ca.key",
      mode: 0o600,
      content: utf8.encode(await encodePrivateKeyPEM(rsaKey)),
    },
  ];
  const givenApiserverKey = await encodePrivateKeyPEM(
    await generateKeyPair("ECDSA-P256", { random: seededRandom("a key of the host's own") }),
  );
  const resignedForOtherToken = await signClusterInfo(
    clusterInfoFor("https://192.0.2.10:6443", DISCOVERY_CA_CERT),
    ["123456.0000000000000000"],
  );

  return [
    // check-cluster-info
    verdictCase("upstream's cluster-info (RSA CA) as YAML, verified", {
      ...base,
      clusterInfo: toKubeYaml(upstream),
      unsafeSkipCaVerification: false,
    }, { verified: true }),
    verdictCase("the same as JSON, verified", {
      ...base,
      clusterInfo: JSON.stringify(upstream, null, 2),
      unsafeSkipCaVerification: false,
    }, { verified: true }),
    verdictCase("the plan's own cluster-info (ECDSA CA), verified", {
      clusterInfo: JSON.stringify(clusterInfo),
      token: cp.token,
      caCertHashes: [cp.caCertHash],
      unsafeSkipCaVerification: false,
      now: NOW,
    }, { verified: true }),
    verdictCase("wrong pin", {
      ...base,
      clusterInfo: toKubeYaml(upstream),
      caCertHashes: [PIN_TEST_CERT_HASH],
      unsafeSkipCaVerification: false,
    }, {
      verified: false,
      failed: "ca-pin",
      reason: `none of the public keys "${DISCOVERY_CA_HASH}" are pinned`,
    }),
    verdictCase("bad signature (kubeconfig changed after signing)", {
      ...base,
      clusterInfo: toKubeYaml(tampered),
      unsafeSkipCaVerification: false,
    }, {
      verified: false,
      failed: "signature",
      reason: "failed to verify JWS signature of received cluster info object",
    }),
    verdictCase("bad signature (signed for another token secret)", {
      ...base,
      clusterInfo: toKubeYaml(resignedForOtherToken),
      unsafeSkipCaVerification: false,
    }, { verified: false, failed: "signature" }),
    verdictCase("two clusters", {
      ...base,
      clusterInfo: toKubeYaml(twoClusters),
      unsafeSkipCaVerification: false,
    }, {
      verified: false,
      failed: "kubeconfig",
      reason: "it must define exactly one cluster, found 2",
    }),
    verdictCase("no pin refused", {
      ...base,
      caCertHashes: [],
      clusterInfo: toKubeYaml(upstream),
      unsafeSkipCaVerification: false,
    }, { verified: false, failed: "ca-cert-hashes" }),
    verdictCase("no pin with unsafe skip", {
      ...base,
      caCertHashes: [],
      clusterInfo: toKubeYaml(upstream),
      unsafeSkipCaVerification: true,
    }, { verified: true, reason: "NOT verified" }),
    verdictCase("expired CA is a warning", {
      ...base,
      clusterInfo: toKubeYaml(upstream),
      unsafeSkipCaVerification: false,
      now: BigInt(Date.parse("2030-01-01T00:00:00Z")),
    }, { verified: true, warning: "ca-validity" }),
    verdictCase("not YAML", {
      ...base,
      clusterInfo: "a: [",
      unsafeSkipCaVerification: false,
    }, { verified: false, failed: "cluster-info" }),

    // generate-token, parse-token
    okCase("generate-token: from a seed", { fn: "generate-token", args: [seed("token")] }, (t) => {
      assert.match(t as string, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    }),
    errCase("generate-token: a short seed is refused", {
      fn: "generate-token",
      args: [new Uint8Array(16)],
    }, { code: "ERR_INPUT", field: "seed", message: /seed has 16 bytes: at least 32/ }),
    okCase("parse-token: valid", { fn: "parse-token", args: [DISCOVERY_TOKEN] }, (t) => {
      assert.deepEqual(t, { id: "123456", secret: "abcdef1234567890" });
    }),
    errCase("parse-token: malformed, redacted", {
      fn: "parse-token",
      args: ["abcdef.0123456789abcdeF"],
    }, { code: "ERR_KUBEADM", message: /"abcdef\.<redacted>" was not of the form/ }),

    // ca-cert-pins
    okCase("ca-cert-pins: a bundle of two", {
      fn: "ca-cert-pins",
      args: [`${DISCOVERY_CA_CERT}\n${PIN_TEST_CERT2}`],
    }, (pins) => assert.deepEqual(pins, [DISCOVERY_CA_HASH, PIN_TEST_CERT2_HASH])),
    okCase("ca-cert-pins: the plan's CA", {
      fn: "ca-cert-pins",
      args: [new TextDecoder().decode(caFiles.find((f) => f.path.endsWith(".crt"))!.content)],
    }, (pins) => assert.deepEqual(pins, [cp.caCertHash])),
    errCase("ca-cert-pins: not a certificate", {
      fn: "ca-cert-pins",
      args: ["-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"],
    }, { code: "ERR_PKI", message: /x509/ }),

    // plan-control-plane
    okCase("plan-control-plane: ECDSA, uploaded certificates", {
      fn: "plan-control-plane",
      args: [CONTROL_PLANE_REQUEST],
    }, (p) => {
      const plan = p as Record<string, unknown>;
      assert.ok(paths(plan.files).includes("/etc/kubernetes/manifests/kube-apiserver.yaml"));
      assert.match(fileText(plan.files, "/etc/kubernetes/pki/ca.key"), /EC PRIVATE KEY/);
      assert.equal(plan["ca-cert-hash"], cp.caCertHash);
      assert.match(plan["certificate-key"] as string, /^[0-9a-f]{64}$/);
      assert.match(plan["control-plane-join-command"] as string, /--control-plane/);
    }),
    okCase("plan-control-plane: an existing ECDSA CA is reused", {
      fn: "plan-control-plane",
      args: [{
        ...CONTROL_PLANE_REQUEST,
        uploadCerts: false,
        inputs: planInputs("cp-again", witHost("cp9", "192.0.2.19"), { existingFiles: caFiles }),
      }],
    }, (p) => assert.equal((p as Record<string, unknown>)["ca-cert-hash"], cp.caCertHash)),
    okCase("plan-control-plane: a key given by the host is used", {
      fn: "plan-control-plane",
      args: [{
        ...CONTROL_PLANE_REQUEST,
        inputs: planInputs("cp", witHost("cp1", "192.0.2.10"), {
          keys: [["cert:apiserver", givenApiserverKey]],
        }),
      }],
    }, (p) => {
      const files = (p as Record<string, unknown>).files;
      assert.equal(fileText(files, "/etc/kubernetes/pki/apiserver.key"), givenApiserverKey);
    }),
    errCase("plan-control-plane: RSA (the default) is refused, naming encryptionAlgorithm", {
      fn: "plan-control-plane",
      args: [{ ...CONTROL_PLANE_REQUEST, config: undefined }],
    }, {
      code: "ERR_UNSUPPORTED_ALGORITHM",
      field: "encryptionAlgorithm",
      message: /cannot generate RSA-2048 keys/,
    }),
    errCase("plan-control-plane: an existing RSA CA is refused", {
      fn: "plan-control-plane",
      args: [{
        ...CONTROL_PLANE_REQUEST,
        inputs: planInputs("cp", witHost("cp1", "192.0.2.10"), {
          existingFiles: rsaCaFiles,
        }),
      }],
    }, { code: "ERR_UNSUPPORTED_ALGORITHM", message: /cannot use RSA private keys/ }),
    errCase("plan-control-plane: an invalid configuration names the field", {
      fn: "plan-control-plane",
      args: [{
        ...CONTROL_PLANE_REQUEST,
        config: `${SCENARIO_CONFIG}networking:\n  serviceSubnet: 10.96.0.0/33\n`,
      }],
    }, { code: "ERR_VALIDATION", message: /networking\.serviceSubnet/ }),
    errCase("plan-control-plane: a short seed is refused", {
      fn: "plan-control-plane",
      args: [{
        ...CONTROL_PLANE_REQUEST,
        inputs: { ...CONTROL_PLANE_REQUEST.inputs, seed: new Uint8Array(31) },
      }],
    }, { code: "ERR_INPUT", field: "inputs.seed", message: /at least 32/ }),

    // plan-worker
    okCase("plan-worker: against the plan", {
      fn: "plan-worker",
      args: [joinRequest({ tag: "plan", val: cp }, "w1", "192.0.2.21")],
    }, (p) => {
      const files = (p as Record<string, unknown>).files;
      assert.ok(paths(files).includes("/etc/kubernetes/bootstrap-kubelet.conf"));
      assert.match(fileText(files, "/etc/kubernetes/bootstrap-kubelet.conf"), new RegExp(cp.token));
    }),
    okCase("plan-worker: against the cluster's objects (JSON and YAML)", {
      fn: "plan-worker",
      args: [joinRequest(
        {
          tag: "objects",
          val: objects.map((o, i) => i % 2 ? toKubeYaml(o) : JSON.stringify(o)),
        },
        "w1",
        "192.0.2.21",
        { token: cp.token, caCertHashes: [cp.caCertHash], apiServerEndpoint: cp.apiServerEndpoint },
      )],
    }, (p) => assert.equal(paths((p as Record<string, unknown>).files).length, 5)),
    errCase("plan-worker: a wrong pin fails discovery", {
      fn: "plan-worker",
      args: [joinRequest({ tag: "plan", val: cp }, "w2", "192.0.2.22", {
        caCertHashes: [PIN_TEST_CERT_HASH],
      })],
    }, { code: "ERR_DISCOVERY", message: /none of the public keys .* are pinned/ }),

    // plan-control-plane-join
    okCase("plan-control-plane-join: from the uploaded certificates", {
      fn: "plan-control-plane-join",
      args: [joinRequest({ tag: "plan", val: cp }, "cp2", "192.0.2.11")],
    }, (p) => {
      const files = (p as Record<string, unknown>).files;
      assert.equal(fileText(files, "/etc/kubernetes/pki/ca.key"), caKeyText);
      assert.ok(paths(files).includes("/etc/kubernetes/manifests/etcd.yaml"));
    }),
    errCase("plan-control-plane-join: a wrong certificate key", {
      fn: "plan-control-plane-join",
      args: [joinRequest({ tag: "plan", val: cp }, "cp3", "192.0.2.12", {
        certificateKey: "00".repeat(32),
      })],
    }, { code: "ERR_KUBEADM", message: /message authentication failed/ }),

    // render-cloud-init
    okCase("render-cloud-init: the control plane", {
      fn: "render-cloud-init",
      args: [cp.files, cp.bringUp, { preCommands: [] }],
    }, (t) => assert.match(t as string, /^#cloud-config\nwrite_files:\n/)),
    okCase(
      "render-cloud-init: a worker, with commands before and instead",
      {
        fn: "render-cloud-init",
        args: [worker.files, worker.bringUp, {
          preCommands: [["apt-get", "install", "-y", "kubelet"]],
          commands: [["systemctl", "start", "kubelet"]],
        }],
      },
      (t) =>
        assert.match(t as string, /runcmd:\n {2}- - apt-get[^]* {2}- - systemctl\n {4}- start/),
    ),
    errCase("render-cloud-init: a file that is not UTF-8 is refused", {
      fn: "render-cloud-init",
      args: [[{ path: "/etc/x", mode: 0o644, content: new Uint8Array([0xff, 0xfe]) }], {
        files: [],
        commands: [],
      }, { preCommands: [] }],
    }, { code: "ERR_INPUT", field: "files[0].content", message: /not UTF-8/ }),
  ];
}
