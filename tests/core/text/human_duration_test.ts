import assert from "node:assert/strict";
import { shortHumanDuration } from "../../../core/text/human_duration.ts";

const S = 1000;
const H = 3600 * S;
const D = 24 * H;

Deno.test("shortHumanDuration() matches apimachinery's ShortHumanDuration", () => {
  const vectors: [number, string][] = [
    [-2 * S, "<invalid>"],
    [-1.5 * S, "0s"],
    [-S, "0s"],
    [-1, "0s"],
    [0, "0s"],
    [999, "0s"],
    [59 * S + 999, "59s"],
    [60 * S, "1m"],
    [H - 1, "59m"],
    [H, "1h"],
    [D - 1, "23h"],
    [D, "1d"],
    [364 * D + 23 * H, "364d"],
    [365 * D, "1y"],
    [2 * 365 * D + 100 * D, "2y"],
  ];
  for (const [ms, want] of vectors) assert.equal(shortHumanDuration(ms), want, `${ms}ms`);
});
