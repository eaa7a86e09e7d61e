// JoinConfiguration: built from flags or read from --config, defaulted and validated as
// upstream v1beta4 does, with upstream's messages and secrets redacted.
import assert from "node:assert/strict";
import { ConfigError, ValidationError } from "../../../core/errors.ts";
import {
  type ResolvedJoinConfig,
  resolveJoinConfig,
  type ResolveJoinOptions,
} from "../../../core/config/join.ts";
import { joinConfigurationYaml } from "../../support/config.ts";

const TOKEN = "abcdef.0123456789abcdef";
const PIN = `sha256:${"ab".repeat(32)}`;
const host = { hostname: "Worker-1", defaultAdvertiseAddress: "192.168.0.20" };

function resolve(o: Partial<ResolveJoinOptions>) {
  return resolveJoinConfig({ host, ...o });
}

function fieldErrors(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    return e.errors.map((x) => `${x.field}: ${x.detail}`);
  }
  assert.fail("expected a ValidationError");
}

/** Token discovery without CA pinning (the unsafe mode). */
function isUnsafeTokenDiscovery(cfg: ResolvedJoinConfig): boolean {
  const b = cfg.discovery.bootstrapToken;
  return b !== undefined && (b.caCertHashes ?? []).length === 0;
}

Deno.test("flags: --token fills both tokens; defaults as upstream", () => {
  const { config, warnings } = resolve({
    inputs: { apiServerEndpoint: "10.0.0.1:6443", token: TOKEN, caCertHashes: [PIN] },
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(config.discovery, {
    bootstrapToken: {
      token: TOKEN,
      apiServerEndpoint: "10.0.0.1:6443",
      caCertHashes: [PIN],
      unsafeSkipCAVerification: false,
    },
    tlsBootstrapToken: TOKEN,
  });
  assert.equal(config.caCertPath, "/etc/kubernetes/pki/ca.crt");
  assert.equal(config.nodeRegistration.name, "worker-1");
  assert.equal(config.nodeRegistration.criSocket, "unix:///var/run/containerd/containerd.sock");
  assert.deepEqual(config.nodeRegistration.taints, [], "workers get no default taint");
  assert.equal(config.nodeRegistration.imagePullPolicy, "IfNotPresent");
  assert.equal(config.timeouts.discovery, "5m0s");
  assert.equal(config.timeouts.tlsBootstrap, "5m0s");
  assert.equal(config.controlPlane, undefined);
  assert.equal(isUnsafeTokenDiscovery(config), false);
});

Deno.test("flags: explicit discovery and TLS-bootstrap tokens win over --token", () => {
  const other = "zzzzzz.zzzzzzzzzzzzzzzz";
  const { config } = resolve({
    inputs: {
      apiServerEndpoint: "10.0.0.1:6443",
      token: TOKEN,
      tlsBootstrapToken: other,
      unsafeSkipCAVerification: true,
    },
  });
  assert.equal(config.discovery.bootstrapToken?.token, TOKEN);
  assert.equal(config.discovery.tlsBootstrapToken, other);
  assert.equal(isUnsafeTokenDiscovery(config), true);
});

Deno.test("flags: --control-plane gets the default taint, bind port and advertise address", () => {
  const { config } = resolve({
    inputs: {
      apiServerEndpoint: "10.0.0.1:6443",
      token: TOKEN,
      caCertHashes: [PIN],
      controlPlane: true,
      certificateKey: "ab".repeat(32),
    },
  });
  assert.deepEqual(config.controlPlane, {
    localAPIEndpoint: { advertiseAddress: "192.168.0.20", bindPort: 6443 },
    certificateKey: "ab".repeat(32),
  });
  assert.deepEqual(config.nodeRegistration.taints, [
    { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
  ]);
});

Deno.test("flags: control-plane flags without --control-plane only warn", () => {
  const { config, warnings } = resolve({
    inputs: {
      apiServerEndpoint: "10.0.0.1:6443",
      token: TOKEN,
      caCertHashes: [PIN],
      certificateKey: "ab".repeat(32),
    },
  });
  assert.equal(config.controlPlane, undefined);
  assert.deepEqual(warnings, [
    "[preflight] WARNING: --control-plane is also required when passing control-plane related flags such as [certificate-key, apiserver-advertise-address, apiserver-bind-port]",
  ]);
});

Deno.test("validation: discovery rules with upstream's messages", () => {
  assert.deepEqual(fieldErrors(() => resolve({ inputs: { token: TOKEN } })), [
    "discovery: bootstrapToken or file must be set",
  ]);
  assert.deepEqual(
    fieldErrors(() => resolve({ inputs: { apiServerEndpoint: "10.0.0.1:6443", token: TOKEN } })),
    [
      "discovery.bootstrapToken.caCertHashes: using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue",
    ],
  );
  assert.deepEqual(
    fieldErrors(() =>
      resolve({
        inputs: { apiServerEndpoint: "10.0.0.1", token: "Bad.Token", caCertHashes: [PIN] },
      })
    ),
    [
      "discovery.bootstrapToken.token: the bootstrap token is invalid",
      "discovery.bootstrapToken.apiServerEndpoint: address 10.0.0.1: missing port in address",
      "discovery.tlsBootstrapToken: the bootstrap token is invalid",
    ],
  );
  assert.deepEqual(
    fieldErrors(() =>
      resolve({
        inputs: {
          apiServerEndpoint: "10.0.0.1:6443",
          token: TOKEN,
          caCertHashes: [PIN],
          discoveryFile: "/tmp/x.conf",
        },
      })
    ),
    ["discovery: bootstrapToken and file cannot both be set"],
  );
  assert.deepEqual(
    fieldErrors(() =>
      resolve({ inputs: { discoveryFile: "http://example.com/c.conf" }, fileExists: () => true })
    ),
    ["discovery.file.kubeConfigPath: if a URL is used, the scheme must be https"],
  );
  assert.deepEqual(
    fieldErrors(() =>
      resolve({ inputs: { discoveryFile: "/nope.conf" }, fileExists: () => false })
    ),
    ["discovery.file.kubeConfigPath: not a valid HTTPS URL or a file on disk"],
  );
  // A discovery file without token: no TLS-bootstrap token needed; https URL accepted.
  const { config } = resolve({ inputs: { discoveryFile: "https://example.com/c.conf" } });
  assert.deepEqual(config.discovery, { file: { kubeConfigPath: "https://example.com/c.conf" } });
});

Deno.test("validation: secrets never appear in errors", () => {
  try {
    resolve({
      inputs: {
        apiServerEndpoint: "10.0.0.1:6443",
        token: "abcdef.TOPSECRETTOPSECRE",
        caCertHashes: [PIN],
        controlPlane: true,
        advertiseAddress: "10.0.0.2",
        certificateKey: "c0ffee",
      },
    });
    assert.fail("expected an error");
  } catch (e) {
    const text = `${(e as Error).message} ${JSON.stringify(e)}`;
    assert.doesNotMatch(text, /TOPSECRET/);
    assert.doesNotMatch(text, /c0ffee/);
    assert.match(text, /invalid certificate key size 3, the key must be an AES key of size 32/);
  }
});

Deno.test("--config: a JoinConfiguration, with node name, skip-phases and dry-run from flags", () => {
  const text = `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
caCertPath: /etc/kubernetes/pki/ca.crt
discovery:
  file:
    kubeConfigPath: file:///etc/kubernetes/discovery.conf
  tlsBootstrapToken: ${TOKEN}
nodeRegistration:
  criSocket: /run/containerd/containerd.sock
  taints: null
controlPlane:
  localAPIEndpoint:
    advertiseAddress: 10.0.0.3
timeouts:
  discovery: 10s
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
`;
  const { config, warnings } = resolve({
    text,
    source: "join.yaml",
    inputs: { nodeName: "CP-2", skipPhases: ["preflight"], dryRun: true },
    fileExists: (p) => p === "/etc/kubernetes/discovery.conf",
  });
  assert.equal(config.discovery.file?.kubeConfigPath, "/etc/kubernetes/discovery.conf");
  assert.equal(config.nodeRegistration.name, "cp-2");
  assert.equal(config.nodeRegistration.criSocket, "unix:///run/containerd/containerd.sock");
  assert.deepEqual(config.controlPlane?.localAPIEndpoint, {
    advertiseAddress: "10.0.0.3",
    bindPort: 6443,
  });
  assert.equal(config.timeouts.discovery, "10s");
  assert.deepEqual(config.skipPhases, ["preflight"]);
  assert.equal(config.dryRun, true);
  assert.ok(warnings.some((w) => /Automatically prepending scheme "unix"/.test(w)));
  assert.ok(warnings.some((w) => /Ignored configuration document .*ClusterConfiguration/.test(w)));
});

Deno.test("--config: no JoinConfiguration, unknown fields, bad caCertPath", () => {
  assert.throws(
    () =>
      resolve({
        text: "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n",
        source: "c.yaml",
      }),
    /c.yaml: no JoinConfiguration found in the supplied config/,
  );
  assert.throws(
    () =>
      resolve({
        text:
          "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ndiscovery:\n  fil: {}\n",
      }),
    /unknown field "discovery.fil"/,
  );
  assert.deepEqual(
    fieldErrors(() =>
      resolve({
        text: `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
caCertPath: relative/ca.pem
discovery:
  bootstrapToken:
    apiServerEndpoint: 10.0.0.1:6443
    token: ${TOKEN}
    unsafeSkipCAVerification: true
timeouts:
  tlsBootstrap: -1s
`,
      })
    ),
    [
      "caCertPath: the ca certificate path must be an absolute path",
      "timeouts.tlsBootstrap: the timeout must not be negative",
    ],
  );
});

Deno.test("ignored preflight errors merge flags and config; 'all' stands alone", () => {
  const { config } = resolve({
    inputs: {
      apiServerEndpoint: "10.0.0.1:6443",
      token: TOKEN,
      caCertHashes: [PIN],
      ignorePreflightErrors: ["Swap", "NumCPU"],
    },
  });
  assert.deepEqual(config.nodeRegistration.ignorePreflightErrors, ["numcpu", "swap"]);
  assert.deepEqual(
    fieldErrors(() =>
      resolve({
        inputs: {
          apiServerEndpoint: "10.0.0.1:6443",
          token: TOKEN,
          caCertHashes: [PIN],
          ignorePreflightErrors: ["all", "Swap"],
        },
      })
    ),
    ["ignore-preflight-errors: don't specify individual checks if 'all' is used"],
  );
});

Deno.test("phase commands without discovery flags use admin.conf as file discovery", () => {
  const { config } = resolve({
    inputs: { controlPlane: true },
    discoveryFallbackFile: "/etc/kubernetes/admin.conf",
  });
  assert.deepEqual(config.discovery, { file: { kubeConfigPath: "/etc/kubernetes/admin.conf" } });
});

// Issue 9, finding 4: a malformed CA pin is a validation error at once, in upstream's words,
// naming the flag or the config field it came from.
const BAD_PINS: [string, string][] = [
  ["sha256:zz", 'invalid hash "sha256:zz", expected a 32 byte SHA-256 hash, found 1 bytes'],
  [
    `sha256:${"zz".repeat(32)}`,
    `invalid hash "sha256:${
      "zz".repeat(32)
    }", could not decode SHA-256 from hex: encoding/hex: invalid byte: U+007A 'z'`,
  ],
  [`md5:${"ab".repeat(16)}`, 'unknown hash format "md5". Known format(s) are: sha256'],
  ["abcdef", 'invalid hash, expected "format:hex-value". Known format(s) are: sha256'],
];

Deno.test("validation: a malformed --discovery-token-ca-cert-hash names the flag", () => {
  for (const [pin, detail] of BAD_PINS) {
    assert.deepEqual(
      fieldErrors(() =>
        resolve({
          inputs: { apiServerEndpoint: "10.0.0.1:6443", token: TOKEN, caCertHashes: [PIN, pin] },
        })
      ),
      [`--discovery-token-ca-cert-hash: ${detail}`],
    );
  }
});

Deno.test("validation: a malformed caCertHashes entry in --config names the field", () => {
  for (const [pin, detail] of BAD_PINS) {
    const text = joinConfigurationYaml({
      endpoint: "10.0.0.1:6443",
      token: TOKEN,
      caCertHashes: [PIN, pin],
    });
    assert.deepEqual(
      fieldErrors(() => resolve({ text, source: "join.yaml" })),
      [`discovery.bootstrapToken.caCertHashes[1]: ${detail}`],
    );
  }
});

Deno.test("controlPlane advertiseAddress errors name the config field from --config and the flag from the flag", () => {
  const text = joinConfigurationYaml({
    endpoint: "10.0.0.1:6443",
    token: TOKEN,
    caCertHashes: [PIN],
    extra: "controlPlane:\n  localAPIEndpoint:\n    advertiseAddress: not-an-ip\n",
  });
  assert.throws(() => resolve({ text, source: "join.yaml" }), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.exitCode, 3);
    assert.equal(e.field, "controlPlane.localAPIEndpoint.advertiseAddress");
    assert.equal(
      e.message,
      `couldn't use "not-an-ip" as "controlPlane.localAPIEndpoint.advertiseAddress", must be ipv4 or ipv6 address`,
    );
    return true;
  });
  assert.throws(
    () =>
      resolve({
        inputs: {
          apiServerEndpoint: "10.0.0.1:6443",
          token: TOKEN,
          caCertHashes: [PIN],
          controlPlane: true,
          advertiseAddress: "not-an-ip",
        },
      }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.equal(e.field, "--apiserver-advertise-address");
      assert.match(e.message, /as "apiserver-advertise-address"/);
      return true;
    },
  );
});

Deno.test("an apiServerEndpoint that can never be dialed is refused before discovery (found by scripts/fuzz)", () => {
  // Upstream only splits host and port, then polls `127.0.0.1:abc` until discovery times out.
  const endpointError = (endpoint: string) =>
    fieldErrors(() =>
      resolve({
        inputs: { apiServerEndpoint: endpoint, token: TOKEN, caCertHashes: [PIN] },
      })
    );
  assert.deepEqual(endpointError("127.0.0.1:abc"), [
    "discovery.bootstrapToken.apiServerEndpoint: hostport 127.0.0.1:abc: port abc must be a valid number between 1 and 65535, inclusive",
  ]);
  assert.deepEqual(endpointError("10.0.0.1:65536"), [
    "discovery.bootstrapToken.apiServerEndpoint: hostport 10.0.0.1:65536: port 65536 must be a valid number between 1 and 65535, inclusive",
  ]);
  assert.deepEqual(endpointError("a b:6443"), [
    "discovery.bootstrapToken.apiServerEndpoint: hostport a b:6443: host 'a b' must be a valid IP address or a valid RFC-1123 DNS subdomain",
  ]);
  for (const ok of ["10.0.0.1:6443", "[fd00::1]:6443", "cp.example.test:443"]) {
    assert.equal(
      resolve({ inputs: { apiServerEndpoint: ok, token: TOKEN, caCertHashes: [PIN] } })
        .config.discovery.bootstrapToken?.apiServerEndpoint,
      ok,
    );
  }
});
