// The CA certificate of the TLS bootstrap kubeconfig (upstream v1.35+ `getCACertFromKubeconfig`):
// discovery fails when the CA data holds no certificate.
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import { webKeys } from "../../support/platform.ts";
import assert from "node:assert/strict";
import {
  bootstrapCaSummary,
  buildTlsBootstrapKubeconfig,
} from "../../../core/discovery/tls_bootstrap.ts";
import { DiscoveryError } from "../../../core/errors.ts";
import { webRandom } from "../../../adapters/web/random.ts";
import { encodeCertificatePEM } from "../../../core/pki/cert.ts";
import { newCertificateAuthority } from "../../support/test_pki.ts";
import { generateKeyPair } from "../../../core/pki/keys.ts";
import { certificatePin } from "../../../core/pki/pin.ts";

Deno.test("the CA of the bootstrap kubeconfig is summarised with its pin", async () => {
  const key = await generateKeyPair("ECDSA-P256", webKeys);
  const ca = await newCertificateAuthority(
    { commonName: "kubernetes", notBefore: new Date(Date.UTC(2026, 0, 1)) },
    key,
    webRandom,
    webCryptoPort,
  );
  const cfg = buildTlsBootstrapKubeconfig(
    "https://10.0.0.1:6443",
    encodeCertificatePEM(ca.cert),
    "abcdef.0123456789abcdef",
  );
  const summary = await bootstrapCaSummary(cfg, webCryptoPort);
  assert.equal(summary.subject, "CN=kubernetes");
  assert.equal(summary.pin, await certificatePin(ca.cert, webCryptoPort));
});

Deno.test("a bootstrap kubeconfig whose CA data holds no certificate fails discovery", async () => {
  const cfg = buildTlsBootstrapKubeconfig("https://10.0.0.1:6443", "", "abcdef.0123456789abcdef");
  await assert.rejects(
    () => bootstrapCaSummary(cfg, webCryptoPort),
    (e: unknown) =>
      e instanceof DiscoveryError &&
      e.message ===
        "could not get CA certificate from discovery kubeconfig: no CA certificate found in CertificateAuthorityData",
  );
});
