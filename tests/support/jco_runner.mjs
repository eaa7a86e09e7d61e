// @ts-check
/**
 * Runs calls of the kubeadm-core component transpiled by jco, under Node: the JavaScript host
 * of the component tests (`tests/wasm/jco_test.ts`) and of `scripts/bench-wasm`.
 *
 * Usage: `node jco_runner.mjs <transpiled dir>/kubeadm-core.js <calls.json> <out.json>`, the
 * calls as tagged JSON (`wit_json.mjs`): `[{fn, args, repeat?}]`, WIT function names. Writes,
 * tagged: the import (compile + instantiate) time and per call `{ok}`, `{err}` (the
 * `error-record`) or `{trap}`, with the first call's time and the mean of `repeat` more.
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { camelName, decodeTagged, encodeTagged } from "./wit_json.mjs";

const [componentJs, callsFile, outFile] = process.argv.slice(2);
const calls = decodeTagged(readFileSync(callsFile, "utf8"));
const t0 = performance.now();
const { api } = await import(pathToFileURL(componentJs).href);
const importMs = performance.now() - t0;

/** @param {{fn: string, args: unknown[]}} c */
function once(c) {
  try {
    return { ok: api[camelName(c.fn)](...c.args) };
  } catch (e) {
    // jco throws a ComponentError carrying the error-record for a result's err; anything else
    // is a trap.
    if (e && typeof e === "object" && "payload" in e) return { err: e.payload };
    return { trap: String(e) };
  }
}

const results = [];
for (const c of calls) {
  const start = performance.now();
  const r = once(c);
  /** @type {Record<string, unknown>} */
  const out = { ...r, ms: performance.now() - start };
  if (c.repeat && !("trap" in r)) {
    const t = performance.now();
    for (let i = 0; i < c.repeat; i++) once(c);
    out.repeatMs = (performance.now() - t) / c.repeat;
  }
  results.push(out);
}
writeFileSync(outFile, encodeTagged({ node: process.version, importMs, results }));
