import assert from "node:assert/strict";
import {
  formatDuration,
  formatDurationNs,
  isDuration,
  normalizeDuration,
  parseDuration,
  parseDurationNs,
} from "../../../core/text/duration.ts";

Deno.test("formats like Go's Duration.String", () => {
  const h = 3_600_000;
  assert.equal(formatDuration(24 * h), "24h0m0s");
  assert.equal(formatDuration(4 * 60_000), "4m0s");
  assert.equal(formatDuration(8760 * h), "8760h0m0s");
  assert.equal(formatDuration(87600 * h), "87600h0m0s");
  assert.equal(formatDuration(90 * 60_000), "1h30m0s");
  assert.equal(formatDuration(500), "500ms");
  assert.equal(formatDuration(1500), "1.5s");
  assert.equal(formatDuration(0), "0s");
  assert.equal(formatDuration(-2000), "-2s");
  assert.equal(formatDurationNs(1500n), "1.5\u00b5s");
  assert.equal(formatDurationNs(999n), "999ns");
  assert.equal(formatDurationNs(61_500_000_000n), "1m1.5s");
});

Deno.test("parses Go durations", () => {
  assert.equal(parseDuration("24h0m0s"), 86_400_000);
  assert.equal(parseDuration("1h30m"), 5_400_000);
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("0s"), 0);
  assert.equal(parseDuration("0"), 0);
  assert.equal(parseDuration("1.5h"), 5_400_000);
  assert.equal(parseDuration("-1m"), -60_000);
  assert.equal(parseDuration(".5s"), 500);
  assert.equal(parseDurationNs("1us"), 1000n);
  assert.equal(parseDurationNs("1\u00b5s"), 1000n);
});

Deno.test("rejects invalid durations with Go's messages", () => {
  assert.throws(() => parseDurationNs(""), /time: invalid duration ""/);
  assert.throws(() => parseDurationNs("1"), /time: missing unit in duration "1"/);
  assert.throws(() => parseDurationNs("1d"), /time: unknown unit "d" in duration "1d"/);
  assert.throws(() => parseDurationNs("h"), /time: invalid duration "h"/);
  assert.equal(isDuration("forever"), false);
  assert.equal(isDuration("3m"), true);
});

Deno.test("normalizes to canonical form", () => {
  assert.equal(normalizeDuration("1m"), "1m0s");
  assert.equal(normalizeDuration("90s"), "1m30s");
  assert.equal(normalizeDuration("24h"), "24h0m0s");
});
