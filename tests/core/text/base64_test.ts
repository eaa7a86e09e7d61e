import assert from "node:assert/strict";
import * as native from "../../../core/text/base64.ts";

type Codec = typeof native;

/**
 * A second instance of the module loaded while the engine's own `toBase64`/`fromBase64` are
 * hidden, so its JavaScript fallbacks (what engines without them run) are what is tested.
 */
async function withoutNativeBase64(): Promise<Codec> {
  const proto = Uint8Array.prototype as { toBase64?: unknown };
  const ctor = Uint8Array as { fromBase64?: unknown };
  const saved = { to: proto.toBase64, from: ctor.fromBase64 };
  assert.ok(saved.to && saved.from, "this engine has the native codec the fallbacks stand for");
  delete proto.toBase64;
  delete ctor.fromBase64;
  try {
    return await import(`../../../core/text/base64.ts?fallback`);
  } finally {
    proto.toBase64 = saved.to;
    ctor.fromBase64 = saved.from;
  }
}

const fallback = await withoutNativeBase64();
assert.notEqual(fallback.base64Encode, native.base64Encode, "a second instance of the module");
const codecs: [string, Codec][] = [["native", native], ["fallback", fallback]];

/** Bytes of every length up to 70, each a different pattern. */
const samples = Array.from(
  { length: 70 },
  (_, n) => Uint8Array.from({ length: n }, (_, i) => (i * 97 + n * 13) & 0xff),
);

for (const [name, codec] of codecs) {
  Deno.test(`base64 (${name}): standard and URL-safe agree with btoa on every length`, () => {
    for (const bytes of samples) {
      const std = btoa(String.fromCharCode(...bytes));
      const url = std.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      assert.equal(codec.base64Encode(bytes), std);
      assert.deepEqual(codec.base64Decode(std), bytes);
      assert.deepEqual(codec.base64Decode(std.replace(/(.{8})/g, "$1\n ")), bytes);
      assert.equal(codec.base64UrlEncode(bytes), url);
      assert.deepEqual(codec.base64UrlDecode(url), bytes);
    }
    // Every digit of both alphabets.
    const all = Uint8Array.from({ length: 48 }, (_, i) => [0x00, 0x10, 0x83][i % 3] + (i >> 2));
    assert.equal(codec.base64UrlEncode(new Uint8Array([0xfb, 0xff, 0xbf])), "-_-_");
    assert.equal(codec.base64Encode(new Uint8Array([0xfb, 0xff, 0xbf])), "+/+/");
    assert.deepEqual(codec.base64UrlDecode(codec.base64UrlEncode(all)), all);
  });

  Deno.test(`base64 (${name}): malformed input is 'illegal base64 data'`, () => {
    // Standard: padding required (Go's StdEncoding), no URL digits; URL-safe: no padding, no
    // standard-only digits, no impossible length.
    for (const bad of ["YQ", "YQ=", "Y===", "-_-_", "YQ==YQ==x", "a"]) {
      assert.throws(() => codec.base64Decode(bad), /^Error: illegal base64 data$/, bad);
    }
    for (const bad of ["YQ==", "+/+/", "a", "abcde", "a b"]) {
      assert.throws(() => codec.base64UrlDecode(bad), /^Error: illegal base64 data$/, bad);
    }
  });
}
