import { assertDryRunAsUpstream, assertLogAsUpstream } from "./support/upgrade_golden.ts";
const b = Deno.args[0];
const rd = (s: string) => Deno.readTextFileSync(`${b}.${s}`);
const r = { ours: rd("ours.stdout"), theirs: rd("theirs.stdout"), oursStderr: rd("ours.stderr"), theirsStderr: rd("theirs.stderr"), upstreamDryRunDir: Deno.args[1] ?? "" };
if (Deno.args[2] !== "nodry") { assertDryRunAsUpstream(r); console.log("dry same"); }
assertLogAsUpstream(r);
console.log("log same");
