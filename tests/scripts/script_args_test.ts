// Every benchmark and fuzzer refuses a mistyped command line before it does anything (no
// cluster, no real-node lock), and `--help` prints its usage. The bash ones run as users run
// them; the others' wrappers pass their arguments on to scripts/<name>.ts, which runs here
// directly (the wrappers first find the built components, seconds each).
import assert from "node:assert/strict";
import { repoRoot } from "../support/repo.ts";
import { usageLine } from "../../scripts/script_args.ts";

const SCRIPTS = [
  "bench",
  "bench-discovery",
  "bench-fleet",
  "bench-init",
  "bench-install",
  "bench-join-process",
  "bench-joiners",
  "bench-library",
  "bench-node",
  "bench-upgrade",
  "bench-wasm",
  "fuzz",
  "fuzz-der",
];

const BASH = new Set(["bench", "bench-install"]);

async function script(name: string, args: string[]) {
  const [command, argv] = BASH.has(name)
    ? [`${repoRoot}/scripts/${name}`, args]
    : [Deno.execPath(), [
      "run",
      "-A",
      `${repoRoot}/scripts/${name.replaceAll("-", "_")}.ts`,
      ...args,
    ]];
  const out = await new Deno.Command(command, {
    args: argv,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("scripts: an unknown flag is refused with exit 2, the flag and the usage named", async () => {
  for (const name of SCRIPTS) {
    const r = await script(name, ["--bogus"]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^scripts/${name}: .*--bogus`, "m"), name);
    assert.match(r.stderr, new RegExp(`usage: scripts/${name} `), name);
  }
});

Deno.test("scripts: --help prints the usage and exits 0", async () => {
  for (const name of SCRIPTS) {
    const r = await script(name, ["--help"]);
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`[Uu]sage: scripts/${name} `), name);
  }
});

Deno.test("scripts: a bad value (a count, a mode, a key type) is refused, the flag named", async () => {
  for (
    const [name, args, want] of [
      ["bench-node", ["--runs", "0"], /--runs: "0" is not an integer of at least 1/],
      ["bench-node", ["--mode", "upgrade"], /--mode: upgrade \(init or join\)/],
      ["bench-node", ["--mode", "join", "--keys", "dsa"], /--keys: dsa \(ecdsa or rsa\)/],
      ["bench-node", ["--max-minutes", "0"], /--max-minutes: 0 \(minutes, above 0\)/],
      ["bench-fleet", ["--workers", "six"], /--workers: "six" is not an integer of at least 1/],
      ["bench-joiners", ["--joiners", "10,x"], /--joiners: 10,x is not a comma-separated list/],
      ["bench-join-process", ["--runs", "0"], /--runs: "0" is not an integer of at least 1/],
      ["bench", ["0"], /runs: '0' is not one positive integer/],
    ] as const
  ) {
    const r = await script(name, [...args]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, want, name);
  }
});

Deno.test("usageLine: every option, its value and its default", () => {
  assert.equal(
    usageLine("x", {
      runs: { type: "string", default: "5" },
      before: { type: "string" },
      trace: { type: "boolean", default: false },
    }),
    "usage: scripts/x [--runs VALUE (5)] [--before VALUE] [--trace]",
  );
});
