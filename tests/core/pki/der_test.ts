import assert from "node:assert/strict";
import {
  integer,
  oid,
  sequence,
  setOf,
  tlv,
  unsignedIntegerBytes,
  x509Time,
} from "../../../core/pki/der.ts";
import { keyUsageExtension } from "../../../core/pki/extensions.ts";
import { encodeName } from "../../../core/pki/name.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("DER primitives encode like Go's encoding/asn1", () => {
  assert.equal(hex(integer(0n)), "020100");
  assert.equal(hex(integer(127n)), "02017f");
  assert.equal(hex(integer(128n)), "02020080");
  assert.equal(hex(integer(new Uint8Array([0, 0, 0x81]))), "02020081");
  assert.equal(hex(unsignedIntegerBytes((1n << 63n) - 1n)), "7fffffffffffffff");
  assert.equal(hex(oid("1.2.840.113549.1.1.11")), "06092a864886f70d01010b");
  assert.equal(hex(oid("2.5.29.37.0")), "0604551d2500");
  assert.equal(hex(tlv(0x04, new Uint8Array(200))).slice(0, 6), "0481c8");
  assert.equal(hex(tlv(0x04, new Uint8Array(300))).slice(0, 8), "0482012c");
  assert.equal(
    hex(setOf(new Uint8Array([2, 1, 5]), new Uint8Array([2, 1, 3]))),
    "3106020103020105",
  );
  assert.equal(hex(sequence()), "3000");
});

Deno.test("x509Time() picks UTCTime before 2050 and GeneralizedTime after, dropping sub-seconds", () => {
  assert.equal(
    new TextDecoder().decode(x509Time(new Date("2026-03-01T09:55:00.750Z")).slice(2)),
    "260301095500Z",
  );
  assert.equal(x509Time(new Date("2049-12-31T23:59:59Z"))[0], 0x17);
  const g = x509Time(new Date("2050-01-01T00:00:00Z"));
  assert.equal(g[0], 0x18);
  assert.equal(new TextDecoder().decode(g.slice(2)), "20500101000000Z");
});

Deno.test("X509KeyUsage bit strings are minimal like Go's", () => {
  assert.equal(hex(keyUsageExtension(["digitalSignature", "keyEncipherment"]).value), "030205a0");
  assert.equal(
    hex(keyUsageExtension(["digitalSignature", "keyEncipherment", "keyCertSign"]).value),
    "030202a4",
  );
  assert.equal(hex(keyUsageExtension(["decipherOnly"]).value), "0303070080");
});

Deno.test("encodeName() writes one RDN set per attribute type, O before CN", () => {
  assert.equal(hex(encodeName({})), "3000");
  // SEQUENCE { SET { O=b (PrintableString) }, SET { CN=a } }
  assert.equal(
    hex(encodeName({ commonName: "a", organization: ["b"] })),
    "3018310a3008060355040a130162310a30080603550403130161",
  );
  // UTF8String (0x0c) when PrintableString cannot hold the value.
  assert.ok(hex(encodeName({ commonName: "a_b" })).includes("0c03615f62"));
});
