import assert from "node:assert/strict";
import { getMinHashLength, mapHashToField } from "@noble/curves/abstract/modular.js";
import { p256, p384, p521 } from "@noble/curves/nist.js";
import { CURVE_ORDER, ecScalarFromSeed, ecSeedLength } from "../../../core/pki/ec_curve.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("CURVE_ORDER is each curve's group order (as noble's curves define it)", () => {
  assert.equal(CURVE_ORDER["P-256"], p256.Point.Fn.ORDER);
  assert.equal(CURVE_ORDER["P-384"], p384.Point.Fn.ORDER);
  assert.equal(CURVE_ORDER["P-521"], p521.Point.Fn.ORDER);
});

Deno.test("ecScalarFromSeed maps a seed as noble's audited mapHashToField does (FIPS 186-5 A.2.1)", () => {
  const curves = { "P-256": p256, "P-384": p384, "P-521": p521 } as const;
  for (const curve of ["P-256", "P-384", "P-521"] as const) {
    const order = curves[curve].Point.Fn.ORDER;
    assert.equal(ecSeedLength(curve), getMinHashLength(order));
    const len = ecSeedLength(curve);
    const seeds = [
      new Uint8Array(len), // 0 -> 1
      new Uint8Array(len).fill(0xff), // the largest seed
      crypto.getRandomValues(new Uint8Array(len)),
      crypto.getRandomValues(new Uint8Array(len + 7)), // longer seeds are accepted
    ];
    for (const seed of seeds) {
      assert.equal(hex(ecScalarFromSeed(curve, seed)), hex(mapHashToField(seed, order)));
    }
    assert.equal(BigInt("0x" + hex(ecScalarFromSeed(curve, seeds[0]))), 1n);
    assert.throws(() => ecScalarFromSeed(curve, new Uint8Array(len - 1)), RangeError);
  }
});
