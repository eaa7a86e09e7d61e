import assert from "node:assert/strict";
import { humanDuration, shortHumanDuration } from "../../../core/text/human_duration.ts";

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

Deno.test("humanDuration() matches apimachinery's HumanDuration", () => {
  const M = 60 * S;
  const vectors: [number, string][] = [
    [-2 * S, "<invalid>"],
    [-S, "0s"],
    [0, "0s"],
    [119 * S + 999, "119s"],
    [2 * M, "2m"],
    [2 * M + 5 * S, "2m5s"],
    [9 * M + 59 * S, "9m59s"],
    [10 * M + 30 * S, "10m"],
    [179 * M, "179m"],
    [3 * H, "3h"],
    [3 * H + 20 * M, "3h20m"],
    [8 * H + 20 * M, "8h"],
    [47 * H + 59 * M, "47h"],
    [2 * D, "2d"],
    [5 * D + 4 * H, "5d4h"],
    [8 * D + 4 * H, "8d"],
    [364 * D + 23 * H, "364d"],
    [729 * D, "729d"],
    [730 * D, "2y"],
    [3 * 365 * D + 12 * D + 5 * H, "3y12d"],
    [87600 * H - 10 * S, "9y"],
    [8 * 365 * D + 100 * D, "8y"],
  ];
  for (const [ms, want] of vectors) assert.equal(humanDuration(ms), want, `${ms}ms`);
});
