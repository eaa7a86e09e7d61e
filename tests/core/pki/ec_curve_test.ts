import assert from "node:assert/strict";
import { getMinHashLength, mapHashToField } from "@noble/curves/abstract/modular.js";
import { p256, p384, p521 } from "@noble/curves/nist.js";
import {
  CURVE_ORDER,
  ecPointProblem,
  ecScalarFromSeed,
  ecSeedLength,
} from "../../../core/pki/ec_curve.ts";

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

Deno.test("ecPointProblem: the curves' own points pass; Go's messages for the others", () => {
  const curves = { P256: p256, P384: p384, P521: p521 } as const;
  for (const [name, curve] of Object.entries(curves) as [keyof typeof curves, typeof p256][]) {
    for (let i = 0; i < 3; i++) {
      const point = curve.getPublicKey(curve.utils.randomSecretKey(), false);
      assert.equal(ecPointProblem(name, point), undefined, name);
      const off = point.slice();
      off[off.length - 1] ^= 1;
      assert.equal(ecPointProblem(name, off), `${name} point not on curve`);
    }
    const g = curve.Point.BASE.toBytes(false);
    assert.equal(ecPointProblem(name, g), undefined);
    assert.equal(ecPointProblem(name, g.subarray(1)), `invalid ${name} point encoding`);
    const big = g.slice();
    big.fill(0xff, 1, 1 + (g.length - 1) / 2);
    assert.equal(ecPointProblem(name, big), `invalid ${name}Element encoding`);
  }
  // P-224 (which noble lacks): its generator, from SEC 2.
  const g224 = Uint8Array.from(
    ("04b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21" +
      "bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34").match(/../g)!,
    (h) => parseInt(h, 16),
  );
  assert.equal(ecPointProblem("P224", g224), undefined);
  g224[56] ^= 1;
  assert.equal(ecPointProblem("P224", g224), "P224 point not on curve");
});
