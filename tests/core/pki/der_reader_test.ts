import assert from "node:assert/strict";
import {
  bitStringOf,
  booleanOf,
  childrenOf,
  integerOf,
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
  assert.throws(
    () => stringOf(readDer(bytes(0x02, 0x01, 0x01))),
    /^PkiError: unsupported string type: 2$/,
  );
  const utc = (s: string) => readDer(tlv(0x17, new TextEncoder().encode(s)));
  const gen = (s: string) => readDer(tlv(0x18, new TextEncoder().encode(s)));
  assert.equal(timeOf(utc("491231235959Z"))?.toISOString(), "2049-12-31T23:59:59.000Z");
  assert.equal(timeOf(utc("500101000000Z"))?.toISOString(), "1950-01-01T00:00:00.000Z");
  assert.equal(timeOf(gen("20500101000000Z"))?.toISOString(), "2050-01-01T00:00:00.000Z");
  assert.equal(timeOf(gen("20500101000000+0100"))?.toISOString(), "2049-12-31T23:00:00.000Z");
  assert.equal(timeOf(utc("20500101000000Z")), undefined);
  assert.equal(timeOf(gen("2050")), undefined);
});

// Findings of scripts/fuzz-der (issue 25): what Go's DER readers refuse, refused here too.

Deno.test("readDer() refuses the high-tag-number form and lengths not in their shortest form", () => {
  for (
    const bad of [
      bytes(0x1f, 0x02, 0x01, 0x00), // INTEGER written in the high-tag form
      bytes(0xbf, 0x81, 0x00, 0x00), // [128]
      bytes(0x04, 0x81, 0x05, 1, 2, 3, 4, 5), // long form for a length below 128
      bytes(0x04, 0x82, 0x00, 0x81, ...new Array(0x81).fill(0)), // leading zero length octet
    ]
  ) {
    assert.throws(() => readDer(bad), (e) => isStructureError(e));
  }
  assert.equal(readDer(bytes(0x04, 0x81, 0x80, ...new Array(0x80).fill(7))).content.length, 0x80);
});

Deno.test("integerOf() reads minimal INTEGERs only; a 2 MiB one at once (it took minutes)", () => {
  const int = (...c: number[]) => integerOf(readDer(tlv(0x02, Uint8Array.from(c))));
  assert.equal(int(0x00), 0n);
  assert.equal(int(0x00, 0x80), 128n);
  assert.equal(int(0xff, 0x7f), -129n);
  assert.equal(int(0x80), -128n);
  for (const bad of [[], [0x00, 0x7f], [0xff, 0x80]]) {
    assert.throws(() => int(...bad), (e) => isStructureError(e));
  }
  // Shifting a BigInt octet by octet was quadratic: 2 MiB (what discovery reads at most).
  const huge = new Uint8Array(2 * 1024 * 1024).fill(0xab);
  huge[0] = 0x7f;
  const v = integerOf(readDer(tlv(0x02, huge)));
  assert.equal(v.toString(16).length, huge.length * 2);
  assert.equal(v.toString(16).slice(0, 6), "7fabab");
});

Deno.test("oidOf() refuses OIDs Go refuses: empty, non-minimal or unterminated arcs, arcs over 31 bits", () => {
  const oidEl = (...c: number[]) => readDer(tlv(0x06, Uint8Array.from(c)));
  assert.equal(oidOf(oidEl(0x2a, 0x87, 0xff, 0xff, 0xff, 0x7f)), "1.2.2147483647");
  for (
    const bad of [[], [0x2a, 0x86], [0x2a, 0x80, 0x01], [0x80, 0x01], [
      0x2a,
      0x88,
      0x80,
      0x80,
      0x80,
      0x00,
    ]]
  ) {
    assert.equal(oidOf(oidEl(...bad)), undefined, `${bad}`);
  }
});

Deno.test("booleanOf() and bitStringOf() take DER's forms only", () => {
  assert.equal(booleanOf(readDer(bytes(0x01, 0x01, 0xff))), true);
  assert.equal(booleanOf(readDer(bytes(0x01, 0x01, 0x00))), false);
  for (const bad of [bytes(0x01, 0x01, 0x01), bytes(0x01, 0x00), bytes(0x01, 0x02, 0, 0)]) {
    assert.throws(() => booleanOf(readDer(bad)), (e) => isStructureError(e));
  }
  assert.deepEqual(bitStringOf(readDer(bytes(0x03, 0x02, 0x01, 0x86))), bytes(0x86));
  assert.deepEqual(bitStringOf(readDer(bytes(0x03, 0x01, 0x00))), bytes());
  for (
    const bad of [
      bytes(0x03, 0x00), // no unused-bits octet
      bytes(0x03, 0x02, 0x08, 0x00), // 8 unused bits
      bytes(0x03, 0x01, 0x01), // unused bits without data
      bytes(0x03, 0x02, 0x01, 0x87), // an unused bit set
    ]
  ) {
    assert.throws(() => bitStringOf(readDer(bad)), (e) => isStructureError(e));
  }
});

Deno.test("stringOf() reads Go's string types with Go's checks; long strings do not overflow the stack", () => {
  const str = (tag: number, c: Uint8Array | number[]) =>
    stringOf(readDer(tlv(tag, Uint8Array.from(c))));
  assert.equal(str(0x14, [0x47, 0xfc]), "Gü"); // T61String as Latin-1
  assert.equal(str(0x1e, [0x00, 0x61, 0x00, 0x00]), "a"); // BMPString, NUL terminator dropped
  assert.equal(str(0x13, new TextEncoder().encode("*.a&b")), "*.a&b");
  for (
    const [tag, c, message] of [
      [0x0c, [0xc3, 0x28], "invalid UTF-8 string"],
      [0x0c, [0xed, 0xa0, 0x80], "invalid UTF-8 string"], // a surrogate
      [0x13, [0x40], "invalid PrintableString"],
      [0x16, [0x80], "invalid IA5String"],
      [0x12, [0x41], "invalid NumericString"],
      [0x1e, [0x00, 0x61, 0x00], "invalid BMPString"],
      [0x1e, [0xd8, 0x00], "invalid BMPString"],
      // UniversalString: its code points above U+10FFFF were a RangeError.
      [0x1c, [0xff, 0xff, 0xff, 0xff], "unsupported string type: 28"],
    ] as const
  ) {
    assert.throws(() => str(tag, [...c]), { name: "PkiError", message });
  }
  // Spreading 256 KiB into String.fromCharCode was a RangeError.
  const long = new Uint8Array(256 * 1024).fill(0x61);
  assert.equal(str(0x13, long).length, long.length);
  assert.equal(str(0x14, long).length, long.length);
  assert.equal(
    str(0x1e, new Uint8Array(long.length).map((_, i) => (i % 2 ? 0x61 : 0))).length,
    long.length / 2,
  );
});

Deno.test("timeOf() reads UTCTime and GeneralizedTime as Go does", () => {
  const utc = (s: string) => timeOf(readDer(tlv(0x17, new TextEncoder().encode(s))))?.toISOString();
  const gen = (s: string) => timeOf(readDer(tlv(0x18, new TextEncoder().encode(s))))?.toISOString();
  assert.equal(utc("2602281230Z"), "2026-02-28T12:30:00.000Z"); // minutes only
  assert.equal(utc("260228123000-0130"), "2026-02-28T14:00:00.000Z");
  assert.equal(utc("000229000000Z"), "2000-02-29T00:00:00.000Z");
  assert.equal(gen("00000101000000Z"), "0000-01-01T00:00:00.000Z");
  assert.equal(gen("20260101000000Z"), "2026-01-01T00:00:00.000Z"); // before 2050: not DER, Go reads it
  for (
    const bad of [
      "260229000000Z", // not a leap year
      "261301000000Z",
      "260100000000Z",
      "260101240000Z",
      "260101006000Z",
      "260101000060Z",
      "260101000000+0000", // Go writes a zero offset as Z
      "260101000000+2500",
      "260101000000+0060",
      "260101000000.5Z",
      "260101000000z",
      "260101000000",
      " 60101000000Z",
    ]
  ) {
    assert.equal(utc(bad), undefined, bad);
  }
  for (const bad of ["202601010000Z", "20260101000000.5Z", "20260101000000+0000"]) {
    assert.equal(gen(bad), undefined, bad);
  }
});
