/**
 * RSA-2048 key generation in Deno's WebCrypto, for `scripts/bench`: the mean per-key cost one
 * at a time (wall and CPU), and the wall time of generating `keys` keys all at once (what the
 * certificate phases do through the key pool), so the bench can show the floor
 * `keys × per-key ÷ cores`. Prints one line:
 * `serial_wall_ms_per_key serial_cpu_ms_per_key concurrent_wall_ms concurrent_cpu_ms cores`.
 * Usage: deno run --allow-sys scripts/bench_keygen.ts [keys] [serial-samples]
 *
 * @module
 */
import { cpuUsage } from "node:process";

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
console.log(
  [wall, cpu, concurrent, concurrentCpu].map((x) => x.toFixed(1)).join(" ") +
    ` ${navigator.hardwareConcurrency}`,
);
