/**
 * What a test costs the machine: the host's memory in use (MemTotal − MemAvailable), its CPU
 * busy share (from `/proc/stat`) and its load average, sampled every few seconds while a test
 * runs. Figures for reports (benchmarks print them), never assertions on timing.
 *
 * @module
 */

/** Summary of the samples. */
export interface HostUsageReport {
  /** Memory in use when sampling began, GiB. */
  baselineGiB: number;
  /** The most memory in use, GiB. */
  peakGiB: number;
  /** Peak minus baseline, GiB: what the test added. */
  addedGiB: number;
  /** Mean share of CPU time busy (all cores), 0–1. */
  meanBusy: number;
  /** The highest 1-minute load average seen. */
  peakLoad: number;
  /** Cores of the machine. */
  cores: number;
  samples: number;
}

/** A running sampler ({@link sampleHostUsage}). */
export interface HostUsageSampler {
  /** Stops and summarises. */
  stop(): Promise<HostUsageReport>;
}

async function memUsedGiB(): Promise<number> {
  const text = await Deno.readTextFile("/proc/meminfo");
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  return (kb("MemTotal") - kb("MemAvailable")) / 1024 / 1024;
}

/** `[busy, total]` jiffies of all CPUs. */
async function cpuTimes(): Promise<[number, number]> {
  const line = (await Deno.readTextFile("/proc/stat")).split("\n")[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3] + (v[4] ?? 0);
  const total = v.reduce((a, b) => a + b, 0);
  return [total - idle, total];
}

async function load1(): Promise<number> {
  return Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
}

/** Samples the host every `everyMs` until stopped. */
export async function sampleHostUsage(everyMs = 2_000): Promise<HostUsageSampler> {
  const baselineGiB = await memUsedGiB();
  const [busy0, total0] = await cpuTimes();
  let peakGiB = baselineGiB;
  let peakLoad = await load1();
  let samples = 1;
  const timer = setInterval(async () => {
    samples++;
    peakGiB = Math.max(peakGiB, await memUsedGiB());
    peakLoad = Math.max(peakLoad, await load1());
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      const [busy1, total1] = await cpuTimes();
      return {
        baselineGiB,
        peakGiB,
        addedGiB: peakGiB - baselineGiB,
        meanBusy: (busy1 - busy0) / Math.max(1, total1 - total0),
        peakLoad,
        cores: navigator.hardwareConcurrency,
        samples,
      };
    },
  };
}
