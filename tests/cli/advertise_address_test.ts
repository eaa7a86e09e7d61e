// An unspecified --apiserver-advertise-address (0.0.0.0, ::) resolves to this host's address,
// as upstream's dynamic defaults: it never ends up in a certificate or a manifest as is
// (found by scripts/fuzz: `init phase certs all --apiserver-advertise-address=0.0.0.0` signed
// the API server's certificate for 0.0.0.0).
import assert from "node:assert/strict";
import { main } from "../../cli/main.ts";
import { defaultAdvertiseAddress, detectDefaultAddress } from "../../adapters/deno/host/facts.ts";
import { x509Text } from "../support/openssl.ts";

Deno.test("defaultAdvertiseAddress detects for unset and unspecified addresses only", () => {
  const detected = detectDefaultAddress();
  assert.ok(detected, "this host has a default route");
  assert.equal(defaultAdvertiseAddress(undefined), detected);
  assert.equal(defaultAdvertiseAddress("0.0.0.0"), detected);
  assert.equal(defaultAdvertiseAddress("::"), detected);
  assert.equal(defaultAdvertiseAddress("10.1.2.3"), "10.1.2.3");
});

Deno.test("init phase certs apiserver --apiserver-advertise-address 0.0.0.0 signs for this host's address", async () => {
  const root = await Deno.makeTempDir({ prefix: "kts-advertise-" });
  try {
    let output = "";
    const run = (...args: string[]) =>
      main(["init", "phase", "certs", ...args, "--rootfs", root], {
        streams: {
          stdout: (t) => output += t,
          stderr: (t) => output += t,
          stdin: () => new Blob([]).stream(),
        },
      });
    assert.equal(await run("ca"), 0, output);
    assert.equal(await run("apiserver", "--apiserver-advertise-address", "0.0.0.0"), 0, output);
    const text = await x509Text(
      await Deno.readTextFile(`${root}/etc/kubernetes/pki/apiserver.crt`),
    );
    assert.doesNotMatch(text, /IP Address:0\.0\.0\.0/);
    assert.match(text, new RegExp(`IP Address:${detectDefaultAddress()!.replaceAll(".", "\\.")}`));
    assert.doesNotMatch(output, /IPs \[[^\]]*0\.0\.0\.0/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
