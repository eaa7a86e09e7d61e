/**
 * RSA-2048 key generation in Deno's WebCrypto, for `scripts/bench`: the mean per-key cost one
 * at a time (wall and CPU), and the wall time of generating `keys` keys all at once (what the
 * certificate phases do through the key pool), so the bench can show the floor
 * `keys × per-key ÷ cores`, and, given the keys of each phase (`11,5`: `certs all`, then
 * `kubeconfig all`), those batches one after the other, each all at once (what the two
 * processes can do at best; the median of three rounds). Then the command line's own RSA key
 * generation (adapters/deno/rsa_keygen.ts, one key after another, as its queue makes them), per
 * key. Prints one line: `serial_wall_ms_per_key serial_cpu_ms_per_key concurrent_wall_ms
 * concurrent_cpu_ms cores [batches_wall_ms batches_cpu_ms] ours_wall_ms_per_key
 * ours_cpu_ms_per_key`.
 * Usage: deno run --allow-sys scripts/bench_keygen.ts [keys] [serial-samples] [batches]
 *
 * @module
 */
import { cpuUsage } from "node:process";
import { generateRsaPkcs1 } from "../adapters/deno/rsa_keygen.ts";

const keys = Number(Deno.args[0] ?? 16);
const samples = Number(Deno.args[1] ?? 16);
const params: RsaHashedKeyGenParams = {
  name: "RSASSA-PKCS1-v1_5",
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: "SHA-256",
};
const generate = () => crypto.subtle.generateKey(params, true, ["sign", "verify"]);
const cpuMs = () => {
  const u = cpuUsage();
  return (u.user + u.system) / 1000;
};

await generate(); // warm-up
// RSA generation time is heavy-tailed (prime search): the mean is what `keys` keys cost.
const w0 = performance.now(), c0 = cpuMs();
for (let i = 0; i < samples; i++) await generate();
const wall = (performance.now() - w0) / samples, cpu = (cpuMs() - c0) / samples;
const t0 = performance.now(), u0 = cpuMs();
await Promise.all(Array.from({ length: keys }, generate));
const concurrent = performance.now() - t0, concurrentCpu = cpuMs() - u0;
let batches = "";
if (Deno.args[2]) {
  // Three rounds, the median by wall time (a round's time varies with its prime searches).
  const rounds: [number, number][] = [];
  for (let r = 0; r < 3; r++) {
    const b0 = performance.now(), bc0 = cpuMs();
    for (const n of Deno.args[2].split(",").map(Number)) {
      await Promise.all(Array.from({ length: n }, generate));
    }
    rounds.push([performance.now() - b0, cpuMs() - bc0]);
  }
  const [bw, bc] = rounds.sort((a, b) => a[0] - b[0])[1];
  batches = ` ${bw.toFixed(1)} ${bc.toFixed(1)}`;
}
await generateRsaPkcs1(2048); // warm-up
const o0 = performance.now(), oc0 = cpuMs();
for (let i = 0; i < samples; i++) await generateRsaPkcs1(2048);
const ours = ` ${((performance.now() - o0) / samples).toFixed(1)} ${
  ((cpuMs() - oc0) / samples).toFixed(1)
}`;
console.log(
  [wall, cpu, concurrent, concurrentCpu].map((x) => x.toFixed(1)).join(" ") +
    ` ${navigator.hardwareConcurrency}${batches}${ours}`,
);
