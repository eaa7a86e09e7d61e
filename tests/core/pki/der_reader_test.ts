import assert from "node:assert/strict";
import {
  childrenOf,
  isStructureError,
  oidOf,
  readDer,
  stringOf,
  timeOf,
} from "../../../core/pki/der_reader.ts";
import { oid, sequence, tlv, x509Time } from "../../../core/pki/der.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("readDer() reads what der.ts writes, as views into the input", () => {
  const der = sequence(oid("1.2.840.10045.3.1.7"), oid("2.5.4.3"), x509Time(new Date(0)));
  const top = readDer(der);
  assert.equal(top.raw.buffer, der.buffer);
  const [curve, cn, time] = childrenOf(top);
  assert.equal(oidOf(curve), "1.2.840.10045.3.1.7");
  assert.equal(oidOf(cn), "2.5.4.3");
  assert.equal(timeOf(time)?.toISOString(), "1970-01-01T00:00:00.000Z");
  assert.equal(oidOf(time), undefined);
  assert.deepEqual(childrenOf(curve), []);
});

Deno.test("readDer() reads long lengths and rejects what is not DER", () => {
  const long = tlv(0x04, new Uint8Array(300));
  assert.equal(readDer(long).content.length, 300);
  for (
    const bad of [
      bytes(),
      bytes(0x30),
      bytes(0x30, 0x80, 0x00, 0x00), // indefinite length (BER)
      bytes(0x04, 0x05, 0x01), // content past the end
      bytes(0x04, 0x85, 1, 0, 0, 0, 0), // five length octets
      bytes(0x30, 0x03, 0x04, 0x05, 0x00), // a child past its parent's end
    ]
  ) {
    assert.throws(() => childrenOf(readDer(bad)), (e) => isStructureError(e));
  }
});

Deno.test("stringOf() and timeOf() decode the string and time types names and validity use", () => {
  assert.equal(stringOf(readDer(tlv(0x0c, new TextEncoder().encode("é")))), "é");
  assert.equal(stringOf(readDer(tlv(0x13, new TextEncoder().encode("abc")))), "abc");
  assert.equal(stringOf(readDer(bytes(0x1e, 0x04, 0x00, 0x61, 0x00, 0x62))), "ab");
  assert.equal(stringOf(readDer(bytes(0x02, 0x01, 0x01))), undefined);
  const utc = (s: string) => readDer(tlv(0x17, new TextEncoder().encode(s)));
  const gen = (s: string) => readDer(tlv(0x18, new TextEncoder().encode(s)));
  assert.equal(timeOf(utc("491231235959Z"))?.toISOString(), "2049-12-31T23:59:59.000Z");
  assert.equal(timeOf(utc("500101000000Z"))?.toISOString(), "1950-01-01T00:00:00.000Z");
  assert.equal(timeOf(gen("20500101000000Z"))?.toISOString(), "2050-01-01T00:00:00.000Z");
  assert.equal(timeOf(gen("20500101000000.5+0100"))?.toISOString(), "2049-12-31T23:00:00.500Z");
  assert.equal(timeOf(utc("20500101000000Z")), undefined);
  assert.equal(timeOf(gen("2050")), undefined);
});
