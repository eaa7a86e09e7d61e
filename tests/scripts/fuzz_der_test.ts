// scripts/fuzz-der: its judge tells a clean rejection from a crash (a TypeError or RangeError
// hidden inside a PkiError included), the generator is reproducible, every seed parses and
// openssl accepts it, and a short seeded slice (every accepted certificate checked by
// openssl) has no finding. The full run (>= 100,000 cases) is run by hand:
// `scripts/fuzz-der --seed <s> --cases 100000`; its figures are in the README.
import assert from "node:assert/strict";
import {
  derContext,
  formatDerReport,
  isCleanRejection,
  opensslAccepts,
  runDerFuzz,
} from "../../scripts/fuzz_der.ts";
import { generateDerCase } from "../../scripts/fuzz_der_cases.ts";
import { readSeeds } from "../../scripts/fuzz_der_seeds.ts";
import { DiscoveryError, PkiError } from "../../core/errors.ts";
import { parseCertificate } from "../../core/pki/cert.ts";

/** Cases in CI's slice: seconds on two shared cores. */
const CI_CASES = 2000;

Deno.test("the judge passes KubeadmErrors only, down the whole cause chain", () => {
  assert.equal(isCleanRejection(new PkiError("x509: malformed tbs certificate")), true);
  const wrapped = new DiscoveryError("failed to parse cluster CA", {
    cause: new PkiError("x509: invalid version"),
  });
  assert.equal(isCleanRejection(wrapped), true);
  assert.equal(isCleanRejection(new TypeError("x is undefined")), false);
  assert.equal(isCleanRejection(new RangeError("Maximum call stack size exceeded")), false);
  // What the old catch-all made of a RangeError: still a crash.
  const masked = new PkiError("x509: malformed certificate", {
    cause: new RangeError("Invalid code point 4294967295"),
  });
  assert.equal(isCleanRejection(masked), false);
  assert.equal(isCleanRejection("a string"), false);
});

Deno.test("the same seed and index give the same case; the cases cover every target", async () => {
  const ctx = await derContext();
  const a = generateDerCase(7, 123, ctx.corpus, ctx.trees);
  const b = generateDerCase(7, 123, ctx.corpus, ctx.trees);
  assert.deepEqual(a, b);
  const targets = new Set(
    Array.from({ length: 200 }, (_, i) => generateDerCase(7, i, ctx.corpus, ctx.trees).target),
  );
  assert.deepEqual([...targets].sort(), ["cluster-info", "der", "pem"]);
});

Deno.test("every seed certificate parses, and openssl accepts it", async () => {
  const seeds = readSeeds();
  assert.ok(seeds.length >= 20, `${seeds.length} seeds`);
  for (const s of seeds) {
    assert.deepEqual(parseCertificate(s.der).der, s.der, s.name);
    assert.ok((await opensslAccepts(s.der)).ok, `openssl refuses seed ${s.name}`);
  }
  const names = seeds.map((s) => s.name).join("\n");
  for (const kind of ["kubeadm-ts RSA-2048", "kubeadm-ts ECDSA-P256", "Ed25519", "RSA-PSS", "v1"]) {
    assert.ok(names.includes(kind), kind);
  }
});

Deno.test(`a ${CI_CASES}-case slice: no crash, no hang, openssl accepts all we accept`, async () => {
  const report = await runDerFuzz({ seed: 25, cases: CI_CASES, openssl: "all" });
  assert.equal(report.cases, CI_CASES);
  assert.ok(report.accepted > 0 && report.rejected > 0, formatDerReport(report, 25));
  assert.equal(report.opensslChecked, report.acceptedDistinct);
  assert.deepEqual(report.findings, [], formatDerReport(report, 25));
});
