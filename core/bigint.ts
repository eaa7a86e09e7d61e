/**
 * Unsigned big-endian bytes ↔ `bigint`: one conversion for the places that do arithmetic on
 * binary numbers (CIDR masks, certificate serials, EC scalars, RSA primes). Through hex, which is
 * linear in the length where a byte-by-byte shift is quadratic (RSA's 1024-bit primes).
 */

/** The non-negative integer whose big-endian unsigned bytes are `bytes` (0 for none). */
export function bigintFromBytes(bytes: Uint8Array): bigint {
  let hex = "0x0";
  for (const b of bytes) hex += b < 16 ? `0${b.toString(16)}` : b.toString(16);
  return BigInt(hex);
}

/**
 * The big-endian unsigned bytes of a non-negative integer: the fewest that hold it (at least one),
 * or exactly `length` bytes, keeping the low-order ones when it does not fit (as a cast would).
 */
export function bytesFromBigint(v: bigint, length?: number): Uint8Array {
  if (v < 0n) throw new RangeError("a negative integer has no unsigned bytes");
  let hex = v.toString(16);
  if (length === undefined) {
    if (hex.length & 1) hex = `0${hex}`;
  } else {
    hex = hex.length > 2 * length
      ? hex.slice(hex.length - 2 * length)
      : hex.padStart(2 * length, "0");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
