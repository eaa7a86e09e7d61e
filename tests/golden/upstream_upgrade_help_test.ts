// Golden comparison of `kubeadm upgrade`'s help screens with upstream kubeadm v1.37.2's: every
// command of the family (28), byte for byte, but for the two differences the README documents
// (`--rootfs` maps paths instead of chrooting; `upgrade plan -o` offers no template printers).
import assert from "node:assert/strict";
import type { Command } from "commander";
import { buildProgram } from "../../cli/program.ts";
import { formatHelp } from "../../cli/help.ts";
import { parseHelp } from "../support/help_tree.ts";
import { k8sBinDir } from "../support/k8s_bins.ts";
import { run } from "../support/commands.ts";

/** The help lines whose difference the README documents, each replaced by a marker. */
const DOCUMENTED: readonly RegExp[] = [
  /^ {6}--rootfs string {8}The path to the 'real' host root filesystem.*$/m,
  /^ {2}-o, --output string {6,}Output format\. One of: text\|json\|yaml\|kyaml.*$/m,
];

function normalise(help: string): string {
  return DOCUMENTED.reduce((text, line, i) => text.replace(line, `<documented ${i}>`), help);
}

Deno.test("every kubeadm upgrade help screen is upstream kubeadm v1.37.2's", async () => {
  const kubeadm = `${await k8sBinDir()}/kubeadm`;
  const program = await buildProgram("upgrade");
  let compared = 0;
  const walk = async (path: string[]) => {
    const r = await run([kubeadm, ...path, "--help"]);
    assert.equal(r.code, 0, `${path.join(" ")} --help: ${r.stderr}`);
    let cmd: Command | undefined = program;
    for (const name of path) cmd = cmd?.commands.find((c) => c.name() === name);
    assert.ok(cmd, `ours lacks kubeadm ${path.join(" ")}`);
    assert.equal(normalise(formatHelp(cmd)), normalise(r.stdout), `kubeadm ${path.join(" ")}`);
    compared++;
    for (const sub of parseHelp(r.stdout, path[path.length - 1]).commands) {
      await walk([...path, sub]);
    }
  };
  await walk(["upgrade"]);
  assert.equal(compared, 28);
});
