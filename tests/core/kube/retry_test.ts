import assert from "node:assert/strict";
import { ApiError } from "../../../core/errors.ts";
import { Backoff, poll, type PollAttempt } from "../../../core/kube/retry.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { SilentPeer } from "../../support/silent_peer.ts";

Deno.test("backoff doubles up to the cap and stops at the deadline", async () => {
  const clock = new FakeClock();
  const b = new Backoff({ timeoutMs: 10_000, initialDelayMs: 500, maxDelayMs: 2000, factor: 2 }, {
    clock,
    sleep: clock.sleep,
  });
  const waits: boolean[] = [];
  for (let i = 0; i < 10; i++) waits.push(await b.wait());
  assert.deepEqual(clock.sleeps, [500, 1000, 2000, 2000, 2000, 2000]);
  assert.deepEqual(waits, [true, true, true, true, true, true, false, false, false, false]);
});

Deno.test("attempt limits: the time left before the deadline, at least minCallMs; none for one attempt", async () => {
  const clock = new FakeClock();
  const timing = { clock, sleep: clock.sleep };
  const policy = { timeoutMs: 2000, initialDelayMs: 500, maxDelayMs: 500, factor: 1 };
  const b = new Backoff(policy, timing);
  assert.deepEqual(b.attemptLimits(), { timeoutMs: 2000 });
  await b.wait();
  assert.deepEqual(b.attemptLimits(), { timeoutMs: 1500 });
  clock.ms += 1500;
  assert.equal(b.expiredDuringAttempt(), 2000);
  assert.deepEqual(b.attemptLimits(), { timeoutMs: 1 }, "never 0 or less");

  // A floor longer than the timeout gives the call that long, counted from its first attempt.
  const floor = new Backoff({ ...policy, timeoutMs: 350, minCallMs: 1000 }, timing);
  assert.deepEqual(floor.attemptLimits(), { timeoutMs: 1000 });
  clock.ms += 600;
  assert.deepEqual(floor.attemptLimits(), { timeoutMs: 400 });
  clock.ms += 400;
  assert.equal(floor.expiredDuringAttempt(), undefined, "that attempt was bounded by minCallMs");

  assert.equal(new Backoff({ ...policy, timeoutMs: 0 }, timing).attemptLimits(), undefined);
});

Deno.test("poll returns as soon as an attempt is done", async () => {
  const clock = new FakeClock();
  let n = 0;
  const attempt = (): Promise<PollAttempt<string>> =>
    Promise.resolve(++n === 3 ? { done: true, value: "x" } : { done: false });
  const v = await poll(attempt, {
    clock,
    sleep: clock.sleep,
    intervalMs: 500,
    timeoutMs: 10_000,
  });
  assert.equal(v, "x");
  assert.deepEqual(clock.sleeps, [500, 500]);
});

Deno.test("poll throws the last reported error, or the timeout error", async () => {
  const clock = new FakeClock();
  let n = 0;
  await assert.rejects(
    () =>
      poll(() => Promise.resolve({ done: false, error: new Error(`fail ${++n}`) }), {
        clock,
        sleep: clock.sleep,
        intervalMs: 500,
        timeoutMs: 2000,
      }),
    /fail 5/,
  );
  await assert.rejects(
    () =>
      poll(() => Promise.resolve({ done: false }), {
        clock,
        sleep: clock.sleep,
        intervalMs: 500,
        timeoutMs: 1000,
        timeoutError: () => new Error("never ready"),
      }),
    /never ready/,
  );
});

Deno.test("a bound from outside (a poll's time left) tightens every attempt and stops retries", async () => {
  const clock = new FakeClock();
  const timing = { clock, sleep: clock.sleep };
  const policy = { timeoutMs: 60_000, initialDelayMs: 500, maxDelayMs: 8000, factor: 2 };
  const b = new Backoff(policy, timing, { timeoutMs: 1200, maxBodyBytes: 1024 });
  assert.deepEqual(b.attemptLimits(), { timeoutMs: 1200, maxBodyBytes: 1024 });
  assert.ok(await b.wait());
  assert.deepEqual(b.attemptLimits(), { timeoutMs: 700, maxBodyBytes: 1024 });
  assert.ok(!await b.wait(), "the next attempt would start past the bound");
  clock.ms += 700;
  assert.equal(b.expiredDuringAttempt(), 1200);

  // A single attempt is bounded too; a floor (minCallMs) never stretches the bound.
  const once = new Backoff({ ...policy, timeoutMs: 0 }, timing, { timeoutMs: 900 });
  assert.deepEqual(once.attemptLimits(), { timeoutMs: 900 });
  assert.ok(!await once.wait());
  const floor = new Backoff({ ...policy, minCallMs: 10_000 }, timing, { timeoutMs: 3000 });
  assert.deepEqual(floor.attemptLimits(), { timeoutMs: 3000 });
});

Deno.test("poll hands each attempt the time left; a call cut at the end reports the wait's timeout", async () => {
  const clock = new FakeClock();
  // Refused at once twice, then silent: that request may only run until the wait ends.
  const peer = new SilentPeer(clock, 30_000);
  const transport = peer.transport((_, n) => n >= 3);
  const start = clock.ms;
  await assert.rejects(
    () =>
      poll(async (window) => {
        try {
          await transport(new Request("https://10.0.0.1:6443/livez"), window.limits());
          return { done: true, value: true };
        } catch (e) {
          return { done: false, error: e };
        }
      }, { clock, sleep: clock.sleep, intervalMs: 500, timeoutMs: 2000 }),
    (e: unknown) => {
      assert.ok(e instanceof ApiError, "an API error stays one");
      assert.equal(e.reason, "Timeout");
      assert.equal(e.hint, "the API server did not answer");
      assert.equal(
        e.message,
        "the wait's timeout of 2s ran out during its last attempt: " +
          'Get "https://10.0.0.1:6443/livez": timeout after 1000ms',
      );
      return true;
    },
  );
  assert.deepEqual(peer.limits, [2000, 1500, 1000]);
  assert.equal(clock.ms - start, 2000, "not 1000ms + the transport's 30s");

  // An attempt that takes no limits (no network) is not reported as cut.
  await assert.rejects(
    () =>
      poll(() => {
        clock.ms += 3000;
        return Promise.resolve({ done: false, error: new Error("slow file") });
      }, { clock, sleep: clock.sleep, intervalMs: 500, timeoutMs: 2000 }),
    /^Error: slow file$/,
  );
});

Deno.test("poll: firstIntervalMs starts fast and doubles up to intervalMs, within one timeout", async () => {
  const clock = new FakeClock();
  const start = clock.ms;
  await assert.rejects(
    () =>
      poll(() => Promise.resolve({ done: false, error: new Error("not yet") }), {
        clock,
        sleep: clock.sleep,
        intervalMs: 500,
        firstIntervalMs: 25,
        timeoutMs: 2000,
      }),
    /^Error: not yet$/,
  );
  assert.deepEqual(clock.sleeps, [25, 50, 100, 200, 400, 500, 500]);
  assert.ok(clock.ms - start <= 2000);
});

Deno.test("poll: an attempt's retryAfterMs (the server's Retry-After) stretches the next delay past intervalMs, within the timeout", async () => {
  const clock = new FakeClock();
  const start = clock.ms;
  const asked = [3000, undefined, 400, 9000];
  let n = 0;
  await assert.rejects(
    () =>
      poll(
        () =>
          Promise.resolve({ done: false, error: new Error(`429 #${n}`), retryAfterMs: asked[n++] }),
        { clock, sleep: clock.sleep, intervalMs: 1000, timeoutMs: 10_000 },
      ),
    /^Error: 429 #3$/,
  );
  // 3s asked, the interval, the interval (never sooner than it), then 9s would end past 10s.
  assert.deepEqual(clock.sleeps, [3000, 1000, 1000]);
  assert.equal(clock.ms - start, 5000);
});
