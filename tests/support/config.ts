/**
 * Test helpers for anything that needs a resolved kubeadm configuration: a fixed host, a
 * deterministic random source and a one-call resolver.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { RandomSource } from "../../core/ports/random.ts";
import type { KubeadmError } from "../../core/errors.ts";
import type { Inputs } from "../../core/config/inputs.ts";
import {
  type InitHostFacts,
  resolveInitConfig,
  type ResolveInitResult,
} from "../../core/config/resolve.ts";

/** Host facts used by config tests: hostname `Test-Node`, advertise address 192.0.2.10. */
export const TEST_HOST: InitHostFacts = {
  hostname: "Test-Node",
  defaultAdvertiseAddress: "192.0.2.10",
};

/** A random source replaying `stream` (then zeros); records how many bytes were asked. */
export function streamRandom(stream: number[]): RandomSource & { requested: number } {
  let pos = 0;
  const src = {
    requested: 0,
    bytes(n: number): Uint8Array {
      src.requested += n;
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = pos < stream.length ? stream[pos++] : 0;
      return out;
    },
  };
  return src;
}

/** A deterministic, non-repeating random source (a counter). */
export function counterRandom(start = 1): RandomSource {
  let next = start;
  return {
    bytes(n: number): Uint8Array {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = next++ % 252;
      return out;
    },
  };
}

/** Resolves a config for tests with {@link TEST_HOST} and a counter random source. */
export function resolveForTest(
  text?: string,
  inputs?: Inputs,
  extra: { strict?: boolean; host?: Partial<InitHostFacts> } = {},
): ResolveInitResult {
  return resolveInitConfig({
    text,
    inputs,
    host: { ...TEST_HOST, ...extra.host },
    random: counterRandom(),
    strict: extra.strict,
  });
}

/**
 * Asserts that `fn` throws a kubeadm error of class `type` with exit status 3 whose message
 * contains every one of `fragments`; returns the error.
 */
export function assertConfigFailure<T extends KubeadmError>(
  fn: () => unknown,
  type: new (...args: never[]) => T,
  ...fragments: string[]
): T {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof type, `expected ${type.name}, got ${String(caught)}`);
  const err = caught as T;
  assert.equal(err.exitCode, 3, `exit code of: ${err.message}`);
  for (const f of fragments) {
    assert.ok(
      err.message.includes(f),
      `message ${JSON.stringify(err.message)} lacks ${JSON.stringify(f)}`,
    );
  }
  return err;
}

/** Options of {@link joinConfigurationYaml}. */
export interface JoinYamlOptions {
  endpoint: string;
  token: string;
  caCertHashes?: string[];
  unsafeSkipCAVerification?: boolean;
  /** Further top-level YAML (e.g. `timeouts:` or `controlPlane:` blocks). */
  extra?: string;
}

/** A v1beta4 JoinConfiguration with token discovery, as YAML text. */
export function joinConfigurationYaml(o: JoinYamlOptions): string {
  const lines = [
    "apiVersion: kubeadm.k8s.io/v1beta4",
    "kind: JoinConfiguration",
    "discovery:",
    "  bootstrapToken:",
    `    apiServerEndpoint: ${JSON.stringify(o.endpoint)}`,
    `    token: ${JSON.stringify(o.token)}`,
  ];
  if (o.caCertHashes) lines.push(`    caCertHashes: ${JSON.stringify(o.caCertHashes)}`);
  if (o.unsafeSkipCAVerification) lines.push("    unsafeSkipCAVerification: true");
  return `${lines.join("\n")}\n${o.extra ?? ""}`;
}

/**
 * The smallest config the golden tests give upstream kubeadm and ours: node `node-a`
 * advertising 192.0.2.10, everything else defaulted (RSA-2048 keys).
 */
export const GOLDEN_DEFAULT_CONFIG = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 192.0.2.10
nodeRegistration:
  name: node-a
`;

/** Options of {@link testInitConfigYaml}. */
export interface TestInitConfigOptions {
  /** `nodeRegistration.name`. */
  name: string;
  /** `localAPIEndpoint.advertiseAddress` (port 6443). */
  address: string;
  /** Lines appended to the InitConfiguration. */
  init?: string;
  /** Lines appended to the ClusterConfiguration. */
  cluster?: string;
  /** Further documents (KubeletConfiguration, KubeProxyConfiguration), each without `---`. */
  documents?: readonly string[];
  /** The keys' algorithm (default ECDSA-P256; `RSA-2048` is kubeadm's own default). */
  encryptionAlgorithm?: string;
}

/**
 * The e2e tests' kubeadm config: an InitConfiguration with the bootstrap token
 * `abcdef.0123456789abcdef`, ECDSA-P256 keys and the pod subnet 10.244.0.0/16.
 */
export function testInitConfigYaml(o: TestInitConfigOptions): string {
  return [
    `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
- token: abcdef.0123456789abcdef
localAPIEndpoint:
  advertiseAddress: ${o.address}
  bindPort: 6443
nodeRegistration:
  name: ${o.name}
${o.init ?? ""}`,
    `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
encryptionAlgorithm: ${o.encryptionAlgorithm ?? "ECDSA-P256"}
networking:
  podSubnet: 10.244.0.0/16
${o.cluster ?? ""}`,
    ...(o.documents ?? []),
  ].join("---\n");
}
