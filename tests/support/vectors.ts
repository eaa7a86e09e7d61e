/**
 * Upstream kubeadm's discovery test vectors (facts sheet §12.1–§12.4) plus the offline
 * verdict, written once and run against any build of the core: the TypeScript sources under
 * `deno test`, and the bundle `dist/kubeadm-core.js` under Node and in headless Chromium.
 *
 * Web APIs only (no Deno, no Node): each case receives the core's API object and throws on
 * failure. Time is a {@link FakeClock}, so the polling cases are instant and exact.
 *
 * @module
 */
import type * as Core from "../../web/core_entry.ts";
import { FakeClock } from "./fake_clock.ts";
import {
  DISCOVERY_CA_CERT,
  DISCOVERY_CA_HASH,
  DISCOVERY_TOKEN,
  EXPECTED_KUBECONFIG,
  EXPECTED_KUBECONFIG_SIGNATURE,
  INVALID_TOKEN_IDS,
  INVALID_TOKENS,
  JWS,
  PIN_TEST_CERT,
  PIN_TEST_CERT2,
  PIN_TEST_CERT2_HASH,
  PIN_TEST_CERT_HASH,
  VALID_TOKEN_IDS,
  VALID_TOKENS,
} from "./upstream_discovery_data.ts";

/** The core's public API as `web/core_entry.ts` (and so the bundle) exports it. */
export type CoreApi = typeof Core;

/** One vector: a name and a check that throws when the core gets it wrong. */
export interface VectorCase {
  name: string;
  run(api: CoreApi): Promise<void>;
}

/** Outcome of one case, as runners report it. */
export interface VectorResult {
  name: string;
  ok: boolean;
  error?: string;
}

class VectorFailure extends Error {}

function ok(cond: unknown, message: string): asserts cond {
  if (!cond) throw new VectorFailure(message);
}

function eq(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new VectorFailure(`${what}: expected ${e}, got ${a}`);
}

async function rejects(p: Promise<unknown> | (() => unknown), what: string): Promise<Error> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    ok(e instanceof Error, `${what}: threw a non-Error ${String(e)}`);
    return e;
  }
  throw new VectorFailure(`${what}: expected an error, got none`);
}

function includes(text: string, part: string, what: string): void {
  ok(
    text.includes(part),
    `${what}: ${JSON.stringify(text)} does not contain ${JSON.stringify(part)}`,
  );
}

const TOKEN_ID = "123456";
const TOKEN_SECRET = "abcdef1234567890";
const INTERVAL_MS = 20;
const TIMEOUT_MS = 500;

type ConfigMap = Core.ClusterInfoConfigMap;
type Mode = Core.ClusterInfoFetchMode;

/**
 * A fake API server for token discovery: `serve(elapsedMs, mode)` decides each answer; every
 * call is recorded with the time it was made.
 */
function fakeServer(
  clock: FakeClock,
  serve: (elapsedMs: number, mode: Mode) => ConfigMap | Error,
): { fetch: Core.FetchClusterInfo; calls: { at: number; mode: Mode }[] } {
  const start = clock.ms;
  const calls: { at: number; mode: Mode }[] = [];
  return {
    calls,
    fetch: (mode) => {
      const at = clock.ms - start;
      calls.push({ at, mode });
      const r = serve(at, mode);
      return r instanceof Error ? Promise.reject(r) : Promise.resolve(structuredClone(r));
    },
  };
}

/** Upstream's cluster-info (or one with `kubeconfig`) signed for {@link DISCOVERY_TOKEN}. */
export async function signedClusterInfo(
  api: CoreApi,
  kubeconfig = EXPECTED_KUBECONFIG,
): Promise<ConfigMap> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cluster-info", namespace: "kube-public" },
    data: {
      kubeconfig,
      [`jws-kubeconfig-${TOKEN_ID}`]: await api.computeDetachedSignature(
        kubeconfig,
        TOKEN_ID,
        TOKEN_SECRET,
      ),
    },
  };
}

function discover(
  api: CoreApi,
  clock: FakeClock,
  fetch: Core.FetchClusterInfo,
  overrides: Partial<Core.TokenDiscoveryOptions> = {},
) {
  return api.discoverWithToken({
    token: DISCOVERY_TOKEN,
    caCertHashes: [DISCOVERY_CA_HASH],
    fetchClusterInfo: fetch,
    clock,
    sleep: clock.sleep,
    intervalMs: INTERVAL_MS,
    timeoutMs: TIMEOUT_MS,
    ...overrides,
  });
}

function notFound(): Error {
  return new Error('configmaps "cluster-info" not found');
}

/** Every discovery error must carry upstream's prefix and never the token secret. */
function discoveryError(api: CoreApi, e: Error, part: string): void {
  ok(e instanceof api.DiscoveryError, `expected a DiscoveryError, got ${e.name}: ${e.message}`);
  includes(e.message, "couldn't validate the identity of the API Server: ", "error prefix");
  includes(e.message, part, "error text");
  ok(!e.message.includes(TOKEN_SECRET), `the token secret leaked: ${e.message}`);
}

const jwsCases: VectorCase[] = [
  {
    name: "jws: upstream vector, normal",
    run: async (api) =>
      eq(await api.computeDetachedSignature(JWS.content, JWS.id, JWS.secret), JWS.normal, "sig"),
  },
  {
    name: "jws: upstream vector, empty content",
    run: async (api) =>
      eq(await api.computeDetachedSignature("", JWS.id, JWS.secret), JWS.emptyContent, "sig"),
  },
  {
    name: "jws: upstream vector, empty secret",
    run: async (api) =>
      eq(await api.computeDetachedSignature(JWS.content, JWS.id, ""), JWS.emptySecret, "sig"),
  },
  {
    name: "jws: header segment is go-jose's bytes",
    run: async (api) => {
      eq(api.jwsHeaderSegment(JWS.id), JWS.header, "header");
      eq(JWS.normal.split("..")[0], JWS.header, "vector header");
      await Promise.resolve();
    },
  },
  {
    name: "jws: validity compares the whole string",
    run: async (api) => {
      ok(await api.detachedTokenIsValid(JWS.normal, JWS.content, JWS.id, JWS.secret), "valid");
      ok(
        !await api.detachedTokenIsValid(`${JWS.normal}foo`, JWS.content, JWS.id, JWS.secret),
        "+foo",
      );
      ok(
        !await api.detachedTokenIsValid(`${JWS.normal}=`, JWS.content, JWS.id, JWS.secret),
        "padding",
      );
      ok(
        !await api.detachedTokenIsValid(JWS.normal, `${JWS.content} `, JWS.id, JWS.secret),
        "content",
      );
      ok(!await api.detachedTokenIsValid(JWS.normal, JWS.content, "joshub", JWS.secret), "id");
      ok(
        !await api.detachedTokenIsValid(JWS.normal, JWS.content, JWS.id, `${JWS.secret}!`),
        "secret",
      );
      // The same MAC under a reordered header is a different, invalid string.
      const reordered = `${
        api.base64UrlEncode(new TextEncoder().encode(`{"kid":"${JWS.id}","alg":"HS256"}`))
      }..${JWS.normal.split("..")[1]}`;
      ok(!await api.detachedTokenIsValid(reordered, JWS.content, JWS.id, JWS.secret), "order");
    },
  },
  {
    name: "jws: derived vector over expected-kubeconfig.yaml",
    run: async (api) =>
      eq(
        await api.computeDetachedSignature(EXPECTED_KUBECONFIG, TOKEN_ID, TOKEN_SECRET),
        EXPECTED_KUBECONFIG_SIGNATURE,
        "sig",
      ),
  },
];

const pinCases: VectorCase[] = [
  {
    name: "pins: hash of test-cert.pem and test-cert2.pem",
    run: async (api) => {
      eq(
        await api.certificatePin(api.parseCertificatesPEM(PIN_TEST_CERT)[0]),
        PIN_TEST_CERT_HASH,
        "cert",
      );
      eq(
        await api.certificatePin(api.parseCertificatesPEM(PIN_TEST_CERT2)[0]),
        PIN_TEST_CERT2_HASH,
        "cert2",
      );
      eq(
        await api.certificatePin(api.parseCertificatesPEM(DISCOVERY_CA_CERT)[0]),
        DISCOVERY_CA_HASH,
        "ca",
      );
    },
  },
  {
    name: "pins: Set behaviour (upstream TestSet)",
    run: async (api) => {
      const cert = api.parseCertificatesPEM(PIN_TEST_CERT)[0];
      const cert2 = api.parseCertificatesPEM(PIN_TEST_CERT2)[0];
      const set = new api.PinSet();
      const e1 = await rejects(() => set.allow("xyz"), "allow xyz");
      eq(
        e1.message,
        'invalid hash, expected "format:hex-value". Known format(s) are: sha256',
        "xyz",
      );
      ok(set.isEmpty(), "set stays empty after a bad pin");
      await rejects(() => set.allow("0011223344"), "allow 0011223344");
      await rejects(() => set.allow(PIN_TEST_CERT_HASH + PIN_TEST_CERT_HASH), "allow twice");
      await rejects(set.checkAny([cert]), "checkAny on empty set");
      set.allow(PIN_TEST_CERT_HASH.toUpperCase());
      ok(!set.isEmpty(), "set has the upper-cased pin");
      await set.checkAny([cert]);
      const e2 = await rejects(set.checkAny([cert2]), "checkAny cert2");
      eq(e2.message, `none of the public keys "${PIN_TEST_CERT2_HASH}" are pinned`, "cert2 error");
      const e3 = await rejects(set.checkAny([cert2, cert2]), "checkAny two certs");
      eq(
        e3.message,
        `none of the public keys "${PIN_TEST_CERT2_HASH}:${PIN_TEST_CERT2_HASH}" are pinned`,
        "joined with ':'",
      );
      await set.checkAny([cert2, cert]);
    },
  },
  {
    name: "pins: error texts of malformed hashes",
    run: async (api) => {
      const msg = async (pin: string) =>
        (await rejects(() => new api.PinSet().allow(pin), pin)).message;
      eq(await msg("md5:abcd"), 'unknown hash format "md5". Known format(s) are: sha256', "format");
      eq(
        await msg("sha256:abcd"),
        'invalid hash "sha256:abcd", expected a 32 byte SHA-256 hash, found 2 bytes',
        "length",
      );
      const odd = `sha256:${"a".repeat(65)}`;
      eq(
        await msg(odd),
        `invalid hash "${odd}", could not decode SHA-256 from hex: encoding/hex: odd length hex string`,
        "odd",
      );
      const bad = `sha256:${"g".repeat(64)}`;
      includes(
        await msg(bad),
        "could not decode SHA-256 from hex: encoding/hex: invalid byte",
        "hex",
      );
    },
  },
];

const tokenDiscoveryCases: VectorCase[] = [
  {
    name: "token discovery: signature patched in 60ms later, with pin",
    run: async (api) => {
      const clock = new FakeClock();
      const signed = await signedClusterInfo(api);
      const unsigned = { ...signed, data: { kubeconfig: EXPECTED_KUBECONFIG } };
      const server = fakeServer(clock, (at) => (at < 60 ? unsigned : signed));
      const r = await discover(api, clock, server.fetch);
      eq(r.kubeconfigText, EXPECTED_KUBECONFIG, "kubeconfig text");
      eq(api.writeKubeconfig(r.kubeconfig), EXPECTED_KUBECONFIG, "re-serialised kubeconfig");
      eq(server.calls.map((c) => [c.at, c.mode.kind]), [
        [0, "insecure"],
        [20, "insecure"],
        [40, "insecure"],
        [60, "insecure"],
        [60, "pinned"],
      ], "fetches");
      const pinned = server.calls[4].mode;
      ok(pinned.kind === "pinned", "second phase is pinned");
      eq(pinned.caPem, DISCOVERY_CA_CERT, "pinned CA bundle");
      eq(clock.sleeps, [20, 20, 20], "sleeps");
      eq([r.server, r.clusterName, r.pinned, r.tokenId], [
        "https://127.0.0.1",
        "somecluster",
        true,
        TOKEN_ID,
      ], "result");
      eq(
        r.caCerts.map((c) => [c.subject, c.issuer, c.pin, c.notBefore, c.notAfter, c.serialNumber]),
        [[
          "CN=kubernetes",
          "CN=kubernetes",
          DISCOVERY_CA_HASH,
          "2019-11-20T00:49:42Z",
          "2029-11-17T00:49:42Z",
          "0",
        ]],
        "CA summary",
      );
      eq(r.caPem, DISCOVERY_CA_CERT, "caPem");
    },
  },
  {
    name: "token discovery: signature present from the start, with pin",
    run: async (api) => {
      const clock = new FakeClock();
      const signed = await signedClusterInfo(api);
      const server = fakeServer(clock, () => signed);
      const r = await discover(api, clock, server.fetch);
      eq(server.calls.map((c) => c.mode.kind), ["insecure", "pinned"], "fetches");
      eq(clock.sleeps, [], "no sleep");
      ok(r.pinned, "pinned");
    },
  },
  {
    name: "token discovery: no pin (unsafe skip) returns the insecure result",
    run: async (api) => {
      const clock = new FakeClock();
      const signed = await signedClusterInfo(api);
      const server = fakeServer(clock, () => signed);
      const r = await discover(api, clock, server.fetch, { caCertHashes: [] });
      eq(server.calls.map((c) => c.mode.kind), ["insecure"], "one insecure fetch only");
      eq(r.pinned, false, "not pinned");
      eq(r.kubeconfigText, EXPECTED_KUBECONFIG, "kubeconfig");
      eq(r.caCerts.map((c) => c.pin), [DISCOVERY_CA_HASH], "CA summary still given");
    },
  },
  {
    name: "token discovery: token foo.bar fails before any request",
    run: async (api) => {
      const clock = new FakeClock();
      const server = fakeServer(clock, () => notFound());
      const e = await rejects(discover(api, clock, server.fetch, { token: "foo.bar" }), "foo.bar");
      discoveryError(api, e, "could not construct token string for token: foo.<redacted>");
      eq(server.calls.length, 0, "no request");
    },
  },
  {
    name: "token discovery: no cluster-info ConfigMap times out with the last error",
    run: async (api) => {
      const clock = new FakeClock();
      const server = fakeServer(clock, () => notFound());
      const e = await rejects(discover(api, clock, server.fetch), "baz");
      discoveryError(
        api,
        e,
        'failed to request the cluster-info ConfigMap: configmaps "cluster-info" not found',
      );
      const elapsed = server.calls[server.calls.length - 1].at;
      ok(
        elapsed <= TIMEOUT_MS && elapsed > TIMEOUT_MS - INTERVAL_MS,
        `last attempt at ${elapsed}ms`,
      );
      ok(clock.sleeps.every((s) => s === INTERVAL_MS), "fixed interval");
      ok(server.calls.every((c) => c.mode.kind === "insecure"), "insecure only");
    },
  },
  {
    name: "token discovery: bad signature",
    run: async (api) => {
      const clock = new FakeClock();
      const server = fakeServer(clock, () => ({
        data: { kubeconfig: "foo", [`jws-kubeconfig-${TOKEN_ID}`]: "bar" },
      }));
      const e = await rejects(discover(api, clock, server.fetch), "bad signature");
      discoveryError(
        api,
        e,
        "failed to verify JWS signature of received cluster info object, can't trust this API Server",
      );
      eq(server.calls.length, 1, "no retry once signed");
    },
  },
  {
    name: "token discovery: signature never appears",
    run: async (api) => {
      const clock = new FakeClock();
      const server = fakeServer(clock, () => ({ data: { kubeconfig: "foo" } }));
      const e = await rejects(discover(api, clock, server.fetch), "no signature");
      discoveryError(
        api,
        e,
        'could not find a JWS signature in the cluster-info ConfigMap for token ID "123456"',
      );
      const last = server.calls[server.calls.length - 1].at;
      ok(last > TIMEOUT_MS - INTERVAL_MS && last <= TIMEOUT_MS, `kept polling until ${last}ms`);
      ok(server.calls.length >= TIMEOUT_MS / INTERVAL_MS, `${server.calls.length} attempts`);
    },
  },
  {
    name: "token discovery: unparsable pin",
    run: async (api) => {
      const clock = new FakeClock();
      const signed = await signedClusterInfo(api);
      const server = fakeServer(clock, () => signed);
      const e = await rejects(
        discover(api, clock, server.fetch, { caCertHashes: ["foo"] }),
        "pin foo",
      );
      discoveryError(
        api,
        e,
        'invalid discovery token CA certificate hash: invalid hash, expected "format:hex-value". Known format(s) are: sha256',
      );
      // Upstream parses the pins after its first fetch; kubeadm-ts before any request.
      eq(server.calls.length, 0, "detected before any fetch");
    },
  },
  {
    name: "token discovery: CA not pinned",
    run: async (api) => {
      const clock = new FakeClock();
      const signed = await signedClusterInfo(api);
      const server = fakeServer(clock, () => signed);
      const e = await rejects(
        discover(api, clock, server.fetch, { caCertHashes: [PIN_TEST_CERT_HASH] }),
        "wrong pin",
      );
      discoveryError(
        api,
        e,
        `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${DISCOVERY_CA_HASH}" are pinned`,
      );
      eq(server.calls.map((c) => c.mode.kind), ["insecure"], "no pinned fetch");
    },
  },
  {
    name: "token discovery: second (pinned) kubeconfig differs",
    run: async (api) => {
      const clock = new FakeClock();
      const signed = await signedClusterInfo(api);
      const tampered = {
        data: { ...signed.data, kubeconfig: EXPECTED_KUBECONFIG.replace("127.0.0.1", "127.0.0.2") },
      };
      const server = fakeServer(
        clock,
        (_at, mode) => (mode.kind === "insecure" ? signed : tampered),
      );
      const e = await rejects(discover(api, clock, server.fetch), "second differs");
      discoveryError(
        api,
        e,
        "the second kubeconfig from the cluster-info ConfigMap (using validated TLS) was different from the first",
      );
    },
  },
  {
    name: "token discovery: kubeconfig key missing / token id not signed",
    run: async (api) => {
      const clock = new FakeClock();
      const signed = await signedClusterInfo(api);
      const noKubeconfig = fakeServer(clock, () => ({
        data: { [`jws-kubeconfig-${TOKEN_ID}`]: signed.data![`jws-kubeconfig-${TOKEN_ID}`] },
      }));
      discoveryError(
        api,
        await rejects(discover(api, clock, noKubeconfig.fetch), "no kubeconfig"),
        "there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect",
      );
      const emptySig = fakeServer(clock, () => ({
        data: { kubeconfig: EXPECTED_KUBECONFIG, [`jws-kubeconfig-${TOKEN_ID}`]: "" },
      }));
      discoveryError(
        api,
        await rejects(discover(api, clock, emptySig.fetch), "empty signature"),
        'token id "123456" is invalid for this cluster or it has expired. Use "kubeadm token create" on the control-plane node to create a new valid token',
      );
    },
  },
  {
    name: "token discovery: malformed kubeconfig in cluster-info",
    run: async (api) => {
      const clock = new FakeClock();
      const text =
        "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster:\n    server: https://x\ncurrent-context: nope\n";
      const sig = await api.computeDetachedSignature(text, TOKEN_ID, TOKEN_SECRET);
      const server = fakeServer(clock, () => ({
        data: { kubeconfig: text, [`jws-kubeconfig-${TOKEN_ID}`]: sig },
      }));
      discoveryError(
        api,
        await rejects(discover(api, clock, server.fetch), "malformed"),
        'malformed kubeconfig in the cluster-info ConfigMap: the current context "nope" is not defined in the kubeconfig',
      );
      const garbage = "- just\n- a list\n";
      const sig2 = await api.computeDetachedSignature(garbage, TOKEN_ID, TOKEN_SECRET);
      const server2 = fakeServer(clock, () => ({
        data: { kubeconfig: garbage, [`jws-kubeconfig-${TOKEN_ID}`]: sig2 },
      }));
      discoveryError(
        api,
        await rejects(discover(api, clock, server2.fetch), "not a kubeconfig"),
        "couldn't parse the kubeconfig file in the cluster-info ConfigMap: ",
      );
    },
  },
  {
    // Issue 9, finding 5: with two clusters, the server and CA used could come from one while
    // the pin was checked against the other. kubeadm-ts requires exactly one.
    name: "cluster-info with two clusters is rejected (discovery and verdict)",
    run: async (api) => {
      // kubeadm's cluster-info plus an unnamed cluster with another CA and server.
      const text = EXPECTED_KUBECONFIG.replace(
        "clusters:\n",
        `clusters:\n- cluster:\n    certificate-authority-data: ${
          btoa(PIN_TEST_CERT)
        }\n    server: https://10.6.6.6\n  name: ""\n`,
      );
      const cm = await signedClusterInfo(api, text);
      const clock = new FakeClock();
      const server = fakeServer(clock, () => cm);
      discoveryError(
        api,
        await rejects(discover(api, clock, server.fetch), "two clusters"),
        "malformed kubeconfig in the cluster-info ConfigMap: it must define exactly one cluster, found 2",
      );
      eq(server.calls.length, 1, "no pinned fetch");
      const v = await api.checkClusterInfo({
        clusterInfo: cm,
        token: DISCOVERY_TOKEN,
        caCertHashes: [DISCOVERY_CA_HASH],
      });
      eq(
        [v.verdict, v.checks.find((c) => c.status === "fail")?.name],
        ["rejected", "kubeconfig"],
        "verdict",
      );
      includes(v.reason, "it must define exactly one cluster, found 2", "reason");
    },
  },
  {
    name: "token discovery: interval larger than the timeout is capped",
    run: async (api) => {
      const clock = new FakeClock();
      const start = clock.ms;
      const server = fakeServer(clock, () => notFound());
      await rejects(
        discover(api, clock, server.fetch, { intervalMs: 10_000, timeoutMs: 1_000 }),
        "capped",
      );
      ok(clock.sleeps.length >= 1 && clock.sleeps.every((s) => s === 1_000), "capped sleeps");
      eq(server.calls[0].at, 0, "first attempt immediately");
      ok(clock.ms - start <= 1_000, "stopped at the timeout");
    },
  },
  {
    name: "tls bootstrap: kubeconfig for bootstrap-kubelet.conf",
    run: async (api) => {
      const cfg = api.tlsBootstrapKubeconfigFor(
        api.loadKubeconfig(EXPECTED_KUBECONFIG),
        DISCOVERY_TOKEN,
      );
      const caData = api.encodeKubeconfigData(DISCOVERY_CA_CERT);
      eq(
        api.writeKubeconfig(cfg),
        [
          "apiVersion: v1",
          "clusters:",
          "- cluster:",
          `    certificate-authority-data: ${caData}`,
          "    server: https://127.0.0.1",
          "  name: kubernetes",
          "contexts:",
          "- context:",
          "    cluster: kubernetes",
          "    user: tls-bootstrap-token-user",
          "  name: tls-bootstrap-token-user@kubernetes",
          "current-context: tls-bootstrap-token-user@kubernetes",
          "kind: Config",
          "users:",
          "- name: tls-bootstrap-token-user",
          "  user:",
          `    token: ${DISCOVERY_TOKEN}`,
          "",
        ].join("\n"),
        "bootstrap kubeconfig",
      );
      const file = api.bootstrapKubeletConfFile(cfg);
      eq([file.path, file.mode, file.kind], [
        "/etc/kubernetes/bootstrap-kubelet.conf",
        0o600,
        "kubeconfig",
      ], "file");
      const e = await rejects(
        () => api.tlsBootstrapKubeconfigFor(api.loadKubeconfig(EXPECTED_KUBECONFIG)),
        "no creds",
      );
      includes(
        e.message,
        "could not find authentication credentials for the TLS bootstrap process",
        "no creds",
      );
      eq((await api.bootstrapCaSummary(cfg)).pin, DISCOVERY_CA_HASH, "CA summary");
    },
  },
];

const tokenFormatCases: VectorCase[] = [
  {
    name: "token formats: valid and invalid tokens and ids (upstream utils_test)",
    run: async (api) => {
      for (const t of VALID_TOKENS) {
        ok(api.isValidToken(t), `${t} is valid`);
        eq(api.parseToken(t), { id: t.slice(0, 6), secret: t.slice(7) }, t);
      }
      for (const t of INVALID_TOKENS) {
        ok(!api.isValidToken(t), `${JSON.stringify(t)} is invalid`);
        const e = await rejects(() => api.parseToken(t), t);
        includes(e.message, `was not of the form ${JSON.stringify(api.TOKEN_PATTERN_TEXT)}`, t);
        if (t.length > 7) ok(!e.message.includes(t.slice(7)), `${t}: secret half not echoed`);
      }
      for (const id of VALID_TOKEN_IDS) ok(api.isValidTokenId(id), `${id} valid id`);
      for (const id of INVALID_TOKEN_IDS) ok(!api.isValidTokenId(id), `${id} invalid id`);
      eq(api.tokenSecretName("abcdef"), "bootstrap-token-abcdef", "secret name");
    },
  },
];

function configMapYaml(api: CoreApi, cm: ConfigMap): string {
  return api.toKubeYaml(cm);
}

const verdictCases: VectorCase[] = [
  {
    name: "verdict: verified from kubectl -o yaml and -o json text",
    run: async (api) => {
      const cm = await signedClusterInfo(api);
      for (const text of [configMapYaml(api, cm), JSON.stringify(cm, null, 4)]) {
        const v = await api.checkClusterInfo({
          clusterInfo: text,
          token: DISCOVERY_TOKEN,
          caCertHashes: [DISCOVERY_CA_HASH],
          now: new Date("2025-01-01T00:00:00Z"),
        });
        eq(v.verdict, "verified", `verdict (${v.reason})`);
        ok(v.caPinned, "CA pinned");
        eq(v.ca, {
          subject: "CN=kubernetes",
          issuer: "CN=kubernetes",
          serialNumber: "0",
          notBefore: "2019-11-20T00:49:42Z",
          notAfter: "2029-11-17T00:49:42Z",
          pin: DISCOVERY_CA_HASH,
          pinned: true,
        }, "ca");
        eq(v.server, "https://127.0.0.1", "server");
        ok(v.checks.every((c) => c.status === "ok"), `all checks ok: ${JSON.stringify(v.checks)}`);
        eq(JSON.parse(JSON.stringify(v)), v, "JSON round trip");
        ok(!JSON.stringify(v).includes(TOKEN_SECRET), "no secret in the verdict");
      }
    },
  },
  {
    name: "verdict: tampered kubeconfig, wrong hash, wrong token, no hash",
    run: async (api) => {
      const cm = await signedClusterInfo(api);
      const base = { token: DISCOVERY_TOKEN, caCertHashes: [DISCOVERY_CA_HASH] };
      const failed = (v: Core.DiscoveryVerdict) => v.checks.find((c) => c.status === "fail")?.name;

      const tampered = structuredClone(cm);
      tampered.data!.kubeconfig = EXPECTED_KUBECONFIG.replace(
        "https://127.0.0.1",
        "https://10.6.6.6",
      );
      let v = await api.checkClusterInfo({ ...base, clusterInfo: tampered });
      eq([v.verdict, failed(v)], ["rejected", "signature"], "tampered");
      eq(
        v.reason,
        "failed to verify JWS signature of received cluster info object, can't trust this API Server",
        "reason",
      );
      eq(v.checks.filter((c) => c.status === "skipped").map((c) => c.name), [
        "kubeconfig",
        "ca-certificates",
        "ca-pin",
        "ca-validity",
      ], "later checks skipped");

      v = await api.checkClusterInfo({
        ...base,
        clusterInfo: cm,
        caCertHashes: [PIN_TEST_CERT_HASH],
      });
      eq([v.verdict, failed(v)], ["rejected", "ca-pin"], "wrong hash");
      includes(v.reason, `none of the public keys "${DISCOVERY_CA_HASH}" are pinned`, "reason");
      eq(v.caCerts.map((c) => c.pin), [DISCOVERY_CA_HASH], "the bundle is still described");
      eq([v.ca?.pin, v.ca?.pinned, v.caPinned], [DISCOVERY_CA_HASH, false, false], "unpinned CA");

      v = await api.checkClusterInfo({
        ...base,
        clusterInfo: cm,
        token: "123456.0000000000000000",
      });
      eq([v.verdict, failed(v)], ["rejected", "signature"], "wrong secret");

      v = await api.checkClusterInfo({
        ...base,
        clusterInfo: cm,
        token: "abcdef.abcdef1234567890",
      });
      eq([v.verdict, failed(v)], ["rejected", "signature-key"], "unsigned token id");

      v = await api.checkClusterInfo({ ...base, clusterInfo: cm, token: "nope" });
      eq([v.verdict, failed(v)], ["rejected", "token"], "malformed token");

      v = await api.checkClusterInfo({ ...base, clusterInfo: cm, caCertHashes: [] });
      eq([v.verdict, failed(v)], ["rejected", "ca-cert-hashes"], "no hash");

      v = await api.checkClusterInfo({
        ...base,
        clusterInfo: cm,
        caCertHashes: [],
        unsafeSkipCAVerification: true,
      });
      eq([v.verdict, v.caPinned, v.ca?.pinned], ["verified", false, false], "unsafe skip");
      includes(v.reason, "NOT verified", "unsafe reason");

      v = await api.checkClusterInfo({ ...base, clusterInfo: "kind: Secret\n" });
      eq([v.verdict, failed(v)], ["rejected", "cluster-info"], "not a ConfigMap");

      v = await api.checkClusterInfo({ ...base, clusterInfo: "a: [" });
      eq([v.verdict, failed(v)], ["rejected", "cluster-info"], "bad YAML");
    },
  },
  {
    name: "verdict: expired CA is a warning, not a rejection",
    run: async (api) => {
      const v = await api.checkClusterInfo({
        clusterInfo: await signedClusterInfo(api),
        token: DISCOVERY_TOKEN,
        caCertHashes: [DISCOVERY_CA_HASH],
        now: new Date("2030-01-01T00:00:00Z"),
      });
      eq(v.verdict, "verified", "verdict");
      eq(v.checks.find((c) => c.name === "ca-validity")?.status, "warning", "validity warning");
    },
  },
];

/** All cases, in a stable order. */
export const vectors: VectorCase[] = [
  ...jwsCases,
  ...pinCases,
  ...tokenDiscoveryCases,
  ...tokenFormatCases,
  ...verdictCases,
];

/** Runs every case against `api`; never throws. */
export async function runVectors(api: CoreApi): Promise<VectorResult[]> {
  const results: VectorResult[] = [];
  for (const c of vectors) {
    try {
      await c.run(api);
      results.push({ name: c.name, ok: true });
    } catch (e) {
      results.push({
        name: c.name,
        ok: false,
        error: e instanceof Error ? e.stack ?? e.message : String(e),
      });
    }
  }
  return results;
}
