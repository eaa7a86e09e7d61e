/**
 * SHA-512/256 (FIPS 180-4 §5.3.6.2, §6.7), which the kubelet uses to name its bootstrap CSR.
 * WebCrypto has SHA-512 but not the truncated variants, so the compression function is
 * implemented here on BigInt words. The round constants and initial values are derived at load
 * time exactly as the standard defines them (cube and square roots of the first primes, and
 * the SHA-512/t IV generation function), so no table can be mistyped.
 *
 * Small inputs only (names of CSRs): the BigInt arithmetic is simple, not fast.
 *
 * @module
 */

const MASK = (1n << 64n) - 1n;

function firstPrimes(n: number): bigint[] {
  const out: bigint[] = [];
  for (let c = 2; out.length < n; c++) {
    if (out.every((p) => c % Number(p) !== 0)) out.push(BigInt(c));
  }
  return out;
}

/** floor(x^(1/k)) for a non-negative BigInt (Newton's method). */
function integerRoot(x: bigint, k: bigint): bigint {
  if (x < 2n) return x;
  let r = 1n << (BigInt(x.toString(2).length) / k + 1n);
  for (;;) {
    const next = ((k - 1n) * r + x / r ** (k - 1n)) / k;
    if (next >= r) break;
    r = next;
  }
  while (r ** k > x) r--;
  while ((r + 1n) ** k <= x) r++;
  return r;
}

/** First 64 bits of the fractional part of the k-th root of p. */
function fractionBits(p: bigint, k: bigint): bigint {
  return integerRoot(p << (64n * k), k) & MASK;
}

const PRIMES = firstPrimes(80);
const K: readonly bigint[] = PRIMES.map((p) => fractionBits(p, 3n));
const SHA512_IV: readonly bigint[] = PRIMES.slice(0, 8).map((p) => fractionBits(p, 2n));

const rotr = (x: bigint, n: bigint) => ((x >> n) | (x << (64n - n))) & MASK;

function compress(h: bigint[], block: Uint8Array, offset: number): void {
  const w: bigint[] = new Array(80);
  const view = new DataView(block.buffer, block.byteOffset + offset, 128);
  for (let t = 0; t < 16; t++) w[t] = view.getBigUint64(t * 8);
  for (let t = 16; t < 80; t++) {
    const s0 = rotr(w[t - 15], 1n) ^ rotr(w[t - 15], 8n) ^ (w[t - 15] >> 7n);
    const s1 = rotr(w[t - 2], 19n) ^ rotr(w[t - 2], 61n) ^ (w[t - 2] >> 6n);
    w[t] = (w[t - 16] + s0 + w[t - 7] + s1) & MASK;
  }
  let [a, b, c, d, e, f, g, hh] = h;
  for (let t = 0; t < 80; t++) {
    const S1 = rotr(e, 14n) ^ rotr(e, 18n) ^ rotr(e, 41n);
    const ch = (e & f) ^ (~e & MASK & g);
    const t1 = (hh + S1 + ch + K[t] + w[t]) & MASK;
    const S0 = rotr(a, 28n) ^ rotr(a, 34n) ^ rotr(a, 39n);
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) & MASK;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) & MASK;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) & MASK;
  }
  const v = [a, b, c, d, e, f, g, hh];
  for (let i = 0; i < 8; i++) h[i] = (h[i] + v[i]) & MASK;
}

function sha512Core(iv: readonly bigint[], data: Uint8Array): Uint8Array {
  const bitLen = BigInt(data.length) * 8n;
  const padded = new Uint8Array(Math.ceil((data.length + 17) / 128) * 128);
  padded.set(data);
  padded[data.length] = 0x80;
  const tail = new DataView(padded.buffer, padded.length - 16, 16);
  tail.setBigUint64(0, bitLen >> 64n);
  tail.setBigUint64(8, bitLen & MASK);
  const h = [...iv];
  for (let off = 0; off < padded.length; off += 128) compress(h, padded, off);
  const out = new Uint8Array(64);
  const view = new DataView(out.buffer);
  h.forEach((x, i) => view.setBigUint64(i * 8, x));
  return out;
}

/** The IV of SHA-512/t: SHA-512 with IV ⊕ 0xa5… over the text `SHA-512/t`. */
function sha512tIV(t: number): bigint[] {
  const iv = SHA512_IV.map((x) => x ^ 0xa5a5a5a5a5a5a5a5n);
  const digest = sha512Core(iv, new TextEncoder().encode(`SHA-512/${t}`));
  const view = new DataView(digest.buffer);
  return Array.from({ length: 8 }, (_, i) => view.getBigUint64(i * 8));
}

const SHA512_256_IV: readonly bigint[] = sha512tIV(256);

/** Plain SHA-512 (for cross-checking this implementation against WebCrypto). */
export function sha512(data: Uint8Array): Uint8Array {
  return sha512Core(SHA512_IV, data);
}

/** SHA-512/256 of `data` (32 bytes), as Go's `sha512.Sum512_256`. */
export function sha512_256(data: Uint8Array): Uint8Array {
  return sha512Core(SHA512_256_IV, data).slice(0, 32);
}
