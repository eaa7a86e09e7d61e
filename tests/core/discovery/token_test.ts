// Token discovery (core/discovery/token.ts) beyond the end-to-end fetch tests: input is
// validated before any network call.
import { webCryptoPort } from "../../../adapters/crypto/webcrypto.ts";
import assert from "node:assert/strict";
import { DiscoveryError } from "../../../core/errors.ts";
import { discoverWithToken } from "../../../core/discovery/token.ts";
import { FakeClock } from "../../support/fake_clock.ts";

Deno.test("a malformed CA pin fails at once, before any cluster-info fetch", async () => {
  for (const pin of ["sha256:zz", `md5:${"ab".repeat(16)}`, "nocolon"]) {
    let fetches = 0;
    const clock = new FakeClock();
    await assert.rejects(
      () =>
        discoverWithToken({
          token: "abcdef.0123456789abcdef",
          caCertHashes: [pin],
          fetchClusterInfo: () => {
            fetches++;
            return Promise.resolve(new Error("connection refused"));
          },
          clock,
          sleep: clock.sleep,
          crypto: webCryptoPort,
        }),
      (e: unknown) => {
        assert.ok(e instanceof DiscoveryError);
        assert.match(
          e.message,
          /^couldn't validate the identity of the API Server: invalid discovery token CA certificate hash: /,
        );
        return true;
      },
    );
    assert.equal(fetches, 0, `${pin}: no request may be made`);
  }
});
