// go-difflib (kubeadm's diff) is a port of Python's difflib: Python is the reference here.
import assert from "node:assert/strict";
import { splitLines, unifiedDiff } from "../../../core/text/unified_diff.ts";

async function pythonDiff(a: string, b: string, n: number): Promise<string> {
  const script = `
import difflib, json, sys
d = json.load(sys.stdin)
def split(s):
    lines = s.split("\\n")
    out = [l + "\\n" for l in lines[:-1]] + [lines[-1] + "\\n"]
    return out
sys.stdout.write("".join(difflib.unified_diff(split(d["a"]), split(d["b"]), "old", "new", n=d["n"], lineterm="\\n")))
`;
  const child = new Deno.Command("python3", {
    args: ["-c", script],
    stdin: "piped",
    stdout: "piped",
  })
    .spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(JSON.stringify({ a, b, n })));
  await w.close();
  const out = await child.output();
  assert.ok(out.success, "python3 difflib");
  // Python writes "--- old\n" without a date; go-difflib the same when no date is given.
  return new TextDecoder().decode(out.stdout);
}

function randomText(seed: number, lines: number): string {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = ["a", "b", "c", "image: v1.36.3", "image: v1.37.2", "- --flag", "  x: 1", ""];
  return Array.from({ length: lines }, () => words[Math.floor(rnd() * words.length)]).join("\n") +
    "\n";
}

Deno.test("unified diff equals Python difflib's (go-difflib's origin) on manifests-like text", async () => {
  for (let seed = 1; seed <= 60; seed++) {
    const a = randomText(seed, 5 + (seed % 40));
    const b = randomText(seed * 7 + 3, 5 + ((seed * 3) % 40));
    for (const n of [0, 3]) {
      const ours = unifiedDiff(splitLines(a), splitLines(b), {
        fromFile: "old",
        toFile: "new",
        context: n,
      });
      assert.equal(ours, await pythonDiff(a, b, n), `seed ${seed}, n ${n}`);
    }
  }
});

Deno.test("unified diff: the popular-line rule of long inputs, and no diff for equal text", async () => {
  const a = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? "same" : `line ${i}`)).join("\n") +
    "\n";
  const b = a.replace("line 100\n", "line one hundred\n").replace("line 250\n", "");
  const ours = unifiedDiff(splitLines(a), splitLines(b), {
    fromFile: "old",
    toFile: "new",
    context: 3,
  });
  assert.equal(ours, await pythonDiff(a, b, 3));
  assert.equal(unifiedDiff(splitLines(a), splitLines(a), { context: 3 }), "");
});
