/**
 * RSA key generation for the command line, at about a third of the CPU time of Deno's
 * WebCrypto `generateKey` (measured: see README, Benchmarks).
 *
 * Deno's WebCrypto and `node:crypto` generate RSA keys with RustCrypto's `rsa`, whose prime
 * search (Go's old `crypto/rand.Prime`) sieves each random candidate by the primes up to 53
 * only, so about a hundred candidates per prime get a Miller-Rabin exponentiation, and the
 * prime found gets 21 rounds and a Lucas test: 120–185 ms of CPU per RSA-2048 key here, against
 * ~60–75 ms for upstream kubeadm (Go) and ~30–35 ms for this module. This module searches as OpenSSL and Java do: a random start
 * (odd, its two top bits set, so that `p·q` has exactly the key's size), a window of the odd
 * numbers after it sieved by every prime below 2^16 (and by `p ≡ 1 mod e`, so that `e` is
 * invertible), and the survivors tested in order with Miller-Rabin rounds on random bases
 * drawn from the platform's CSPRNG, as many rounds as Go's FIPS 186-5 key generation uses
 * (5 for 1024-bit primes); about 40 exponentiations per prime. The exponentiations are
 * native: `node:crypto`'s Diffie-Hellman `computeSecret` is `otherPublicKey^privateKey mod
 * prime`, computed by the same big-integer crate (`num-bigint-dig`) as `rsa`'s own tests.
 *
 * The key is FIPS 186-5 A.1.3's: `|p - q| > 2^(nlen/2 - 100)`, `d = e^-1 mod lcm(p-1, q-1)`
 * and `d > 2^(nlen/2)`, else new primes. Generation runs on the main thread, one key at a
 * time in request order (the first key asked for is the first ready), yielding to the event
 * loop between candidates so that I/O (preflight's checks) goes on meanwhile.
 *
 * @module
 */
import { createDiffieHellman } from "node:crypto";
import { setImmediate } from "node:timers";
import { bigintFromBytes, bytesFromBigint } from "../../core/bigint.ts";
import { integer, sequence } from "../../core/pki/der.ts";

/** The public exponent of every key kubeadm makes (WebCrypto's `[1, 0, 1]`). */
const E = 65537n;
/** Sieving primes: the odd primes below this bound. */
const SIEVE_BOUND = 1 << 16;
/** Odd numbers sieved after each random start (~5.8 primes among them for 1024 bits). */
const WINDOW = 2048;

/** The odd primes below {@link SIEVE_BOUND}, grouped so that each group's product < 2^53. */
let sieve: { primes: number[]; groups: { product: bigint; primes: number[] }[] } | undefined;

function sievePrimes() {
  if (sieve) return sieve;
  const composite = new Uint8Array(SIEVE_BOUND);
  const primes: number[] = [];
  for (let i = 3; i < SIEVE_BOUND; i += 2) {
    if (composite[i]) continue;
    primes.push(i);
    for (let j = i * i; j < SIEVE_BOUND; j += 2 * i) composite[j] = 1;
  }
  const groups: { product: bigint; primes: number[] }[] = [];
  let group: number[] = [];
  let product = 1;
  for (const q of primes) {
    if (product * q >= 2 ** 53) {
      groups.push({ product: BigInt(product), primes: group });
      group = [];
      product = 1;
    }
    group.push(q);
    product *= q;
  }
  groups.push({ product: BigInt(product), primes: group });
  return sieve = { primes, groups };
}

/** Miller-Rabin rounds for a prime of `bits` bits (Go's FIPS 186-5 key generation's table). */
export function millerRabinRounds(bits: number): number {
  return bits >= 3747 ? 3 : bits >= 1345 ? 4 : bits >= 476 ? 5 : bits >= 400 ? 6 : 7;
}

/** A uniform random integer in [2, n-2], by rejection from the CSPRNG. */
function randomBase(n: bigint, bytes: number): bigint {
  const buf = new Uint8Array(bytes);
  for (;;) {
    crypto.getRandomValues(buf);
    const a = bigintFromBytes(buf);
    if (a >= 2n && a <= n - 2n) return a;
  }
}

/**
 * Whether the odd `n` (> 3) passes `rounds` Miller-Rabin rounds on random bases: false means
 * composite; true means prime with an error probability below 4^-rounds (far below for random
 * candidates).
 */
export function millerRabin(n: bigint, rounds: number): boolean {
  const nm1 = n - 1n;
  let d = nm1;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  const bytes = Math.ceil(n.toString(16).length / 2);
  // computeSecret(a) = a^d mod n (the "private key" is the exponent, the "prime" the modulus).
  const pow = createDiffieHellman(bytesFromBigint(n));
  pow.setPrivateKey(bytesFromBigint(d));
  for (let round = 0; round < rounds; round++) {
    let x = bigintFromBytes(pow.computeSecret(bytesFromBigint(randomBase(n, bytes))));
    if (x === 1n || x === nm1) continue;
    let witness = true;
    for (let j = 1; j < s && witness; j++) {
      x = x * x % n;
      if (x === nm1) witness = false;
      else if (x === 1n) break;
    }
    if (witness) return false;
  }
  return true;
}

/** Lets the event loop run (I/O callbacks included) before the next candidate. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A random prime of exactly `bits` bits (a multiple of 8), its two top bits set, `p mod e ≠ 1`. */
export async function randomPrime(bits: number): Promise<bigint> {
  const { groups } = sievePrimes();
  const rounds = millerRabinRounds(bits);
  const limit = 1n << BigInt(bits);
  const marks = new Uint8Array(WINDOW);
  const eNum = Number(E);
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(bits / 8));
    bytes[0] |= 0xc0;
    bytes[bytes.length - 1] |= 1;
    const start = bigintFromBytes(bytes);
    bytes.fill(0);
    marks.fill(0);
    // Offset i stands for start + 2i; q divides it when i ≡ (q - start mod q) · 2^-1 (mod q).
    for (const { product, primes } of groups) {
      const r = Number(start % product);
      for (const q of primes) {
        let i = ((q - r % q) % q) * ((q + 1) / 2) % q;
        for (; i < WINDOW; i += q) marks[i] = 1;
      }
    }
    // p ≡ 1 (mod e) would leave e without an inverse mod p - 1.
    const re = Number(start % E);
    for (let i = ((1 - re + eNum) % eNum) * ((eNum + 1) / 2) % eNum; i < WINDOW; i += eNum) {
      marks[i] = 1;
    }
    for (let i = 0; i < WINDOW; i++) {
      if (marks[i]) continue;
      const p = start + BigInt(2 * i);
      if (p >= limit) break;
      const prime = millerRabin(p, rounds);
      await yieldToEventLoop();
      if (prime) return p;
    }
  }
}

/** `a^-1 mod m` (a and m coprime), by the extended Euclidean algorithm. */
export function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1] = [a % m, m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new Error("modInverse: not invertible");
  return ((s0 % m) + m) % m;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** The components of a generated key. */
export interface RsaKeyComponents {
  n: bigint;
  e: bigint;
  d: bigint;
  p: bigint;
  q: bigint;
  dp: bigint;
  dq: bigint;
  qi: bigint;
}

/** A new RSA key of `modulusLength` bits (a multiple of 16), public exponent 65537. */
export async function generateRsaComponents(modulusLength: number): Promise<RsaKeyComponents> {
  const half = modulusLength / 2;
  if (!Number.isInteger(half / 8) || half < 256) {
    throw new RangeError(`RSA modulus length ${modulusLength}: a multiple of 16, at least 512`);
  }
  for (;;) {
    let p = await randomPrime(half);
    let q = await randomPrime(half);
    if (p < q) [p, q] = [q, p];
    if (p - q <= 1n << BigInt(half - 100)) continue;
    const pm1 = p - 1n, qm1 = q - 1n;
    const d = modInverse(E, pm1 / gcd(pm1, qm1) * qm1);
    if (d <= 1n << BigInt(half)) continue;
    return { n: p * q, e: E, d, p, q, dp: d % pm1, dq: d % qm1, qi: modInverse(q, p) };
  }
}

/** PKCS#1 `RSAPrivateKey` DER of a key's components. */
export function pkcs1OfComponents(k: RsaKeyComponents): Uint8Array {
  return sequence(
    integer(0n),
    ...[k.n, k.e, k.d, k.p, k.q, k.dp, k.dq, k.qi].map((v) => integer(v)),
  );
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * A new RSA key as PKCS#1 DER; concurrent calls are served one after another in call order.
 */
export function generateRsaPkcs1(modulusLength: number): Promise<Uint8Array> {
  const key = queue.then(async () => pkcs1OfComponents(await generateRsaComponents(modulusLength)));
  queue = key.catch(() => {});
  return key;
}
