import assert from "node:assert/strict";
import { Backoff, poll, type PollAttempt } from "../../../core/kube/retry.ts";
import { FakeClock } from "../../support/fake_clock.ts";

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

Deno.test("attempt limits: the time left before the deadline, at least minAttemptMs; none for one attempt", async () => {
  const clock = new FakeClock();
  const timing = { clock, sleep: clock.sleep };
  const policy = { timeoutMs: 2000, initialDelayMs: 500, maxDelayMs: 500, factor: 1 };
  const b = new Backoff(policy, timing);
  assert.deepEqual(b.attemptLimits(), { timeoutMs: 2000 });
  await b.wait();
  assert.deepEqual(b.attemptLimits(), { timeoutMs: 1500 });
  clock.ms += 1500;
  assert.ok(b.expiredDuringAttempt());
  assert.deepEqual(b.attemptLimits(), { timeoutMs: 1 }, "never 0 or less");

  const floor = new Backoff({ ...policy, minAttemptMs: 1000 }, timing);
  clock.ms += 1500;
  assert.deepEqual(floor.attemptLimits(), { timeoutMs: 1000 });
  clock.ms += 1000;
  assert.ok(!floor.expiredDuringAttempt(), "that attempt was bounded by minAttemptMs");

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
