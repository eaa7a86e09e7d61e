import assert from "node:assert/strict";
import { bigintFromBytes, bytesFromBigint } from "../../core/bigint.ts";

Deno.test("bigint: big-endian unsigned bytes both ways", () => {
  assert.equal(bigintFromBytes(new Uint8Array()), 0n);
  assert.equal(bigintFromBytes(new Uint8Array([0, 0x01, 0x0f, 0xff])), 0x010fffn);
  assert.deepEqual(bytesFromBigint(0n), new Uint8Array([0]));
  assert.deepEqual(bytesFromBigint(0x10fffn), new Uint8Array([0x01, 0x0f, 0xff]));
  assert.deepEqual(bytesFromBigint(0x80n), new Uint8Array([0x80]));
  // A fixed length pads on the left, or keeps the low-order bytes.
  assert.deepEqual(bytesFromBigint(0x1ffn, 4), new Uint8Array([0, 0, 0x01, 0xff]));
  assert.deepEqual(bytesFromBigint(0x1020304n, 2), new Uint8Array([0x03, 0x04]));
  assert.deepEqual(bytesFromBigint(0n, 0), new Uint8Array());
  assert.throws(() => bytesFromBigint(-1n), RangeError);
  // Round trips through every length a caller uses (IPv6, a P-521 scalar, an RSA prime).
  for (const len of [4, 16, 66, 128]) {
    const bytes = crypto.getRandomValues(new Uint8Array(len));
    bytes[0] |= 1;
    assert.deepEqual(bytesFromBigint(bigintFromBytes(bytes)), bytes);
    assert.deepEqual(bytesFromBigint(bigintFromBytes(bytes), len + 1).subarray(1), bytes);
  }
});
